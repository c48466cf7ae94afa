#!/usr/bin/env bash
# Writes the d128 attention variants the GPU suite's overlap section checks
# and times (SECTIONS=overlap, OV_DIR=.bundle/ov): overlapped kernels on
# whole 128-column tiles (cp.async: TMA cannot write the blocked layout in
# one box) and on 64-column parts (TMA), in a few block configurations
# (M_N_STAGES_THREADS). Run here (it needs the build's Python package and
# tile-opt), then carry .bundle/ov.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${TILE_BUILD_DIR:-$ROOT/build}"
OUT="$ROOT/.bundle/ov"
mkdir -p "$OUT"
rm -f "$OUT"/*.mlir
gen() { # file, gen_attention.py arguments...
  local file=$1; shift
  PYTHONPATH="$BUILD/python" python3 "$ROOT/bench/gen_attention.py" --dim 128 "$@" |
    "$BUILD/bin/tile-opt" > "$OUT/$file.mlir"
}
for cfg in ${OV_CONFIGS:-128_128_2_256 64_64_2_128}; do
  IFS=_ read -r m n s t <<<"$cfg"
  gen "ov_$cfg" --block-m "$m" --block-n "$n" --stages "$s" --threads "$t" --overlap
done
for cfg in ${OV_SPLIT_CONFIGS:-128_128_2_256 128_64_3_256 64_64_3_128}; do
  IFS=_ read -r m n s t <<<"$cfg"
  gen "ovsplit_$cfg" --block-m "$m" --block-n "$n" --stages "$s" --threads "$t" --overlap --split 64
done
ls "$OUT"
# Wider key tiles for the committed overlapped kernel (SECTIONS=blockn,
# BN_DIR=.bundle/bn): 128-row query tiles, 2 stages, 256 threads, the
# output staged; BLOCKN_CONFIGS entries N_PEEL (PEEL: firstlast or none;
# both ends peeled need one more K tile, which N >= 160 leaves no room for).
BN_OUT="$ROOT/.bundle/bn"
mkdir -p "$BN_OUT"
rm -f "$BN_OUT"/*.mlir
for cfg in ${BLOCKN_CONFIGS:-128_none 144_firstlast 144_none 160_none 176_none 192_none}; do
  IFS=_ read -r n peel <<<"$cfg"
  [ "$peel" = firstlast ] && peel=first,last
  PYTHONPATH="$BUILD/python" python3 "$ROOT/bench/gen_attention.py" --dim 128 \
    --block-m 128 --block-n "$n" --stages 2 --threads 256 --overlap \
    --stage-output --peel "$peel" | "$BUILD/bin/tile-opt" > "$BN_OUT/bn_$cfg.mlir"
done
ls "$BN_OUT"
# The overlapped kernel with only its last end peeled (K_0 in the pipeline's
# ring, the last V in a tile of its own), for the persistent schedule
# (SECTIONS=pdyn).
PYTHONPATH="$BUILD/python" python3 "$ROOT/bench/gen_attention.py" --dim 128 \
  --block-m 128 --block-n 128 --stages 2 --threads 256 --overlap \
  --stage-output --peel last | "$BUILD/bin/tile-opt" > "$ROOT/.bundle/bn/peel_last.mlir"
# The committed kernel with FlashAttention-4's conditional rescale
# (SECTIONS=lazy).
PYTHONPATH="$BUILD/python" python3 "$ROOT/bench/gen_attention.py" --dim 128 \
  --block-m 128 --block-n 128 --stages 2 --threads 256 --overlap \
  --stage-output --lazy-rescale | "$BUILD/bin/tile-opt" > "$ROOT/.bundle/bn/lazy.mlir"
