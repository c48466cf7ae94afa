#!/usr/bin/env bash
# Builds the self-contained bundle for the GPU machine (no LLVM there):
# tile-run linked statically against the MLIR/LLVM archives (glibc stays
# dynamic: the runtime dlopens libcuda.so.1), stripped and xz-compressed into
# .bundle/ (ignored by git; send it with the device tool's `carry`).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${TILE_BUILD_DIR:-$ROOT/build}"
OUT="$ROOT/.bundle"
LLVM_LIB=/usr/lib/llvm-22/lib

ninja -C "$BUILD" tile-run
mkdir -p "$OUT"

# Every MLIR and LLVM archive but the test and opt-main ones; --gc-sections
# keeps only what tile-run reaches.
mapfile -t ARCHIVES < <(ls "$LLVM_LIB"/libMLIR*.a "$LLVM_LIB"/libLLVM*.a |
  grep -v -E 'libMLIR(Test|.*TestPasses|MlirOptMain|OptLib)|libMLIRCAPI')

clang++-22 -fuse-ld=lld -o "$OUT/tile-run" \
  "$BUILD/tools/tile-run/CMakeFiles/tile-run.dir/tile-run.cpp.o" \
  -Wl,--start-group "$BUILD"/lib/libTileLang*.a "${ARCHIVES[@]}" -Wl,--end-group \
  -Wl,--gc-sections -Wl,--icf=all \
  -static-libstdc++ -static-libgcc \
  -Wl,-Bstatic -lz -lzstd -Wl,-Bdynamic -lm -ldl -lpthread
strip "$OUT/tile-run"
ls -la "$OUT/tile-run"
ldd "$OUT/tile-run" | sed 's/^/  /'
rm -f "$OUT/tile-run.xz"
xz -T2 -6 -k "$OUT/tile-run"
ls -la "$OUT/tile-run.xz"

# The lit runner of the GPU tests (scripts/gpu/run_lit.sh): lit itself and
# the tools every lit configuration substitutes (FileCheck, not, count),
# with the shared libraries of theirs the GPU machine lacks.
LIT_TOOLS="$(mktemp -d)"
trap 'rm -rf "$LIT_TOOLS"' EXIT
mkdir -p "$LIT_TOOLS/bin" "$LIT_TOOLS/lib"
cp -r /usr/lib/llvm-22/utils/lit "$LIT_TOOLS/lit"
find "$LIT_TOOLS/lit" -name __pycache__ -prune -exec rm -rf {} +
cp /usr/lib/llvm-22/bin/FileCheck /usr/lib/llvm-22/bin/not \
  /usr/lib/llvm-22/bin/count "$LIT_TOOLS/bin/"
for tool in "$LIT_TOOLS"/bin/*; do
  ldd "$tool" | awk '/=> \// { print $3 }'
done | sort -u | grep -E 'libz3|libzstd' | xargs -r -I{} cp -L {} "$LIT_TOOLS/lib/"
tar -C "$LIT_TOOLS" -cJf "$OUT/lit-tools.tar.xz" .
ls -la "$OUT/lit-tools.tar.xz"
