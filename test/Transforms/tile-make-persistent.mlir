// RUN: tile-opt %s --split-input-file --tile-make-persistent=blocks=4 | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-make-persistent | FileCheck %s --check-prefix=GPU
// RUN: tile-opt %s --split-input-file --tile-make-persistent="blocks=4 dynamic-tiles=1" | FileCheck %s --check-prefix=DYNAMIC
// RUN: not tile-opt %s --split-input-file --tile-make-persistent 2>&1 | FileCheck %s --check-prefix=NO-COUNT
// RUN: not tile-opt %s --split-input-file --tile-make-persistent=blocks=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// tile-make-persistent: min(tiles, 4) blocks; the allocations move in front
// of a loop over the tiles p, p + B, ... (x fastest), whose coordinates go
// through the kernel's rasterization (tile.use_swizzle is consumed: the
// panel arithmetic is in the loop); the loop is marked
// tile.persistent_tiles for pipeline planning. With blocks = 0 on a GPU target the
// count comes from the runtime; on the CPU it must be given.
// CHECK-LABEL: func.func @tiles
// CHECK: %[[TOTAL:.*]] = arith.muli %[[GX:.*]], %[[GY:.*]] : index
// CHECK: %[[N:.*]] = arith.minui %[[TOTAL]], %c4 : index
// CHECK: tile.kernel grid(%[[N]]) threads(128) -> (%[[P:.*]]) {
// CHECK-NEXT: %[[S:.*]] = tile.alloc_shared : memref<64x64xf32, #tile.mem<shared>>
// CHECK-NEXT: scf.for %[[T:.*]] = %[[P]] to %[[TOTAL]] step %[[N]] {
// CHECK: %[[BX0:.*]] = arith.remui %[[T]], %[[GX]]
// CHECK: %[[BY0:.*]] = arith.divui %[[T]], %[[GX]]
// CHECK: arith.select
// CHECK-NOT: tile.use_swizzle
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] to %[[S]]
// CHECK: tile.copy %[[S]] to
// CHECK-NEXT: } {tile.persistent_tiles}
// GPU-LABEL: func.func private @tileMultiprocessorCount() -> i64
// GPU: %[[COUNT:.*]] = call @tileMultiprocessorCount() : () -> i64
// GPU: %[[C:.*]] = arith.index_cast %[[COUNT]] : i64 to index
// GPU: arith.minui %{{.*}}, %[[C]] : index
// NO-COUNT: blocks = 0 asks the GPU for its multiprocessor count
// NEGATIVE: blocks must be >= 0, got -1
// With dynamic: a zero-initialized pair of counters (a memref.global of
// the module, one per kernel, renamed when taken), a shared slot for the
// tile index; the loop over tiles is an scf.while over (tile, iteration)
// from (block id, 0) while the tile is below the tile count, whose body
// ends taking the next tile (offset by the block count: the first wave
// needs no counter); the block's share ends with tile.finish_tiles.
// DYNAMIC: memref.global "private" @tile_tile_counters : memref<2xi32> = dense<0>
// DYNAMIC-LABEL: func.func @tiles
// DYNAMIC: %[[TOTAL:.*]] = arith.muli %[[GX:.*]], %[[GY:.*]] : index
// DYNAMIC: %[[N:.*]] = arith.minui %[[TOTAL]], %c4 : index
// DYNAMIC: tile.kernel grid(%[[N]]) threads(128) -> (%[[P:.*]]) {
// DYNAMIC-NEXT: %[[SLOT:.*]] = tile.alloc_shared : memref<1xi32, #tile.mem<shared>>
// DYNAMIC-NEXT: %[[S:.*]] = tile.alloc_shared : memref<64x64xf32, #tile.mem<shared>>
// DYNAMIC-NEXT: %[[COUNTERS:.*]] = memref.get_global @tile_tile_counters : memref<2xi32>
// DYNAMIC-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// DYNAMIC-NEXT: scf.while (%[[T0:.*]] = %[[P]], %[[I0:.*]] = %[[ZERO]]) : (index, index) -> (index, index) {
// DYNAMIC-NEXT: %[[MORE:.*]] = arith.cmpi ult, %[[T0]], %[[TOTAL]] : index
// DYNAMIC-NEXT: scf.condition(%[[MORE]]) %[[T0]], %[[I0]] : index, index
// DYNAMIC-NEXT: } do {
// DYNAMIC-NEXT: ^bb0(%[[T:.*]]: index, %[[I:.*]]: index):
// DYNAMIC: arith.remui %[[T]], %[[GX]]
// DYNAMIC: arith.divui %[[T]], %[[GX]]
// DYNAMIC: %[[I1:.*]] = arith.addi %[[I]], %{{.*}} : index
// DYNAMIC: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] to %[[S]]
// DYNAMIC: tile.copy %[[S]] to
// DYNAMIC-NEXT: %[[NEXT:.*]] = tile.next_tile %[[COUNTERS]][%[[N]]] via %[[SLOT]] : memref<2xi32>, memref<1xi32, #tile.mem<shared>>
// DYNAMIC-NEXT: scf.yield %[[NEXT]], %[[I1]] : index, index
// DYNAMIC-NEXT: } attributes {tile.persistent_tiles}
// DYNAMIC-NEXT: tile.finish_tiles %[[COUNTERS]] blocks(%[[N]]) : memref<2xi32>
// DYNAMIC: memref.global "private" @tile_tile_counters_0 : memref<2xi32> = dense<0>
// DYNAMIC-NEXT: memref.global "private" @tile_tile_counters : memref<2xi32> = dense<0>
// DYNAMIC-LABEL: func.func @two_kernels
// DYNAMIC: memref.get_global @tile_tile_counters :
// DYNAMIC: memref.get_global @tile_tile_counters_0 :
func.func @tiles(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %gx: index, %gy: index) {
  %c64 = arith.constant 64 : index
  tile.kernel grid(%gx, %gy) threads(128) -> (%bx, %by) {
    tile.use_swizzle panel(2)
    %s = tile.alloc_shared : memref<64x64xf32, #tile.mem<shared>>
    %r = arith.muli %by, %c64 : index
    %c = arith.muli %bx, %c64 : index
    tile.copy %A[%r, %c] to %s : memref<?x?xf32> to memref<64x64xf32, #tile.mem<shared>>
    tile.copy %s to %B[%r, %c] : memref<64x64xf32, #tile.mem<shared>> to memref<?x?xf32>
  }
  return
}

// -----

// Two kernels: a schedule each.
func.func @two_kernels(%A: memref<?xf32>, %n: index) {
  tile.kernel grid(%n) threads(32) -> (%bx) {
    %one = arith.constant 1.0 : f32
    tile.atomic_add %one to %A[%bx] : f32 to memref<?xf32>
  }
  tile.kernel grid(%n) threads(32) -> (%bx) {
    %one = arith.constant 1.0 : f32
    tile.atomic_add %one to %A[%bx] : f32 to memref<?xf32>
  }
  return
}
