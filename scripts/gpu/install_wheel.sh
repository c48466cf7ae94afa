# shellcheck shell=bash
# Sourced on the GPU machine (no LLVM there) by run_wheel_suite.sh and
# run_suite.sh: installs the self-contained wheel of scripts/build_wheels.sh
# for this machine's Python into a fresh $SITE (pip install --target, next to
# the system's torch and numpy, which a virtual environment would not see
# there: they are in the user's site-packages), with the wheels carried in
# .whl/ if any (pytest: the machine has no network), and sets PYTHONPATH to
# $SITE. Returns 1 without a wheel for this Python in dist/.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PYTHON="${PYTHON:-python3}"
SITE="${SITE:-/tmp/tilelang-site}"
tag=$("$PYTHON" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
wheel=$(ls "$ROOT"/dist/tilelang_mlir-*-"$tag"-*manylinux*.whl 2>/dev/null | tail -1 || true)
if [ -z "$wheel" ]; then
  echo "no dist/tilelang_mlir-*-$tag-*manylinux*.whl: run scripts/build_wheels.sh" \
    "$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])') and carry dist" >&2
  return 1
fi
carried=()
for w in "$ROOT"/.whl/*.whl; do
  if [ -e "$w" ]; then carried+=("$w"); fi
done
rm -rf "$SITE"
"$PYTHON" -m pip install -q --no-index --no-deps --target "$SITE" "$wheel" \
  ${carried[@]+"${carried[@]}"} || return 1
export PYTHONPATH="$SITE"
