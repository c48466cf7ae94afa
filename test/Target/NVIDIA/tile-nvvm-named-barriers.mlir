// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-nvvm-named-barriers | FileCheck %s

// The two sides of a warp-specialized kernel (tile.thread_range =
// [first, count, registers]): a block barrier inside one, at any depth,
// synchronizes that side's threads, on its own hardware barrier (1 for the
// side from thread 0, 2 for the other); the block's own barriers stay.
// CHECK-LABEL: func.func @sides
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: %[[ID2:.*]] = arith.constant 2 : i32
// CHECK: %[[N128:.*]] = arith.constant 128 : i32
// CHECK: nvvm.barrier id = %[[ID2]] number_of_threads = %[[N128]]
// CHECK: scf.for
// CHECK: %[[ID2B:.*]] = arith.constant 2 : i32
// CHECK: %[[N128B:.*]] = arith.constant 128 : i32
// CHECK: nvvm.barrier id = %[[ID2B]] number_of_threads = %[[N128B]]
// CHECK: } {tile.thread_range = array<i64: 256, 128, 24>}
// CHECK: scf.if
// CHECK: %[[ID1:.*]] = arith.constant 1 : i32
// CHECK: %[[N256:.*]] = arith.constant 256 : i32
// CHECK: nvvm.barrier id = %[[ID1]] number_of_threads = %[[N256]]
// CHECK: } {tile.thread_range = array<i64: 0, 256, 240>}
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: return
func.func @sides(%p: i1, %c: i1, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.barrier
    scf.if %p {
      gpu.barrier
      scf.for %i = %c0 to %n step %c1 {
        gpu.barrier
      }
    } {tile.thread_range = array<i64: 256, 128, 24>}
    scf.if %c {
      gpu.barrier
    } {tile.thread_range = array<i64: 0, 256, 240>}
    gpu.barrier
    gpu.terminator
  }
  return
}

// -----

// A thread range that a hardware barrier cannot count.
func.func @partial_warp(%p: i1) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @below {{'tile.thread_range' must be [first, count] or [first, count, registers] with a count of whole warps}}
    scf.if %p {
      gpu.barrier
    } {tile.thread_range = array<i64: 0, 100>}
    gpu.terminator
  }
  return
}
