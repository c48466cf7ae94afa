// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory -verify-diagnostics | FileCheck %s

// tile.sync_threads is a barrier of the block between one thread's write
// of a shared element and another thread's read of it (per-thread code
// that reverses a row through shared memory).
// CHECK-LABEL: func.func @reverse
// CHECK: gpu.launch
// CHECK:   memref.store %{{.*}}, %[[S:.*]][%{{.*}}] : memref<128xf32, {{.*}}>
// CHECK-NEXT: gpu.barrier
// CHECK:   memref.load %[[S]][%{{.*}}]
func.func @reverse(%in: memref<128xf32>, %out: memref<128xf32>) {
  %c1 = arith.constant 1 : index
  %c127 = arith.constant 127 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<128xf32, #tile.mem<shared>>
    %tx = tile.thread_id 0
    %v = memref.load %in[%tx] : memref<128xf32>
    memref.store %v, %s[%tx] : memref<128xf32, #tile.mem<shared>>
    tile.sync_threads
    %r = arith.subi %c127, %tx : index
    %w = memref.load %s[%r] : memref<128xf32, #tile.mem<shared>>
    memref.store %w, %out[%tx] : memref<128xf32>
  }
  return
}

// -----

// Under control flow on the thread index that is not a range of whole
// warps, some threads would never arrive: an error at the op.
func.func @divergent(%out: memref<128xf32>) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %tx = tile.thread_id 0
    %odd = arith.remui %tx, %c3 : index
    %c0 = arith.constant 0 : index
    %some = arith.cmpi eq, %odd, %c0 : index
    // expected-note @+1 {{the thread-dependent control flow}}
    scf.if %some {
      // expected-error @+1 {{synchronizes the threads that run it, but runs under control flow that depends on the thread index}}
      tile.sync_threads
    }
  }
  return
}

// -----

// TileLang's named barrier of the threads of an `if tx < 256:` range, in a
// loop of the same trip count on every thread (its bounds do not depend on
// the thread index, though its body does): the range's barrier.
// CHECK-LABEL: func.func @range_barrier_in_loop
// CHECK: scf.if
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: } {tile.thread_range = array<i64: 0, 256>}
func.func @range_barrier_in_loop(%out: memref<512xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%c1) threads(512) -> (%bx) {
    %tx = tile.thread_id 0
    %low = arith.cmpi slt, %tx, %c256 : index
    scf.if %low {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      scf.for %i = %c0 to %c8 step %c1 {
        memref.store %one, %out[%tx] : memref<512xf32>
        tile.sync_threads threads(256)
      }
    }
  }
  return
}

// -----

// A named barrier's thread count is the range's.
func.func @wrong_count(%out: memref<512xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  tile.kernel grid(%c1) threads(512) -> (%bx) {
    %tx = tile.thread_id 0
    %low = arith.cmpi slt, %tx, %c256 : index
    scf.if %low {
      // expected-error @+1 {{synchronizes 128 threads, but the range of threads it is in has 256}}
      tile.sync_threads threads(128)
    }
  }
  return
}

// -----

// A loop whose trip count depends on the thread index cannot hold one.
func.func @divergent_loop(%out: memref<128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %tx = tile.thread_id 0
    // expected-note @+1 {{the thread-dependent control flow}}
    scf.for %i = %c0 to %tx step %c1 {
      // expected-error @+1 {{synchronizes the threads that run it}}
      tile.sync_threads
    }
  }
  return
}
