// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=rocm chip=gfx942" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-to-rocdl="chip=gfx942 format=isa rocm-path=%rocm_path" | %python %S/../../Pipelines/Inputs/ptx_of.py | FileCheck %s --check-prefix=ISA
// RUN: tile-opt %s --split-input-file --tile-to-rocdl="chip=gfx1100 format=isa rocm-path=%rocm_path" | %python %S/../../Pipelines/Inputs/ptx_of.py | FileCheck %s --check-prefix=ISA11
// RUN: tile-opt %tile_examples/gemm_relu.mlir --tile-to-rocdl="chip=gfx942 format=isa rocm-path=%rocm_path" | %python %S/../../Pipelines/Inputs/ptx_of.py | FileCheck %s --check-prefix=GEMM
// RUN: tile-opt %tile_examples/gemm_relu.mlir --tile-to-rocdl="chip=gfx1100 format=isa rocm-path=%rocm_path" | %python %S/../../Pipelines/Inputs/ptx_of.py | FileCheck %s --check-prefix=GEMM11
// RUN: tile-opt %tile_examples/gemm_relu.mlir --tile-to-rocdl="chip=gfx1100 format=isa rocm-path=%rocm_path sched-strategy=default" | %python %S/../../Pipelines/Inputs/ptx_of.py | FileCheck %s --check-prefix=GEMM11-DEFAULT
// REQUIRES: rocm-device-libs

// A global-to-LDS copy on AMD GPUs: after the block's one run-time check
// (aligned vectors, the view at its buffer's base, under 2 GiB), each thread
// loads its vectors with bounds-checked buffer loads (zeros past the
// buffer's end, no fault) and zeroes the elements outside the view with a
// select: no branch per vector, so the loads issue back to back, each
// waited for only when its value is stored (s_waitcnt vmcnt(n) counting
// down). The generic copy is the fallback. An asynchronous copy (a
// pipeline's prefetch: the next tile.async_wait is a block barrier) has no
// barrier of its own. Compiled and ISA-checked here; no AMD GPU runs it.
// CHECK-LABEL: func.func @async_tile
// CHECK-NOT: gpu.barrier
// CHECK: scf.if
// CHECK: %[[LEFT:.*]] = arith.minsi
// CHECK: amdgpu.raw_buffer_load {{.*}} : memref<?x?xf16>, i32, i32 -> vector<8xf16>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xf16>
// CHECK: vector.store %{{.*}} : memref<64x32xf16, {{.*}}>, vector<8xf16>
// CHECK: amdgpu.raw_buffer_load {{.*}} -> vector<8xf16>
// CHECK: vector.store
// CHECK: } else {
// CHECK-NOT: amdgpu.raw_buffer_load
// CHECK: gpu.barrier
// ISA-LABEL: async_tile_kernel:
// ISA: buffer_load_dwordx4
// ISA-NOT: s_waitcnt vmcnt
// ISA: buffer_load_dwordx4
// ISA: s_waitcnt vmcnt(1)
// ISA: ds_write_b128
// ISA: s_waitcnt vmcnt(0)
// ISA: ds_write_b128
// ISA11-LABEL: async_tile_kernel:
// ISA11: buffer_load_b128
// ISA11-NOT: s_waitcnt vmcnt
// ISA11: buffer_load_b128
func.func @async_tile(%A: memref<?x?xf16>, %out: memref<64x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %row = arith.muli %bx, %c1 : index
    tile.copy %A[%row, %c0] to %s {async} : memref<?x?xf16> to memref<64x32xf16, #tile.mem<shared>>
    tile.async_commit
    tile.async_wait pending(0)
    tile.copy %s to %out[%c0, %c0] : memref<64x32xf16, #tile.mem<shared>> to memref<64x32xf16>
  }
  return
}

// -----

// A synchronous copy keeps the block barriers around it; a copy that
// converts its elements (f16 to f32) stays on the generic lowering.
// CHECK-LABEL: func.func @sync_and_converting
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-COUNT-4: amdgpu.raw_buffer_load {{.*}} -> vector<4xf32>
// CHECK-NOT: amdgpu.raw_buffer_load
// CHECK: return
func.func @sync_and_converting(%A: memref<?x?xf32>, %H: memref<?x?xf16>, %out: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) -> (%bx) {
    %s = tile.alloc_shared : memref<32x32xf32, #tile.mem<shared>>
    %t = tile.alloc_shared : memref<32x32xf32, #tile.mem<shared>>
    tile.copy %A[%c0, %c0] to %s : memref<?x?xf32> to memref<32x32xf32, #tile.mem<shared>>
    tile.copy %H[%c0, %c0] to %t : memref<?x?xf16> to memref<32x32xf32, #tile.mem<shared>>
    tile.copy %s to %out[%c0, %c0] : memref<32x32xf32, #tile.mem<shared>> to memref<32x32xf32>
  }
  return
}

// The example GEMM (128x128x32 blocks, 3 stages): each thread's four A and
// four B vectors of a stage load back to back; no scratch.
// GEMM: buffer_load_dwordx4
// GEMM-NOT: s_waitcnt vmcnt
// GEMM: buffer_load_dwordx4
// GEMM-NOT: s_waitcnt vmcnt
// GEMM: buffer_load_dwordx4
// GEMM-NOT: s_waitcnt vmcnt
// GEMM: buffer_load_dwordx4
// GEMM: v_mfma_f32_16x16x16_f16
// GEMM: .amdhsa_private_segment_fixed_size 0
// On gfx1100 (wave32) each lane holds 128 accumulators; the prefetch
// issued before the compute (the WMMAs then stay with their operand loads)
// and the kernel scheduled for fewer registers (sched-strategy=auto:
// iterative-minreg for kernels with matrix cores on wave32) leave it
// without scratch; LLVM's default scheduler spills.
// GEMM11: v_wmma_f32_16x16x16_f16
// GEMM11: .amdhsa_private_segment_fixed_size 0
// GEMM11: .vgpr_spill_count: 0
// GEMM11-DEFAULT: v_wmma_f32_16x16x16_f16
// GEMM11-DEFAULT-NOT: .amdhsa_private_segment_fixed_size 0
// GEMM11-DEFAULT: .vgpr_spill_count: {{[1-9]}}

// -----

// A region over non-trailing dimensions (BSHD `Q[b, s0:s1, h, :]`): the
// buffer load takes the region's four indices (the tile coordinates added
// along dimensions 1 and 3 only), the row bound is the last dimension's.
// CHECK-LABEL: func.func @bshd_region
// CHECK: gpu.launch blocks(%[[BX:[a-z0-9]+]], %{{.*}}, %{{.*}}) in
// CHECK: memref.dim %{{.*}}, %c3{{.*}} : memref<?x?x?x?xf16>
// CHECK: %[[B:.*]] = arith.index_cast %[[BX]] : index to i32
// CHECK: %[[S:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[H:.*]] = arith.index_cast %c1{{.*}} : index to i32
// CHECK: %[[D:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: amdgpu.raw_buffer_load {{.*}}[%[[B]], %[[S]], %[[H]], %[[D]]] : memref<?x?x?x?xf16>, i32, i32, i32, i32 -> vector<8xf16>
// ISA-LABEL: bshd_region_kernel:
// ISA: buffer_load_dwordx4
// ISA11-LABEL: bshd_region_kernel:
// ISA11: buffer_load_b128
func.func @bshd_region(%Q: memref<?x?x?x?xf16>, %out: memref<64x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %row = arith.muli %bx, %c64 : index
    tile.copy %Q[%bx, %row : 64, %c1, %c0 : 32] to %s : memref<?x?x?x?xf16> to memref<64x32xf16, #tile.mem<shared>>
    tile.copy %s to %out : memref<64x32xf16, #tile.mem<shared>> to memref<64x32xf16>
  }
  return
}
