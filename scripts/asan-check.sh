#!/usr/bin/env bash
# Builds the project's code with AddressSanitizer (MLIR itself stays the
# uninstrumented libMLIR.so) into build-asan/ and runs the invalid-IR and
# malformed-input lit tests with it. Any ASan report fails the run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TILE_ASAN_BUILD_DIR:-$ROOT/build-asan}"
# clang-22's AddressSanitizer runtime is Debian's libclang-rt-22-dev.
if ! compgen -G "/usr/lib/llvm-22/lib/clang/22/lib/*/libclang_rt.asan*.a" >/dev/null; then
  echo "asan-check: clang-22's ASan runtime is missing; install libclang-rt-22-dev" >&2
  exit 1
fi
TILE_BUILD_DIR="$BUILD" "$ROOT/scripts/build.sh" -DTILE_ENABLE_ASAN=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
# allow_user_poisoning=0: the LLVM headers our instrumented code inlines
# poison and unpoison BumpPtrAllocator slabs that the uninstrumented
# libMLIR.so also allocates from; with user poisoning on, ASan reports
# use-after-poison inside MLIR's own uniquer (a false positive of mixing
# instrumented and uninstrumented LLVM code), so only ASan's own poisoning
# (heap, stack, globals) is checked.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:allow_user_poisoning=0"
/usr/lib/llvm-22/bin/lit -sv \
  "$BUILD/test/Dialect/Tile/invalid.mlir" \
  "$BUILD/test/tools" \
  "$BUILD/test/Transforms" \
  "$BUILD/test/Conversion"
