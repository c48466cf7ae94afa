#!/usr/bin/env bash
# On the GPU machine: runs TileLang's own test files against this package
# (scripts/conformance/run.py, `--impl ours`) and reports against TileLang's
# own results of the same files (bench/results/*-conformance/tilelang.json,
# or a fresh run when TILELANG_TOO=1).
#
# Carried: .conformance/ours-site.tar.xz (the wheel's files), .conformance/
# tl-tests.tar.xz (TileLang's testing/ and examples/), .whl/ (pytest) and,
# with TILELANG_TOO=1, .conformance/tlsite.tar.xz (../shared/peers/
# tilelang_site.sh). BUDGET (seconds before no new file starts), JOBS and
# TIMEOUT (per file) tune the run; results go to ${OUT:-.}/conformance/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PYTHON="${PYTHON:-python3}"
OUT="${OUT:-$PWD}/conformance"
mkdir -p "$OUT"
SITE=/tmp/ours-site; rm -rf "$SITE"; mkdir -p "$SITE"
tar xJf "$ROOT/.conformance/ours-site.tar.xz" -C "$SITE"
"$PYTHON" -m pip install -q --no-index --target /tmp/pytest-conf "$ROOT"/.whl/*.whl
CHECKOUT=/tmp/tl-checkout; rm -rf "$CHECKOUT"; mkdir -p "$CHECKOUT"
tar xJf "$ROOT/.conformance/tl-tests.tar.xz" -C "$CHECKOUT"
export CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
ARGS=(--jobs "${JOBS:-12}" --timeout "${TIMEOUT:-240}" --budget "${BUDGET:-0}")
if [ "${TILELANG_TOO:-0}" = 1 ]; then
  TLSITE=/tmp/tlsite; rm -rf "$TLSITE"; mkdir -p "$TLSITE"
  tar xJf "$ROOT/.conformance/tlsite.tar.xz" -C "$TLSITE"
  PYTHONPATH="$TLSITE:/tmp/pytest-conf" "$PYTHON" "$ROOT/scripts/conformance/run.py" \
    run "$CHECKOUT" --impl tilelang --out "$OUT" "${ARGS[@]}" > "$OUT/tilelang-log.txt" 2>&1
else
  cp "$(ls "$ROOT"/bench/results/*-conformance/tilelang.json | sort | tail -1)" "$OUT/"
fi
PYTHONPATH="$SITE:/tmp/pytest-conf" "$PYTHON" "$ROOT/scripts/conformance/run.py" \
  run "$CHECKOUT" --impl ours --out "$OUT" "${ARGS[@]}" > "$OUT/ours-log.txt" 2>&1 || true
"$PYTHON" "$ROOT/scripts/conformance/run.py" report "$OUT" --reasons 60 | tee "$OUT/report.txt"
