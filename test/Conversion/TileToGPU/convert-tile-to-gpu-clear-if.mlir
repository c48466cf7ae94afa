// RUN: tile-opt %s --tile-to-nvvm="chip=sm_90a format=isa" | %python %tile_src/test/Pipelines/Inputs/ptx_of.py 0 | FileCheck %s --check-prefix=PTX
// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_80" --tile-infer-layout --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s --check-prefix=MMA
// RUN: tile-opt %s --tile-attach-target="kind=rocm chip=gfx942" --tile-infer-layout --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s --check-prefix=MFMA
// RUN: tile-opt %s --tile-to-cpu | FileCheck %s --check-prefix=CPU

// tile.gemm clear_if(%cond): C is overwritten where %cond holds, added to
// elsewhere. On wgmma the condition is the first k step's scale-d, a
// predicate at run time (inline assembly, as MLIR's NVVM op takes scale-d as a
// constant); the later k steps accumulate. The other lowerings fill C with
// zeros under the condition first (mma.sync, MFMA, the CPU), then
// accumulate.
func.func @tn(%A: memref<64x64xf16>, %B: memref<128x64xf16>, %C: memref<64x128xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    %c0 = arith.constant 0 : index
    tile.copy %A[%c0, %c0] to %a : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %B[%c0, %c0] to %b : memref<128x64xf16> to memref<128x64xf16, #tile.mem<shared>>
    tile.copy %C[%c0, %c0] to %c : memref<64x128xf32> to memref<64x128xf32, #tile.mem<fragment>>
    %fresh = arith.cmpi eq, %n, %c0 : index
    tile.gemm %a, %b, %c clear_if(%fresh) {transpose_b, policy = #tile.policy<full_row>} : memref<64x64xf16, #tile.mem<shared>>, memref<128x64xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
    tile.copy %c to %C[%c0, %c0] : memref<64x128xf32, #tile.mem<fragment>> to memref<64x128xf32>
  }
  return
}
// PTX: .entry tn_kernel(
// PTX: wgmma.fence.sync.aligned;
// PTX: setp.eq.u32 p, %r{{[0-9]+}}, 0;
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 0;
// PTX-COUNT-3: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 0;
// PTX: wgmma.commit_group.sync.aligned;
// PTX-NOT: setp.eq.u32 p

// MMA-LABEL: func.func @tn
// MMA: %[[FRESH:.*]] = arith.cmpi eq, %arg3, %{{.*}} : index
// MMA-NEXT: scf.if %[[FRESH]] {
// MMA-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// MMA: memref.store %[[ZERO]], %alloca[%{{.*}}] : memref<64xf32>
// MMA: }
// MMA: nvgpu.mma.sync
// MMA-NOT: clear_if

// MFMA-LABEL: func.func @tn
// MFMA: %[[FRESH:.*]] = arith.cmpi eq, %arg3, %{{.*}} : index
// MFMA-NEXT: scf.if %[[FRESH]] {
// MFMA-NEXT: arith.constant 0.000000e+00 : f32
// MFMA: amdgpu.mfma
// MFMA-NOT: clear_if

// CPU-LABEL: llvm.func @tn
// CPU-NOT: clear_if
