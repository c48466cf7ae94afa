// tile-plan-pipelines refuses stages that cannot fit in a block's shared
// memory before it materializes any of them (a num_stages in the hundreds of
// thousands took minutes and tens of GB before the later diagnostic); the
// size of the staged tiles is computed without overflow.
// RUN: not tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_80" --tile-plan-pipelines 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not tile-opt %s --split-input-file --tile-attach-target="kind=rocm chip=gfx942" --tile-plan-pipelines 2>&1 | FileCheck %s --check-prefix=GFX942
// Without a target there is no limit to check, only the overflow.
// RUN: not tile-opt %s --split-input-file --tile-plan-pipelines 2>&1 >/dev/null | FileCheck %s --check-prefix=NOTARGET

// SM80: num_stages = 100000: the staged shared tiles need 819200000 bytes of shared memory, more than the 166912 bytes a block may use on sm_80; use fewer stages or smaller tiles
// GFX942: num_stages = 100000: the staged shared tiles need 819200000 bytes of shared memory, more than the 65536 bytes a block may use on gfx942
// NOTARGET-NOT: num_stages = 100000
func.func @many_stages(%A: memref<?x?xf16>, %B: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.clear %c : memref<64x64xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %c4 step %c1 num_stages = 100000 {
      tile.copy %A[%c0, %k] to %a : memref<?x?xf16> to memref<64x32xf16, #tile.mem<shared>>
      tile.copy %A[%k, %c0] to %b : memref<?x?xf16> to memref<32x64xf16, #tile.mem<shared>>
      tile.gemm %a, %b, %c : memref<64x32xf16, #tile.mem<shared>>, memref<32x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
    }
    tile.copy %c to %B[%c0, %c0] : memref<64x64xf32, #tile.mem<fragment>> to memref<?x?xf16>
  }
  return
}

// -----

// SM80: num_stages = 9223372036854775807: the staged shared tiles need more than 2^63 bytes of shared memory
// GFX942: num_stages = 9223372036854775807: the staged shared tiles need more than 2^63 bytes of shared memory
// NOTARGET: num_stages = 9223372036854775807: the staged shared tiles need more than 2^63 bytes of shared memory
func.func @max_stages(%A: memref<?x?xf16>, %B: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x32xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %c4 step %c1 num_stages = 9223372036854775807 {
      tile.copy %A[%c0, %k] to %a : memref<?x?xf16> to memref<64x32xf16, #tile.mem<shared>>
      tile.copy %a to %c : memref<64x32xf16, #tile.mem<shared>> to memref<64x32xf32, #tile.mem<fragment>>
    }
    tile.copy %c to %B[%c0, %c0] : memref<64x32xf32, #tile.mem<fragment>> to memref<?x?xf16>
  }
  return
}
