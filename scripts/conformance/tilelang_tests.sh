#!/usr/bin/env bash
# Runs TileLang's own test files unchanged against this package and against
# TileLang itself, and prints pass/fail per folder (scripts/conformance/run.py):
#
#   scripts/conformance/tilelang_tests.sh TILELANG_CHECKOUT [OUT_DIR]
#
# `import tilelang` resolves to tilelang_mlir (it must be importable: the
# build tree's build/python, or an installed wheel on PYTHONPATH); TileLang
# itself runs where TILELANG_SITE names a folder holding the real `tilelang`
# package (../shared/peers/tilelang_site.sh packs one). Without it, only this
# package's results are written. JOBS and TIMEOUT (per file) tune the run.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CHECKOUT="$(realpath "${1:?usage: tilelang_tests.sh TILELANG_CHECKOUT [OUT_DIR]}")"
OUT="$(realpath -m "${2:-conformance-results}")"
PYTHON="${PYTHON:-python3}"
ARGS=(--jobs "${JOBS:-8}" --timeout "${TIMEOUT:-300}")
if [ -n "${TILELANG_SITE:-}" ]; then
  PYTHONPATH="$TILELANG_SITE${PYTHONPATH:+:$PYTHONPATH}" \
    "$PYTHON" "$HERE/run.py" run "$CHECKOUT" --impl tilelang --out "$OUT" "${ARGS[@]}"
fi
"$PYTHON" "$HERE/run.py" run "$CHECKOUT" --impl ours --out "$OUT" "${ARGS[@]}"
if [ -f "$OUT/tilelang.json" ]; then
  "$PYTHON" "$HERE/run.py" report "$OUT"
fi
