// RUN: tile-opt %s --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-instructions="wgmma=true" --tile-infer-layout --tile-select-register-fragments --convert-tile-to-gpu | FileCheck %s

// A turn of wgmma gemms in a loop whose body also writes another shared
// tile synchronously (the probabilities a second gemm reads, as MLA decode
// stages them): the gemms' barriers concern only the tiles they read, which
// nothing in the loop writes synchronously, so the turn holds no block
// barrier (the warpgroup waiting for its turn would never reach it: the
// block deadlocked). The copy into %p keeps its own barriers, outside.
// CHECK-LABEL: func.func @turns
// CHECK: scf.for
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %{{.*}}
// CHECK-NEXT: gpu.barrier
func.func @turns(%n: index, %X: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %p = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
    tile.copy %X[%c0, %c0] to %a : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    tile.copy %X[%c0, %c0] to %b : memref<64x64xf16> to memref<64x64xf16, #tile.mem<shared>>
    scf.for %i = %c0 to %n step %c1 {
      tile.take_turns {
        tile.gemm %a, %b, %c {transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      }
      tile.copy %c to %p : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<shared>>
    }
    tile.copy %p to %X[%c0, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<64x64xf16>
  }
  return
}

