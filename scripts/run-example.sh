#!/usr/bin/env bash
# The main job: set up, build, then compile the example GEMM (TileLang's
# README GEMM with a ReLU epilogue, examples/gemm_relu.mlir), run it on the
# CPU on random inputs whose sizes are not multiples of the 128x128x32 tile,
# check it against a naive reference, and time it; then the same on an NVIDIA
# GPU when one is present.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TILE_BUILD_DIR:-$ROOT/build}"
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build.sh"

M=${M:-300} N=${N:-500} K=${K:-700}
EXAMPLE="$ROOT/examples/gemm_relu.mlir"
REFERENCE="$ROOT/test/Integration/references/gemm_relu.mlir@gemm_relu_ref"

echo
echo "== compile: tile-opt $EXAMPLE --tile-to-cpu"
"$BUILD/bin/tile-opt" "$EXAMPLE" --tile-to-cpu -o /dev/null
echo "   ok (tile IR -> LLVM dialect)"
echo
echo "== run on the CPU: C = relu(A @ B), A ${M}x${K}, B ${K}x${N} (f16, f32 accumulation)"
"$BUILD/bin/tile-run" "$EXAMPLE" --entry=gemm_relu \
  --arg=${M}x${K} --arg=${K}x${N} --arg=${M}x${N} \
  --reference="$REFERENCE" --outputs=2 --explain --repeat=5
echo
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
  chip="sm_${cc}"; [ "$cc" = 90 ] && chip=sm_90a
  echo "== run on the GPU ($(nvidia-smi -L | head -1)), target $chip"
  "$BUILD/bin/tile-run" "$EXAMPLE" --entry=gemm_relu --target="$chip" \
    --arg=${M}x${K} --arg=${K}x${N} --arg=${M}x${N} \
    --reference="$REFERENCE" --outputs=2 --repeat=5
else
  echo "== no GPU on this machine: GPU run skipped"
fi
