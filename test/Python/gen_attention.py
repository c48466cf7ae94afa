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
# The overlapped kernel (128 x 128 blocks, two warpgroups): per iteration
# Q K^T (8 k steps, n128) and P V (8 k steps, P in registers, V MN-major)
# are both issued with no wait and no block barrier between them, then the
# next stage's copies; the wait for Q K^T leaves P V in flight while the
# softmax runs. K and V (128 x 128, blocked) load as two 64-column TMA
# boxes each (panels, the default). (The PTX lists the body's tail, from
# the copies' issue to the last wait, before its head.) This is the kernel
# without a producer warpgroup (warp-specialize=false); the default, with
# the producer and ping-pong, is tile-to-nvvm-warp-specialize.test's.
# RUN: %tile_python %tile_src/bench/gen_attention.py --dim 128 --block-m 128 --block-n 128 --stages 2 --threads 256 --overlap --stage-output | tile-opt > %t.overlap.mlir
# RUN: grep -v '^//' %tile_src/bench/kernels/flash_attention_d128_overlap.mlir | diff - %t.overlap.mlir
# The causal kernel with its blocks longest first (each head's query tiles
# last first) computes bit for bit what the committed overlapped kernel
# computes (CPU lowering).
# RUN: %tile_python %tile_src/bench/gen_attention.py --dim 128 --block-m 128 --block-n 128 --stages 2 --threads 256 --overlap --stage-output --longest-first | tile-opt > %t.lpt.mlir
# RUN: grep -v '^//' %tile_src/bench/kernels/flash_attention_d128_overlap_lpt.mlir | diff - %t.lpt.mlir
# RUN: tile-run %t.lpt.mlir --entry=flash_attention_causal --reference=%tile_src/bench/kernels/flash_attention_d128_overlap.mlir@flash_attention_causal --outputs=3 --rtol=0 --atol=0 --repeat=0 --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 | FileCheck %s --check-prefix=LPT
# LPT: PASSED
# The committed kernel peels both ends of its loop (S_0 and its softmax
# before it: no P V of a zero P; K_0 and the last V take turns in one tile,
# so shared memory stays at seven 32 KiB tiles): bit for bit what the loop
# with only its last P V peeled computes (CPU lowering).
# RUN: %tile_python %tile_src/bench/gen_attention.py --dim 128 --block-m 128 --block-n 128 --stages 2 --threads 256 --overlap --stage-output --peel last | tile-opt > %t.unpeeled.mlir
# RUN: tile-run %t.overlap.mlir --entry=flash_attention --reference=%t.unpeeled.mlir@flash_attention --outputs=3 --rtol=0 --atol=0 --repeat=0 --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 | FileCheck %s --check-prefix=LPT
# RUN: tile-run %t.overlap.mlir --entry=flash_attention_causal --reference=%t.unpeeled.mlir@flash_attention_causal --outputs=3 --rtol=0 --atol=0 --repeat=0 --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 --arg=1x2x300x128 | FileCheck %s --check-prefix=LPT
# The lazy-rescale variant (FlashAttention-4's conditional rescale: a row's
# maximum and O move only when the maximum grows by more than 2^8): on
# inputs whose maxima grow by more than that per key tile in half of the
# rows, the committed kernel's output up to rounding (CPU lowering; a
# kernel that never rescaled differs by 6e-2 there); on the GPU each
# thread's two rows of O are rescaled behind one branch each.
# RUN: %tile_python %tile_src/bench/gen_attention.py --dim 128 --block-m 128 --block-n 128 --stages 2 --threads 256 --overlap --stage-output --lazy-rescale | tile-opt > %t.lazy.mlir
# RUN: %tile_python %S/Inputs/growing_scores.py %t.in
# RUN: tile-run %t.lazy.mlir --entry=flash_attention --reference=%t.overlap.mlir@flash_attention --outputs=3 --rtol=2e-3 --atol=2e-3 --repeat=0 --arg=@%t.in/q.npy --arg=@%t.in/k.npy --arg=@%t.in/v.npy --arg=1x2x300x128 | FileCheck %s --check-prefix=LPT
# RUN: tile-run %t.lazy.mlir --entry=flash_attention_causal --reference=%t.overlap.mlir@flash_attention_causal --outputs=3 --rtol=2e-3 --atol=2e-3 --repeat=0 --arg=@%t.in/q.npy --arg=@%t.in/k.npy --arg=@%t.in/v.npy --arg=1x2x300x128 | FileCheck %s --check-prefix=LPT
# RUN: tile-opt %t.lazy.mlir --tile-to-nvvm="chip=sm_90a format=isa" | %python %tile_src/test/Pipelines/Inputs/ptx_of.py 0 | FileCheck %s --check-prefix=LAZY
# LAZY: setp.geu.f32 [[P:%p[0-9]+]], [[S:%r[0-9]+]], 0f3F800000;
# LAZY-NEXT: @[[P]] bra
# LAZY-COUNT-32: mul.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, [[S]];
# LAZY-NEXT: L__BB
# LAZY-NEXT: setp.geu.f32 [[P2:%p[0-9]+]], [[S2:%r[0-9]+]], 0f3F800000;
# LAZY-NEXT: @[[P2]] bra
# LAZY-COUNT-32: mul.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, [[S2]];
# RUN: tile-opt %t.overlap.mlir --tile-to-nvvm="chip=sm_90a format=isa warp-specialize=false" | %python %tile_src/test/Pipelines/Inputs/ptx_of.py 0 > %t.overlap.ptx
# RUN: FileCheck %s --check-prefix=OVERLAP < %t.overlap.ptx
# OVERLAP: wgmma.wait_group.sync.aligned 1;
# OVERLAP-NOT: bar.sync
# OVERLAP: wgmma.wait_group.sync.aligned 0;
# OVERLAP: mbarrier.try_wait.parity
# OVERLAP: wgmma.fence.sync.aligned;
# OVERLAP-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}} p, 1,  1, 0,  0;
# OVERLAP: wgmma.commit_group.sync.aligned;
# OVERLAP-NOT: {{wgmma.wait_group|bar.sync}}
# OVERLAP-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}} p, 1, 1, 1;
# OVERLAP: wgmma.commit_group.sync.aligned;
# OVERLAP-NOT: wgmma.wait_group
# OVERLAP-COUNT-2: cp.async.bulk.tensor.4d
# OVERLAP-NOT: cp.async.cg
