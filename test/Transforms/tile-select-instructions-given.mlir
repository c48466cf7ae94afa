// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions | FileCheck %s
// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions --tile-infer-layout --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory | FileCheck %s --check-prefix=LOWERED

// Instructions given on the gemms (by the user, or an earlier selection)
// drive every later stage: a gemm that fits wgmma but says mma_sync runs
// on mma.sync (its policy stays square), one that says simt on the block's
// threads; the choice is not made again.
// CHECK-LABEL: func.func @given
// CHECK: tile.gemm {{.*}}instruction = #tile.gemm_instruction<mma_sync m16n8k16>, transpose_b}
// CHECK: tile.gemm {{.*}}instruction = #tile.gemm_instruction<simt>, transpose_b}
// CHECK: tile.gemm {{.*}}instruction = #tile.gemm_instruction<wgmma m64n128k16>, transpose_b}
// LOWERED-LABEL: func.func @given
// LOWERED-NOT: wgmma.mma_async
// LOWERED: nvgpu.mma.sync
// LOWERED-NOT: wgmma.mma_async
// LOWERED: arith.mulf
// LOWERED-NOT: nvgpu.mma.sync
// LOWERED: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>
func.func @given(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {transpose_b, instruction = #tile.gemm_instruction<mma_sync m16n8k16>} : memref<64x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
    %d = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %d {transpose_b, instruction = #tile.gemm_instruction<simt>} : memref<64x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
    %e = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %e {transpose_b} : memref<64x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
  }
  return
}


// A wgmma given as `blocked` takes shared rows wider than 128 bytes (here
// 256-byte rows of A and B): the layout pass lays them out blocked, and
// the lowering reads them through descriptors.
// CHECK-LABEL: func.func @given_blocked
// CHECK: tile.gemm {{.*}}instruction = #tile.gemm_instruction<wgmma m64n64k16, blocked>
// LOWERED-LABEL: func.func @given_blocked
// LOWERED: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
func.func @given_blocked(%n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x128xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x128xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %c {transpose_b, instruction = #tile.gemm_instruction<wgmma m64n64k16, blocked>} : memref<64x128xf16, #tile.mem<shared>>, memref<64x128xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
  }
  return
}
