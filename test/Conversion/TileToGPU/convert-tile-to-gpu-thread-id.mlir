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

// Tile ops under a range of whole warps run on those threads: the branch
// gets the range, and the copy inside is spread over its 128 threads (the
// last of a thread's 8 elements of the unaligned path is its index + 896).
// CHECK-LABEL: func.func @narrowed_copy
// CHECK: scf.if %{{.*}} {
// CHECK:   arith.addi %{{.*}}, %c896
// CHECK: } {tile.thread_range = array<i64: 0, 128>}
func.func @narrowed_copy(%in: memref<1024xf32>, %out: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %s = tile.alloc_shared : memref<1024xf32, #tile.mem<shared>>
    %tx = tile.thread_id 0
    %low = arith.cmpi slt, %tx, %c128 : index
    scf.if %low {
      tile.copy %in[%c0] to %s : memref<1024xf32> to memref<1024xf32, #tile.mem<shared>>
    }
    tile.copy %s to %out[%c0] : memref<1024xf32, #tile.mem<shared>> to memref<1024xf32>
  }
  return
}

// -----

// Both branches of a range of whole warps hold tile ops (TileLang's `if tx <
// 128: ... else: ...`): the else moves into an if on the complementary
// comparison, and each branch runs on its own range of 128 threads.
// CHECK-LABEL: func.func @split_branches
// CHECK: scf.if %{{.*}} {
// CHECK:   arith.addi %{{.*}}, %c896
// CHECK: } {tile.thread_range = array<i64: 0, 128>}
// CHECK: scf.if %{{.*}} {
// CHECK:   arith.addi %{{.*}}, %c896
// CHECK: } {tile.thread_range = array<i64: 128, 128>}
func.func @split_branches(%in: memref<1024xf32>, %out: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %s = tile.alloc_shared : memref<1024xf32, #tile.mem<shared>>
    %t = tile.alloc_shared : memref<1024xf32, #tile.mem<shared>>
    %tx = tile.thread_id 0
    %low = arith.cmpi slt, %tx, %c128 : index
    scf.if %low {
      tile.copy %in[%c0] to %s : memref<1024xf32> to memref<1024xf32, #tile.mem<shared>>
    } else {
      tile.copy %in[%c0] to %t : memref<1024xf32> to memref<1024xf32, #tile.mem<shared>>
    }
    tile.copy %s to %out[%c0] : memref<1024xf32, #tile.mem<shared>> to memref<1024xf32>
  }
  return
}

// -----

// A branch on a value every thread computes alike, inside a range of whole
// warps (TileLang's `if tid < 128: if n != 0: T.copy(...)`): the range's
// threads take it together, so the copy inside runs on the range's 128
// threads, as directly under the range.
// CHECK-LABEL: func.func @uniform_branch_in_a_range
// CHECK: scf.if %{{.*}} {
// CHECK:   scf.if %{{.*}} {
// CHECK:     arith.addi %{{.*}}, %c896
// CHECK:   }
// CHECK: } {tile.thread_range = array<i64: 0, 128>}
func.func @uniform_branch_in_a_range(%in: memref<1024xf32>, %out: memref<1024xf32>, %n: memref<1xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0 : i32
  tile.kernel grid(%c1) threads(256) -> (%bx) {
    %s = tile.alloc_shared : memref<1024xf32, #tile.mem<shared>>
    %count = memref.load %n[%c0] : memref<1xi32>
    %tx = tile.thread_id 0
    %low = arith.cmpi slt, %tx, %c128 : index
    scf.if %low {
      %any = arith.cmpi ne, %count, %zero : i32
      scf.if %any {
        tile.copy %in[%c0] to %s : memref<1024xf32> to memref<1024xf32, #tile.mem<shared>>
      }
    }
    tile.copy %s to %out[%c0] : memref<1024xf32, #tile.mem<shared>> to memref<1024xf32>
  }
  return
}

// -----

// A uniform branch does not make a divergent one around it acceptable: the
// error names the divergent branch.
func.func @uniform_branch_in_a_divergent_one(%in: memref<128xf32>, %out: memref<128xf32>, %n: memref<1xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<128xf32, #tile.mem<shared>>
    %count = memref.load %n[%c0] : memref<1xi32>
    %tx = tile.thread_id 0
    %first = arith.cmpi eq, %tx, %c0 : index
    // expected-note @+1 {{the thread-dependent control flow}}
    scf.if %first {
      %any = arith.cmpi ne, %count, %zero : i32
      scf.if %any {
        // expected-error @+1 {{'tile.copy' op synchronizes the threads that run it, but runs under control flow that depends on the thread index: the condition is not a range of threads (tid < c, tid >= c, or both)}}
        tile.copy %in[%c0] to %s : memref<128xf32> to memref<128xf32, #tile.mem<shared>>
      }
    }
    tile.copy %s to %out[%c0] : memref<128xf32, #tile.mem<shared>> to memref<128xf32>
  }
  return
}

// -----

// Anything else may not depend on the thread index through control flow.
func.func @divergent_copy(%in: memref<128xf32>, %out: memref<128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<128xf32, #tile.mem<shared>>
    %tx = tile.thread_id 0
    %first = arith.cmpi eq, %tx, %c0 : index
    // expected-note @+1 {{the thread-dependent control flow}}
    scf.if %first {
      // expected-error @+1 {{'tile.copy' op synchronizes the threads that run it, but runs under control flow that depends on the thread index: the condition is not a range of threads (tid < c, tid >= c, or both)}}
      tile.copy %in[%c0] to %s : memref<128xf32> to memref<128xf32, #tile.mem<shared>>
    }
    tile.copy %s to %out[%c0] : memref<128xf32, #tile.mem<shared>> to memref<128xf32>
  }
  return
}

// -----

func.func @partial_warps(%in: memref<128xf32>, %out: memref<128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  tile.kernel grid(%c1) threads(128) -> (%bx) {
    %s = tile.alloc_shared : memref<128xf32, #tile.mem<shared>>
    %tx = tile.thread_id 0
    %low = arith.cmpi slt, %tx, %c100 : index
    // expected-note @+1 {{the thread-dependent control flow}}
    scf.if %low {
      // expected-error @+1 {{the threads [0, 100) are not whole warps}}
      tile.copy %in[%c0] to %s : memref<128xf32> to memref<128xf32, #tile.mem<shared>>
    }
    tile.copy %s to %out[%c0] : memref<128xf32, #tile.mem<shared>> to memref<128xf32>
  }
  return
}
