// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions="wgmma-blocked wgmma-panels" --tile-infer-layout | FileCheck %s --check-prefix=STAGE
// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-infer-layout | FileCheck %s --check-prefix=GIVEN
// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_80" --tile-infer-layout | FileCheck %s --check-prefix=STAGE80
// RUN: tile-opt %s --tile-attach-target="kind=cpu chip=host" --tile-infer-layout | FileCheck %s --check-prefix=STAGECPU

// A shared tile without a layout that only stages a fragment on its way to
// global memory (a staged epilogue) takes the tensor-core operand swizzle on
// NVIDIA targets from sm_80: the 128-byte swizzle for 128-byte rows. Wider
// 16-bit rows are laid out as the instruction of the gemm whose
// accumulators the fragment holds (the fragment's layout class: here the
// f16 copy of C) says: with `blocked, panels` (tile-select-instructions'
// wgmma-blocked and wgmma-panels, the sm_90a pipelines) the blocked layout
// in 64-column panels, which TMA stores read. A fragment of no gemm's
// accumulators stages through the row-wise swizzle. A tile that anything
// else touches (here a tile.parallel), or one with a layout of its own,
// keeps what it has; so does every tile on the CPU.
// STAGE-LABEL: func.func @staged_epilogue
// STAGE: tile.alloc_shared {layout = #tile.swizzle<3, 3, 3>} : memref<64x64xf16
// STAGE: tile.alloc_shared {layout = #tile.swizzle<3, 3, 3, blocked = true, panels = true>} : memref<64x128xf16
// STAGE: tile.alloc_shared {layout = #tile.swizzle<3, 3, 4>} : memref<64x128xf16
// STAGE: tile.alloc_shared : memref<64x64xf16
// STAGE: tile.alloc_shared {layout = #tile.swizzle<2, 3, 3>} : memref<64x64xf16
// STAGE: tile.gemm {{.*}}instruction = #tile.gemm_instruction<wgmma m64n128k16, blocked, panels>
// The instruction as given drives the layout alone (no selection, no
// option): `blocked` without `panels` on the gemm below; without a
// selection the first function's gemm has no `blocked`.
// GIVEN-LABEL: func.func @staged_epilogue
// GIVEN: tile.alloc_shared {layout = #tile.swizzle<3, 3, 4>} : memref<64x128xf16
// GIVEN-LABEL: func.func @given_instruction
// GIVEN: tile.alloc_shared {layout = #tile.swizzle<3, 3, 3, blocked = true>} : memref<64x128xf16
// STAGE80-LABEL: func.func @staged_epilogue
// STAGE80: tile.alloc_shared {layout = #tile.swizzle<3, 3, 3>} : memref<64x64xf16
// STAGE80-NOT: blocked
// STAGE80: return
// STAGECPU-LABEL: func.func @staged_epilogue
// STAGECPU-NOT: swizzle<3
// STAGECPU: return
func.func @staged_epilogue(%C: memref<?x?xf16>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f16
    %f = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
    %acc = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    %g = tile.alloc_fragment : memref<64x128xf16, #tile.mem<fragment>>
    %h = tile.alloc_fragment : memref<64x128xf16, #tile.mem<fragment>>
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
    %s = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %w = tile.alloc_shared : memref<64x128xf16, #tile.mem<shared>>
    %x = tile.alloc_shared : memref<64x128xf16, #tile.mem<shared>>
    %t = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %u = tile.alloc_shared {layout = #tile.swizzle<2, 3, 3>} : memref<64x64xf16, #tile.mem<shared>>
    tile.fill %f, %one : memref<64x64xf16, #tile.mem<fragment>>
    tile.fill %h, %one : memref<64x128xf16, #tile.mem<fragment>>
    tile.clear %acc : memref<64x128xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %acc {transpose_b} : memref<64x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
    tile.copy %acc to %g : memref<64x128xf32, #tile.mem<fragment>> to memref<64x128xf16, #tile.mem<fragment>>
    tile.copy %f to %s : memref<64x64xf16, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %s to %C[%c0, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
    tile.copy %g to %w : memref<64x128xf16, #tile.mem<fragment>> to memref<64x128xf16, #tile.mem<shared>>
    tile.copy %w to %C[%c0, %c0] : memref<64x128xf16, #tile.mem<shared>> to memref<?x?xf16>
    tile.copy %h to %x : memref<64x128xf16, #tile.mem<fragment>> to memref<64x128xf16, #tile.mem<shared>>
    tile.copy %x to %C[%c0, %c0] : memref<64x128xf16, #tile.mem<shared>> to memref<?x?xf16>
    tile.copy %f to %t : memref<64x64xf16, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<shared>>
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %t[%i, %j] : memref<64x64xf16, #tile.mem<shared>>
      %y = arith.addf %v, %one : f16
      memref.store %y, %t[%i, %j] : memref<64x64xf16, #tile.mem<shared>>
    }
    tile.copy %t to %C[%c0, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
    tile.copy %f to %u : memref<64x64xf16, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %u to %C[%c0, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?xf16>
  }
  return
}

func.func @given_instruction(%C: memref<?x?xf16>, %n: index) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %c0 = arith.constant 0 : index
    %acc = tile.alloc_fragment : memref<64x128xf32, #tile.mem<fragment>>
    %g = tile.alloc_fragment : memref<64x128xf16, #tile.mem<fragment>>
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<128x32xf16, #tile.mem<shared>>
    %w = tile.alloc_shared : memref<64x128xf16, #tile.mem<shared>>
    tile.clear %acc : memref<64x128xf32, #tile.mem<fragment>>
    tile.gemm %a, %b, %acc {transpose_b, instruction = #tile.gemm_instruction<wgmma m64n128k16, blocked>} : memref<64x32xf16, #tile.mem<shared>>, memref<128x32xf16, #tile.mem<shared>> -> memref<64x128xf32, #tile.mem<fragment>>
    tile.copy %acc to %g : memref<64x128xf32, #tile.mem<fragment>> to memref<64x128xf16, #tile.mem<fragment>>
    tile.copy %g to %w : memref<64x128xf16, #tile.mem<fragment>> to memref<64x128xf16, #tile.mem<shared>>
    tile.copy %w to %C[%c0, %c0] : memref<64x128xf16, #tile.mem<shared>> to memref<?x?xf16>
  }
  return
}
