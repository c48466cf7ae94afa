// RUN: tile-opt %s --convert-tile-to-scf | FileCheck %s

// The CPU runs each block as one thread: a barrier of its threads has
// nothing to wait for.
// CHECK-LABEL: func.func @barrier
// CHECK-NOT: tile.sync_threads
// CHECK-NOT: gpu.barrier
// CHECK: memref.load
func.func @barrier(%in: memref<128xf32>, %out: memref<128xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %v = memref.load %in[%c0] : memref<128xf32>
    tile.sync_threads
    memref.store %v, %out[%c0] : memref<128xf32>
  }
  return
}
