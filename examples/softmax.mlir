// Row softmax.
//
//   Y[i, j] = exp(X[i, j] - max_k X[i, k]) / sum_k exp(X[i, k] - max_k X[i, k])
//
// X, Y: [M, 1024] f32, M dynamic, N = 1024 static so that a whole row fits in
// registers. Tiles: block_M = 8 rows per block (an 8x1024 f32 fragment, 32
// values per thread), 256 threads, grid ceildiv(M, 8). The exponential is
// computed in base 2: exp(x - m) = exp2(x * log2(e) - m * log2(e)).
// The rows past M of the last block read as zeros (max 0, sum 1024: no NaN
// or inf) and their writes to Y are dropped.
//
// TileLang:
//
//   with T.Kernel(T.ceildiv(M, 8), threads=256) as bx:
//       x = T.alloc_fragment((8, 1024), "float32")
//       row_max = T.alloc_fragment((8,), "float32")
//       row_sum = T.alloc_fragment((8,), "float32")
//       T.copy(X[bx * 8, 0], x)
//       T.reduce_max(x, row_max, dim=1)
//       for i, j in T.Parallel(8, 1024):
//           x[i, j] = T.exp2(x[i, j] * log2e - row_max[i] * log2e)
//       T.reduce_sum(x, row_sum, dim=1)
//       for i in T.Parallel(8):
//           row_sum[i] = 1.0 / row_sum[i]
//       for i, j in T.Parallel(8, 1024):
//           x[i, j] *= row_sum[i]
//       T.copy(x, Y[bx * 8, 0])

// CHECK: module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">}
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME: %[[X:[^:]+]]: memref<?x1024xf32>, %[[Y:[^:]+]]: memref<?x1024xf32>)
// CHECK: %[[M:.+]] = memref.dim %[[X]], %c0 : memref<?x1024xf32>
// CHECK-NEXT: %[[GX:.+]] = arith.ceildivui %[[M]], %c8 : index
// CHECK-NEXT: tile.kernel grid(%[[GX]]) threads(256) -> (%bx) {
// CHECK: %[[XF:.+]] = tile.alloc_fragment : memref<8x1024xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[MAX:.+]] = tile.alloc_fragment : memref<8xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[SUM:.+]] = tile.alloc_fragment : memref<8xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[ROW:.+]] = arith.muli %bx, %c8 : index
// CHECK-NEXT: tile.copy %[[X]][%[[ROW]], %c0] to %[[XF]] : memref<?x1024xf32> to memref<8x1024xf32, #tile.mem<fragment>>
// CHECK-NEXT: tile.reduce <max> %[[XF]] to %[[MAX]] dim 1 : memref<8x1024xf32, #tile.mem<fragment>> to memref<8xf32, #tile.mem<fragment>>
// CHECK-NEXT: tile.parallel (%{{.+}}, %{{.+}}) in (8, 1024) {
// CHECK: math.exp2
// CHECK: }
// CHECK-NEXT: tile.reduce <sum> %[[XF]] to %[[SUM]] dim 1 : memref<8x1024xf32, #tile.mem<fragment>> to memref<8xf32, #tile.mem<fragment>>
// CHECK-NEXT: tile.parallel (%{{.+}}) in (8) {
// CHECK: arith.divf
// CHECK: }
// CHECK-NEXT: tile.parallel (%{{.+}}, %{{.+}}) in (8, 1024) {
// CHECK: arith.mulf
// CHECK: }
// CHECK-NEXT: tile.copy %[[XF]] to %[[Y]][%[[ROW]], %c0] : memref<8x1024xf32, #tile.mem<fragment>> to memref<?x1024xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return

module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
  func.func @softmax(%X: memref<?x1024xf32>, %Y: memref<?x1024xf32>) {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %M = memref.dim %X, %c0 : memref<?x1024xf32>
    %grid_x = arith.ceildivui %M, %c8 : index
    tile.kernel grid(%grid_x) threads(256) -> (%bx) {
      %log2e = arith.constant 1.44269504 : f32
      %one = arith.constant 1.0 : f32
      %x = tile.alloc_fragment : memref<8x1024xf32, #tile.mem<fragment>>
      %row_max = tile.alloc_fragment : memref<8xf32, #tile.mem<fragment>>
      %row_sum = tile.alloc_fragment : memref<8xf32, #tile.mem<fragment>>
      %row = arith.muli %bx, %c8 : index
      tile.copy %X[%row, %c0] to %x
          : memref<?x1024xf32> to memref<8x1024xf32, #tile.mem<fragment>>
      tile.reduce <max> %x to %row_max dim 1
          : memref<8x1024xf32, #tile.mem<fragment>> to memref<8xf32, #tile.mem<fragment>>
      tile.parallel (%i, %j) in (8, 1024) {
        %v = memref.load %x[%i, %j] : memref<8x1024xf32, #tile.mem<fragment>>
        %m = memref.load %row_max[%i] : memref<8xf32, #tile.mem<fragment>>
        %a = arith.mulf %v, %log2e : f32
        %b = arith.mulf %m, %log2e : f32
        %d = arith.subf %a, %b : f32
        %e = math.exp2 %d : f32
        memref.store %e, %x[%i, %j] : memref<8x1024xf32, #tile.mem<fragment>>
      }
      tile.reduce <sum> %x to %row_sum dim 1
          : memref<8x1024xf32, #tile.mem<fragment>> to memref<8xf32, #tile.mem<fragment>>
      tile.parallel (%i) in (8) {
        %s = memref.load %row_sum[%i] : memref<8xf32, #tile.mem<fragment>>
        %r = arith.divf %one, %s : f32
        memref.store %r, %row_sum[%i] : memref<8xf32, #tile.mem<fragment>>
      }
      tile.parallel (%i, %j) in (8, 1024) {
        %e = memref.load %x[%i, %j] : memref<8x1024xf32, #tile.mem<fragment>>
        %r = memref.load %row_sum[%i] : memref<8xf32, #tile.mem<fragment>>
        %y = arith.mulf %e, %r : f32
        memref.store %y, %x[%i, %j] : memref<8x1024xf32, #tile.mem<fragment>>
      }
      tile.copy %x to %Y[%row, %c0]
          : memref<8x1024xf32, #tile.mem<fragment>> to memref<?x1024xf32>
    }
    return
  }
}
