// RUN: tile-opt %s --split-input-file --tile-make-persistent=blocks=4 | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-attach-target="kind=cuda chip=sm_90a" --tile-make-persistent | FileCheck %s --check-prefix=GPU
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
