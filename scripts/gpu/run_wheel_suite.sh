#!/usr/bin/env bash
# On the GPU machine (no LLVM): installs the self-contained wheel of
# scripts/build_wheels.sh (scripts/gpu/install_wheel.sh) and runs the Python
# test suite against the installed package, GPU tests included. pytest comes
# from wheels carried in .whl/ (the machine has no network):
#
#   here:   scripts/build_wheels.sh 3.12
#           python3 -m pip download -d .whl pytest
#   there:  scripts/gpu/run_wheel_suite.sh [pytest arguments]   (carry dist, .whl)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/scripts/gpu/install_wheel.sh"
# Outside the source tree, so that the import can only find the install.
cd /tmp
"$PYTHON" - <<'PY'
import tilelang_mlir, tilelang_mlir._tilelang as m
print("installed:", tilelang_mlir.__file__, tilelang_mlir.__version__, tilelang_mlir.__commit__)
print("identity:", m.compiler_identity())
PY
ldd "$(dirname "$("$PYTHON" -c 'import tilelang_mlir; print(tilelang_mlir.__file__)')")"/_tilelang*.so
export TILE_GPU_TARGET="${TILE_GPU_TARGET:-sm_90a}"
exec "$PYTHON" -m pytest -q -p no:cacheprovider -o addopts="" \
  --rootdir "$ROOT/python/tests" "$ROOT/python/tests" "$@"
