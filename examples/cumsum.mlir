// Inclusive prefix sums along the rows.
//
//   @cumsum:          Y[i, j] = sum_{k <= j} X[i, k]
//   @cumsum_reverse:  Y[i, j] = sum_{k >= j} X[i, k]
//
// X, Y: [M, 256] f32, M dynamic, N = 256 static: a block scans whole rows.
// Tiles: block_M = 32 rows per block (a 32x256 f32 shared tile, 32 KiB), 128
// threads, grid ceildiv(M, 32). The scan runs in place in shared memory.
// The rows past M of the last block read as zero and their writes are
// dropped.
//
// TileLang:
//
//   with T.Kernel(T.ceildiv(M, 32), threads=128) as bx:
//       x_shared = T.alloc_shared((32, 256), "float32")
//       T.copy(X[bx * 32, 0], x_shared)
//       T.cumsum(x_shared, dim=1, reverse=reverse)
//       T.copy(x_shared, Y[bx * 32, 0])

// CHECK: module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">}

// CHECK-LABEL: func.func @cumsum(
// CHECK-SAME: %[[X:[^:]+]]: memref<?x256xf32>, %[[Y:[^:]+]]: memref<?x256xf32>)
// CHECK: %[[M:.+]] = memref.dim %[[X]], %c0 : memref<?x256xf32>
// CHECK-NEXT: %[[GX:.+]] = arith.ceildivui %[[M]], %c32 : index
// CHECK-NEXT: tile.kernel grid(%[[GX]]) threads(128) -> (%bx) {
// CHECK-NEXT: %[[XS:.+]] = tile.alloc_shared : memref<32x256xf32, #tile.mem<shared>>
// CHECK-NEXT: %[[ROW:.+]] = arith.muli %bx, %c32 : index
// CHECK-NEXT: tile.copy %[[X]][%[[ROW]], %c0] to %[[XS]] : memref<?x256xf32> to memref<32x256xf32, #tile.mem<shared>>
// CHECK-NEXT: tile.cumsum %[[XS]] to %[[XS]] dim 1 : memref<32x256xf32, #tile.mem<shared>> to memref<32x256xf32, #tile.mem<shared>>
// CHECK-NEXT: tile.copy %[[XS]] to %[[Y]][%[[ROW]], %c0] : memref<32x256xf32, #tile.mem<shared>> to memref<?x256xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return

// CHECK-LABEL: func.func @cumsum_reverse(
// CHECK-SAME: %[[X:[^:]+]]: memref<?x256xf32>, %[[Y:[^:]+]]: memref<?x256xf32>)
// CHECK: %[[M:.+]] = memref.dim %[[X]], %c0 : memref<?x256xf32>
// CHECK-NEXT: %[[GX:.+]] = arith.ceildivui %[[M]], %c32 : index
// CHECK-NEXT: tile.kernel grid(%[[GX]]) threads(128) -> (%bx) {
// CHECK-NEXT: %[[XS:.+]] = tile.alloc_shared : memref<32x256xf32, #tile.mem<shared>>
// CHECK-NEXT: %[[ROW:.+]] = arith.muli %bx, %c32 : index
// CHECK-NEXT: tile.copy %[[X]][%[[ROW]], %c0] to %[[XS]] : memref<?x256xf32> to memref<32x256xf32, #tile.mem<shared>>
// CHECK-NEXT: tile.cumsum %[[XS]] to %[[XS]] dim 1 {reverse} : memref<32x256xf32, #tile.mem<shared>> to memref<32x256xf32, #tile.mem<shared>>
// CHECK-NEXT: tile.copy %[[XS]] to %[[Y]][%[[ROW]], %c0] : memref<32x256xf32, #tile.mem<shared>> to memref<?x256xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return

module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
  func.func @cumsum(%X: memref<?x256xf32>, %Y: memref<?x256xf32>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %M = memref.dim %X, %c0 : memref<?x256xf32>
    %grid_x = arith.ceildivui %M, %c32 : index
    tile.kernel grid(%grid_x) threads(128) -> (%bx) {
      %x_shared = tile.alloc_shared : memref<32x256xf32, #tile.mem<shared>>
      %row = arith.muli %bx, %c32 : index
      tile.copy %X[%row, %c0] to %x_shared
          : memref<?x256xf32> to memref<32x256xf32, #tile.mem<shared>>
      tile.cumsum %x_shared to %x_shared dim 1
          : memref<32x256xf32, #tile.mem<shared>> to memref<32x256xf32, #tile.mem<shared>>
      tile.copy %x_shared to %Y[%row, %c0]
          : memref<32x256xf32, #tile.mem<shared>> to memref<?x256xf32>
    }
    return
  }

  func.func @cumsum_reverse(%X: memref<?x256xf32>, %Y: memref<?x256xf32>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %M = memref.dim %X, %c0 : memref<?x256xf32>
    %grid_x = arith.ceildivui %M, %c32 : index
    tile.kernel grid(%grid_x) threads(128) -> (%bx) {
      %x_shared = tile.alloc_shared : memref<32x256xf32, #tile.mem<shared>>
      %row = arith.muli %bx, %c32 : index
      tile.copy %X[%row, %c0] to %x_shared
          : memref<?x256xf32> to memref<32x256xf32, #tile.mem<shared>>
      tile.cumsum %x_shared to %x_shared dim 1 {reverse}
          : memref<32x256xf32, #tile.mem<shared>> to memref<32x256xf32, #tile.mem<shared>>
      tile.copy %x_shared to %Y[%row, %c0]
          : memref<32x256xf32, #tile.mem<shared>> to memref<?x256xf32>
    }
    return
  }
}
