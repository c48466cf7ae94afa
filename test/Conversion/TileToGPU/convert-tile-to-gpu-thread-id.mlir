// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-select-register-fragments --convert-tile-to-gpu --tile-place-shared-memory -verify-diagnostics | FileCheck %s

// tile.thread_id is the launch's thread index along its dimension; code
// under a condition on it runs on the threads that satisfy it.
// CHECK-LABEL: func.func @thread_id
// CHECK: gpu.launch blocks({{.*}}) threads(%[[TX:[[:alnum:]_]+]], %[[TY:[[:alnum:]_]+]], %{{.*}}) in
// CHECK:   memref.store %{{.*}}, %{{.*}}[%[[TY]], %[[TX]]] : memref<4x32xf32>
// CHECK:   %[[ZERO:.*]] = arith.cmpi eq, %[[TX]], %{{.*}} : index
// CHECK:   scf.if %[[ZERO]] {
// CHECK:     memref.store
func.func @thread_id(%out: memref<4x32xf32>, %flag: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%c0) threads(32, 4) -> (%bx) {
    %tx = tile.thread_id 0
    %ty = tile.thread_id 1
    %v = arith.index_cast %tx : index to i32
    %f = arith.sitofp %v : i32 to f32
    memref.store %f, %out[%ty, %tx] : memref<4x32xf32>
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {
      memref.store %one, %flag[%c0] : memref<1xf32>
    }
  }
  return
}

// -----

// Tile ops synchronize the block: none may depend on the thread index
// through control flow.
func.func @divergent_copy(%in: memref<128xf32>, %out: memref<128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<128xf32, #tile.mem<shared>>
    %tx = tile.thread_id 0
    %first = arith.cmpi eq, %tx, %c0 : index
    // expected-note @+1 {{the thread-dependent control flow}}
    scf.if %first {
      // expected-error @+1 {{'tile.copy' op synchronizes the block, but runs under control flow that depends on the thread index: every thread must reach it}}
      tile.copy %in[%c0] to %s : memref<128xf32> to memref<128xf32, #tile.mem<shared>>
    }
    tile.copy %s to %out[%c0] : memref<128xf32, #tile.mem<shared>> to memref<128xf32>
  }
  return
}
