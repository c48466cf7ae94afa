"""bench/kernels/flash_attention_d128.mlir and its Q K^T split variant are
what bench/gen_attention.py generates today, and they compile for the GPU
suite's target: mma.sync for both gemms, or wgmma for Q K^T on 64-column
parts (128-byte rows)."""
# RUN: %tile_python %tile_src/bench/gen_attention.py --dim 128 | tile-opt > %t.mlir
# RUN: grep -v '^//' %tile_src/bench/kernels/flash_attention_d128.mlir | diff - %t.mlir
# RUN: tile-opt %t.mlir --tile-to-nvvm="chip=sm_90a format=isa" | FileCheck %s
# CHECK-COUNT-2: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# RUN: %tile_python %tile_src/bench/gen_attention.py --dim 128 --qk-split 64 | tile-opt > %t.split.mlir
# RUN: grep -v '^//' %tile_src/bench/kernels/flash_attention_d128_qksplit.mlir | diff - %t.split.mlir
# RUN: tile-opt %t.split.mlir --tile-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=SPLIT
# SPLIT-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
# SPLIT: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
