// RUN: tile-opt %s --tile-lower-parallel-atomics | FileCheck %s
// RUN: not tile-opt %s --tile-select-register-fragments --convert-tile-to-gpu 2>&1 | FileCheck %s --check-prefix=UNLOWERED

// An element atomic inside a tile.parallel body adds once per point: each
// becomes that point's own add, a memref.atomic_rmw bounds-checked on a
// global buffer (an index past its end adds nothing) and plain on a shared
// tile (static bounds); addf for floats, addi for integers. The element
// atomic of the kernel body (once per block) and a whole-tile atomic stay
// for convert-tile-to-gpu.
// CHECK-LABEL: func.func @atomics
// CHECK: tile.atomic_add %{{.*}} to %{{.*}}[%{{.*}}] : f32 to memref<?xf32>
// CHECK: tile.parallel (%[[I:.*]]) in (256) {
// CHECK: %[[F:.*]] = arith.sitofp
// CHECK: %[[DIM:.*]] = memref.dim %[[OUT:.*]], %{{.*}} : memref<?xf32>
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[I]], %[[DIM]] : index
// CHECK: scf.if %[[IN]] {
// CHECK-NEXT: memref.atomic_rmw addf %[[F]], %[[OUT]][%[[I]]] : (f32, memref<?xf32>) -> f32
// CHECK-NEXT: }
// CHECK: memref.atomic_rmw addi %{{.*}}, %{{.*}}[%{{.*}}] : (i32, memref<4xi32, #tile.mem<shared>>) -> i32
// CHECK-NOT: tile.atomic_add %{{.*}} : f32
// CHECK: }
// CHECK: tile.atomic_add %{{.*}} to %{{.*}}[%{{.*}}] : memref<64xf32, #tile.mem<fragment>> to memref<?xf32>
// CHECK: return
//
// convert-tile-to-gpu alone would add them once per block: it refuses them,
// at the op.
// UNLOWERED: [[@LINE+11]]:7: error: 'tile.atomic_add' op of one element inside a tile.parallel body adds per thread: run tile-lower-parallel-atomics before convert-tile-to-gpu (the GPU pipelines do)
func.func @atomics(%out: memref<?xf32>, %n: index, %w: f32) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %sh = tile.alloc_shared : memref<4xi32, #tile.mem<shared>>
    %t = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    tile.fill %t, %w : memref<64xf32, #tile.mem<fragment>>
    tile.atomic_add %w to %out[%bx] : f32 to memref<?xf32>
    tile.parallel (%i) in (256) {
      %v = arith.index_cast %i : index to i32
      %f = arith.sitofp %v : i32 to f32
      %c1 = arith.constant 1 : index
      tile.atomic_add %f to %out[%i] : f32 to memref<?xf32>
      tile.atomic_add %v to %sh[%c1] : i32 to memref<4xi32, #tile.mem<shared>>
    }
    tile.atomic_add %t to %out[%n] : memref<64xf32, #tile.mem<fragment>> to memref<?xf32>
  }
  return
}

// Per-thread code (a histogram: the bin computed from the thread index,
// under a condition on it): each thread that reaches the atomic adds,
// outside any tile.parallel. An atomic of the kernel body that does not
// depend on a thread index stays (added once by the block).
// CHECK-LABEL: func.func @per_thread
// CHECK: %[[TX:.*]] = tile.thread_id 0
// CHECK: scf.if
// CHECK: memref.atomic_rmw addi %{{.*}}, %{{.*}}[%{{.*}}] : (i32, memref<256xi32, #tile.mem<shared>>) -> i32
// CHECK: memref.atomic_rmw addf %{{.*}}, %{{.*}}[%{{.*}}] : (f32, memref<?xf32>) -> f32
// CHECK: tile.atomic_add %{{.*}} to %{{.*}}[%{{.*}}] : f32 to memref<?xf32>
func.func @per_thread(%out: memref<?xf32>, %n: index, %w: f32) {
  tile.kernel grid(%n) threads(128) -> (%bx) {
    %hist = tile.alloc_shared : memref<256xi32, #tile.mem<shared>>
    %tx = tile.thread_id 0
    %c100 = arith.constant 100 : index
    %one = arith.constant 1 : i32
    %low = arith.cmpi ult, %tx, %c100 : index
    scf.if %low {
      %c0 = arith.constant 0 : index
      tile.atomic_add %one to %hist[%c0] : i32 to memref<256xi32, #tile.mem<shared>>
    }
    tile.atomic_add %w to %out[%tx] : f32 to memref<?xf32>
    tile.atomic_add %w to %out[%bx] : f32 to memref<?xf32>
  }
  return
}
