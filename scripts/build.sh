#!/usr/bin/env bash
# Configures (once) and builds TileLang-MLIR into ${TILE_BUILD_DIR:-build}.
# Uses clang-22 + lld + Ninja, ccache when present, and links against the
# shared libMLIR.so. Extra arguments go to the CMake configure step.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TILE_BUILD_DIR:-$ROOT/build}"
JOBS="${TILE_JOBS:-$(nproc)}"

if [ ! -f "$BUILD/build.ninja" ]; then
  launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  cmake -G Ninja -S "$ROOT" -B "$BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DPython3_EXECUTABLE=/usr/bin/python3 \
    "${launcher[@]}" "$@"
fi
ninja -C "$BUILD" -j "$JOBS" all
