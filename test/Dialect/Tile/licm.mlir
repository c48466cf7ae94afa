// RUN: tile-opt %s --loop-invariant-code-motion | FileCheck %s

// Loop-invariant pure code moves out of tile.pipelined and tile.parallel
// (both are LoopLikeOpInterface); tile ops with memory effects stay.
// CHECK-LABEL: func.func @licm
// CHECK: tile.kernel
// CHECK: arith.muli
// CHECK: tile.pipelined
// CHECK-NEXT: tile.copy
// CHECK: tile.parallel
// CHECK-NEXT: memref.load
func.func @licm(%n: index, %A: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%n) threads(32) -> (%bx) {
    %f = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 {
      %base = arith.muli %bx, %n : index
      tile.copy %A[%base] to %f : memref<?xf32> to memref<32xf32, #tile.mem<fragment>>
    }
    tile.parallel (%i) in (32) {
      %two = arith.constant 2.0 : f32
      %sq = arith.mulf %two, %two : f32
      %v = memref.load %f[%i] : memref<32xf32, #tile.mem<fragment>>
      %w = arith.addf %v, %sq : f32
      memref.store %w, %f[%i] : memref<32xf32, #tile.mem<fragment>>
    }
    tile.copy %f to %A[%bx] : memref<32xf32, #tile.mem<fragment>> to memref<?xf32>
  }
  return
}
