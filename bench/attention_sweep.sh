#!/usr/bin/env bash
# Runs on the GPU machine (repository root, .bundle/ carried): FlashAttention
# head-dim-128 block configurations, each checked against the CPU lowering at
# 1x2x130x128 and timed at b8 h32 s4096 d128 (causal and not; median of 10
# after 3 warm-ups; the kernels' time from CUDA events). The kernels come from
#   python3 bench/gen_attention.py --dim 128 --block-m M --block-n N \
#       --stages S --threads T | tile-opt > .bundle/kernels/fa128_mM_nN_sS_tT.mlir
# Usage: bench/attention_sweep.sh KERNEL.mlir...   (CHECK=0 skips the checks)
set -uo pipefail
TR=${TR:-.bundle/tile-run}
CHIP=${CHIP:-sm_90a}
small="--arg=1x2x130x128 --arg=1x2x130x128 --arg=1x2x130x128 --arg=1x2x130x128"
big="--arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128 --arg=8x32x4096x128"
for kernel in "$@"; do
  for entry in flash_attention flash_attention_causal; do
    check=skipped
    [ "${CHECK:-1}" = 1 ] && check=$("$TR" "$kernel" --entry=$entry --target=$CHIP --outputs=3 --rtol=1e-3 --atol=1e-3 --repeat=0 $small 2>&1 | grep -E "#3|error|mismatch" | head -1)
    time=$("$TR" "$kernel" --entry=$entry --target=$CHIP --outputs=3 --repeat=10 --warmup=3 --no-check $big 2>&1 | grep -oE "median [0-9.]+ ms|error.*" | head -1)
    echo "$(basename "$kernel") $entry: $time; check: $check"
  done
done
