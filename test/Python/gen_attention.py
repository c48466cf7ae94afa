"""bench/kernels/flash_attention_d128.mlir and its split variant are
what bench/gen_attention.py generates today, and they compile for the GPU
suite's target: wgmma for both gemms, on the blocked layout of 256-byte
rows (mma.sync with wgmma-blocked=false) or on 64-column parts (128-byte
rows)."""
# RUN: %tile_python %tile_src/bench/gen_attention.py --dim 128 --stages 3 | tile-opt > %t.mlir
# RUN: grep -v '^//' %tile_src/bench/kernels/flash_attention_d128.mlir | diff - %t.mlir
# RUN: tile-opt %t.mlir --tile-to-nvvm="chip=sm_90a format=isa wgmma-blocked=false" | FileCheck %s
# CHECK-COUNT-2: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# RUN: tile-opt %t.mlir --tile-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=BLOCKED
# BLOCKED-COUNT-8: p, 1,  1, 0,  0;
# BLOCKED-COUNT-4: p, 1, 1, 1;
# BLOCKED-NOT: mma.sync
# RUN: %tile_python %tile_src/bench/gen_attention.py --dim 128 --split 64 | tile-opt > %t.split.mlir
# RUN: grep -v '^//' %tile_src/bench/kernels/flash_attention_d128_split.mlir | diff - %t.split.mlir
# RUN: tile-opt %t.split.mlir --tile-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=SPLIT
# The PTX is one escaped line: count the operand tails. Q K^T (two
# parts) from shared memory, 4 k steps each; P V (two parts) with P in
# registers and V MN-major (trans-b 1), 4 k steps each; no mma.sync.
# SPLIT-COUNT-8: p, 1,  1, 0,  0;
# SPLIT-COUNT-8: p, 1, 1, 1;
# SPLIT-NOT: mma.sync
