#!/usr/bin/env bash
# Runs lit tests on the GPU machine (no LLVM there), from the repository
# root with .bundle/ carried (scripts/gpu/build_bundle.sh: the static
# tile-run, lit and its tools):
#
#   scripts/gpu/run_lit.sh [lit paths under test/, default Integration/GPU]
#
# The GPU tests (test/Integration/GPU, REQUIRES: cuda-gpu / cuda-sm90 /
# compute-sanitizer) compile for the GPU that lit.cfg.py finds. Results
# (JUnit XML) go to $OUT/lit-results.xml when OUT is set.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS=/tmp/tile-lit-tools
OBJ=/tmp/tile-lit-obj
rm -rf "$TOOLS" "$OBJ"
mkdir -p "$TOOLS/bin" "$OBJ/test"
tar -C "$TOOLS" -xJf "$ROOT/.bundle/lit-tools.tar.xz"
xz -dc "$ROOT/.bundle/tile-run.xz" > "$TOOLS/bin/tile-run"
chmod +x "$TOOLS/bin/tile-run"
# What CMake writes into build/test/lit.site.cfg.py, for this layout.
cat > "$OBJ/test/lit.site.cfg.py" <<PY
config.llvm_tools_dir = "$TOOLS/bin"
config.mlir_obj_dir = ""
config.tile_src_root = "$ROOT"
config.tile_obj_root = "$OBJ"
config.tile_tools_dir = "$TOOLS/bin"
config.lit_tools_dir = ""
config.tile_rocm_toolkit = ""
config.host_os = "Linux"
config.tile_python_enabled = "OFF"
config.tile_asan = "OFF"
config.tile_python_executable = "$(command -v python3)"
import lit.llvm
lit.llvm.initialize(lit_config, config)
# FileCheck, not and count find their libraries here.
config.environment["LD_LIBRARY_PATH"] = "$TOOLS/lib"
lit_config.load_config(config, "$ROOT/test/lit.cfg.py")
PY
paths=()
for path in "${@:-Integration/GPU}"; do
  paths+=("$OBJ/test/$path")
done
xml=()
[ -n "${OUT:-}" ] && xml=(--xunit-xml-output "$OUT/lit-results.xml")
PYTHONPATH="$TOOLS/lit" exec python3 -c 'from lit.main import main; main()' \
  -v -j "$(nproc)" "${xml[@]}" "${paths[@]}"
