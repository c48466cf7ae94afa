#!/usr/bin/env bash
# Builds the Python package for the GPU machine (whose Python differs from
# this machine's and which has no LLVM): the _tilelang module compiled for
# PYTHON (default: a pyenv 3.12, the GPU machine's version), linked
# statically against the MLIR/LLVM archives like the tile-run bundle,
# stripped, with the pure-Python sources next to it, into
# .bundle/python/tilelang_mlir (compressed as .bundle/python.tar.xz).
# On the GPU machine:
#   mkdir -p /tmp/py && tar xJf .bundle/python.tar.xz -C /tmp/py
#   PYTHONPATH=/tmp/py python3 python/tests/test_gpu.py
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${TILE_BUILD_DIR:-$ROOT/build}"
PYTHON="${PYTHON:-$(ls -d /root/.pyenv/versions/3.12.* 2>/dev/null | tail -1)/bin/python3}"
LLVM_LIB=/usr/lib/llvm-22/lib
OUT="$ROOT/.bundle/python"

"$PYTHON" -c 'import sys; assert sys.version_info >= (3, 8)'
INCLUDE="$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
SUFFIX="$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
echo "python: $PYTHON ($SUFFIX)"

ninja -C "$BUILD" TileLangJIT TileLangCUDARuntime TileLangPythonSources
rm -rf "$OUT" && mkdir -p "$OUT/tilelang_mlir"
mapfile -t ARCHIVES < <(ls "$LLVM_LIB"/libMLIR*.a "$LLVM_LIB"/libLLVM*.a |
  grep -v -E 'libMLIR(Test|.*TestPasses|MlirOptMain|OptLib)|libMLIRCAPI')
# LLVM's compile flags without its -fno-exceptions/-fno-rtti (pybind11).
clang++-22 -std=c++17 -O2 -fPIC -fexceptions -frtti -fvisibility=hidden \
  -I"$INCLUDE" -I/usr/include -I/usr/lib/llvm-22/include -I"$ROOT/include" \
  -I"$BUILD/include" -D_GLIBCXX_USE_CXX11_ABI=1 \
  -c "$ROOT/python/tilelang_mlir/_tilelang.cpp" -o "$OUT/_tilelang.o"
clang++-22 -shared -fuse-ld=lld -o "$OUT/tilelang_mlir/_tilelang$SUFFIX" \
  "$OUT/_tilelang.o" \
  -Wl,--start-group "$BUILD"/lib/libTileLang*.a "${ARCHIVES[@]}" -Wl,--end-group \
  -Wl,--gc-sections -Wl,--exclude-libs,ALL \
  -static-libstdc++ -static-libgcc \
  -Wl,-Bstatic -lz -lzstd -Wl,-Bdynamic -lm -ldl -lpthread
rm "$OUT/_tilelang.o"
strip "$OUT/tilelang_mlir/_tilelang$SUFFIX"
cp "$BUILD"/python/tilelang_mlir/*.py "$OUT/tilelang_mlir/"
# The module loads (numpy, which the package needs, may be missing here).
"$PYTHON" - "$OUT/tilelang_mlir/_tilelang$SUFFIX" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("_tilelang", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
kernel = module.Kernel("func.func @f(%a: memref<4xf32>) { return }", "cpu")
print("loads:", module.__name__, [p["name"] for p in kernel.params])
PY
rm -f "$ROOT/.bundle/python.tar.xz"
tar -C "$OUT" -cJf "$ROOT/.bundle/python.tar.xz" tilelang_mlir
ls -la "$OUT/tilelang_mlir/_tilelang$SUFFIX" "$ROOT/.bundle/python.tar.xz"
# Only the archive travels (the device tool carries at most 64 MiB).
rm -rf "$OUT"
