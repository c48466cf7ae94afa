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
