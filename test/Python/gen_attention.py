"""bench/kernels/flash_attention_d128.mlir is what bench/gen_attention.py
generates today, and it compiles for the GPU suite's target."""
# RUN: %tile_python %tile_src/bench/gen_attention.py --dim 128 | tile-opt > %t.mlir
# RUN: grep -v '^//' %tile_src/bench/kernels/flash_attention_d128.mlir | diff - %t.mlir
# RUN: tile-opt %t.mlir --tile-to-nvvm="chip=sm_90a format=isa" | FileCheck %s
# CHECK-COUNT-2: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
