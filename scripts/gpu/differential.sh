#!/usr/bin/env bash
# On the GPU machine: runs python/tests/test_differential.py (each program
# through real TileLang and through this package, same inputs) in JOBS
# parallel pytest processes and writes one JSON line per program to
# ${OUT:-.}/differential.jsonl.
#
# This package comes from the wheel in dist/ (scripts/gpu/install_wheel.sh)
# or, when .conformance/ours-site.tar.xz is there, from that unpacked wheel
# (smaller to carry: the wheel's files as tar.xz); real TileLang from
# $TILELANG_SITE or .conformance/tlsite.tar.xz (../shared/peers/tilelang_site.sh).
# pytest from the wheels in .whl/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PYTHON="${PYTHON:-python3}"
OUT="${OUT:-$PWD}"
JOBS="${JOBS:-4}"
if [ -f "$ROOT/.conformance/ours-site.tar.xz" ]; then
  SITE=/tmp/tilelang-site; rm -rf "$SITE"; mkdir -p "$SITE"
  tar xJf "$ROOT/.conformance/ours-site.tar.xz" -C "$SITE"
  "$PYTHON" -m pip install -q --no-index --target /tmp/pytest-site "$ROOT"/.whl/*.whl
  export PYTHONPATH="$SITE:/tmp/pytest-site"
else
  source "$ROOT/scripts/gpu/install_wheel.sh"
fi
if [ -z "${TILELANG_SITE:-}" ]; then
  TILELANG_SITE=/tmp/tlsite; rm -rf "$TILELANG_SITE"; mkdir -p "$TILELANG_SITE"
  tar xJf "$ROOT/.conformance/tlsite.tar.xz" -C "$TILELANG_SITE"
fi
export PYTHONPATH="$PYTHONPATH:$TILELANG_SITE"
export CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
export DIFFERENTIAL_RESULTS="$OUT/differential.jsonl"
rm -f "$DIFFERENTIAL_RESULTS"
cd /tmp
mapfile -t ids < <("$PYTHON" -m pytest -q -p no:cacheprovider --collect-only \
  "$ROOT/python/tests/test_differential.py" | grep '::' | sed "s|^|$ROOT/|")
pids=()
for ((j = 0; j < JOBS; j++)); do
  shard=()
  for ((i = j; i < ${#ids[@]}; i += JOBS)); do shard+=("${ids[$i]}"); done
  [ ${#shard[@]} -eq 0 ] && continue
  "$PYTHON" -m pytest -q -p no:cacheprovider -o addopts="" -rA "${shard[@]}" \
    > "$OUT/differential-$j.log" 2>&1 &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
grep -h "passed\|failed" "$OUT"/differential-*.log | grep -v "^PASSED\|^FAILED" || true
"$PYTHON" - "$DIFFERENTIAL_RESULTS" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])] if len(sys.argv) > 1 else []
ours = sum(r["ours"] == "matches" for r in rows)
theirs = sum(r["tilelang"] == "matches" for r in rows)
print("%d programs: this package matches the reference on %d, TileLang on %d" % (len(rows), ours, theirs))
for r in sorted(rows, key=lambda r: r["program"]):
    if r["ours"] != "matches" or r["tilelang"] != "matches":
        print("  %-36s ours: %s | TileLang: %s" % (r["program"], r["ours"], r["tilelang"]))
PY
exit $rc
