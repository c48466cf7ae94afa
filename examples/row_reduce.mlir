// Five row reductions of one matrix in a single pass.
//
//   Sum[i]    = sum_j X[i, j]          AbsSum[i] = sum_j |X[i, j]|
//   Max[i]    = max_j X[i, j]          AbsMax[i] = max_j |X[i, j]|
//   Min[i]    = min_j X[i, j]
//
// X: [M, N] f32, outputs [M] f32, M and N dynamic. Tiles: block_M = 32 rows
// per block, the row is walked in tiles of block_N = 128 columns by a
// 2-stage pipeline, 128 threads, grid ceildiv(M, 32). Each tile is reduced
// into the running results with clear = false.
//
// Edge tiles: the columns past N of the last tile read as zero. Zero is the
// identity of sum, abssum and absmax (|x| >= 0), but not of max and min: for
// those the tile is copied into fragments whose padded columns hold -inf
// (for max) and +inf (for min), selected on the global column index. The
// rows past M read as zero and their results are dropped by the final copies.
//
// TileLang:
//
//   with T.Kernel(T.ceildiv(M, 32), threads=128) as bx:
//       T.clear(s); T.clear(abs_s); T.clear(abs_m)
//       T.fill(mx, -T.infinity("float32")); T.fill(mn, T.infinity("float32"))
//       for k in T.Pipelined(T.ceildiv(N, 128), num_stages=2):
//           T.copy(X[bx * 32, k * 128], x_shared)
//           for i, j in T.Parallel(32, 128):
//               x[i, j] = x_shared[i, j]
//               x_hi[i, j] = T.if_then_else(k * 128 + j < N, x_shared[i, j], -T.infinity("float32"))
//               x_lo[i, j] = T.if_then_else(k * 128 + j < N, x_shared[i, j], T.infinity("float32"))
//           T.reduce_sum(x, s, dim=1, clear=False)
//           T.reduce_abssum(x, abs_s, dim=1, clear=False)
//           T.reduce_absmax(x, abs_m, dim=1, clear=False)
//           T.reduce_max(x_hi, mx, dim=1, clear=False)
//           T.reduce_min(x_lo, mn, dim=1, clear=False)
//       T.copy(s, Sum[bx * 32]); T.copy(mx, Max[bx * 32]); ...

// CHECK: module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">}
// CHECK-LABEL: func.func @row_reduce(
// CHECK-SAME: %[[X:[^:]+]]: memref<?x?xf32>, %[[SUM:[^:]+]]: memref<?xf32>, %[[MAX:[^:]+]]: memref<?xf32>, %[[MIN:[^:]+]]: memref<?xf32>, %[[ABSMAX:[^:]+]]: memref<?xf32>, %[[ABSSUM:[^:]+]]: memref<?xf32>)
// CHECK-DAG: %[[M:.+]] = memref.dim %[[X]], %c0 : memref<?x?xf32>
// CHECK-DAG: %[[N:.+]] = memref.dim %[[X]], %c1 : memref<?x?xf32>
// CHECK-DAG: %[[GX:.+]] = arith.ceildivui %[[M]], %c32 : index
// CHECK-DAG: %[[NT:.+]] = arith.ceildivui %[[N]], %c128 : index
// CHECK: tile.kernel grid(%[[GX]]) threads(128) -> (%bx) {
// CHECK-DAG: %[[NEG_INF:.+]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[POS_INF:.+]] = arith.constant 0x7F800000 : f32
// CHECK: %[[XS:.+]] = tile.alloc_shared : memref<32x128xf32, #tile.mem<shared>>
// CHECK-NEXT: %[[XF:.+]] = tile.alloc_fragment : memref<32x128xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[XHI:.+]] = tile.alloc_fragment : memref<32x128xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[XLO:.+]] = tile.alloc_fragment : memref<32x128xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[S:.+]] = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[MX:.+]] = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[MN:.+]] = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[AM:.+]] = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[AS:.+]] = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
// CHECK-NEXT: tile.clear %[[S]]
// CHECK-NEXT: tile.fill %[[MX]], %[[NEG_INF]]
// CHECK-NEXT: tile.fill %[[MN]], %[[POS_INF]]
// CHECK-NEXT: tile.clear %[[AM]]
// CHECK-NEXT: tile.clear %[[AS]]
// CHECK-NEXT: %[[ROW:.+]] = arith.muli %bx, %c32 : index
// CHECK-NEXT: tile.pipelined %[[K:.+]] = %c0 to %[[NT]] step %c1 num_stages = 2 {
// CHECK-NEXT: %[[COL0:.+]] = arith.muli %[[K]], %c128 : index
// CHECK-NEXT: tile.copy %[[X]][%[[ROW]], %[[COL0]]] to %[[XS]] : memref<?x?xf32> to memref<32x128xf32, #tile.mem<shared>>
// CHECK-NEXT: tile.parallel (%[[I:.+]], %[[J:.+]]) in (32, 128) {
// CHECK-NEXT: %[[COL:.+]] = arith.addi %[[COL0]], %[[J]] : index
// CHECK-NEXT: %[[VALID:.+]] = arith.cmpi ult, %[[COL]], %[[N]] : index
// CHECK-NEXT: %[[V:.+]] = memref.load %[[XS]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[HI:.+]] = arith.select %[[VALID]], %[[V]], %[[NEG_INF]] : f32
// CHECK-NEXT: %[[LO:.+]] = arith.select %[[VALID]], %[[V]], %[[POS_INF]] : f32
// CHECK-NEXT: memref.store %[[V]], %[[XF]][%[[I]], %[[J]]]
// CHECK-NEXT: memref.store %[[HI]], %[[XHI]][%[[I]], %[[J]]]
// CHECK-NEXT: memref.store %[[LO]], %[[XLO]][%[[I]], %[[J]]]
// CHECK-NEXT: }
// CHECK-NEXT: tile.reduce <sum> %[[XF]] to %[[S]] dim 1 {clear = false} : memref<32x128xf32, #tile.mem<fragment>> to memref<32xf32, #tile.mem<fragment>>
// CHECK-NEXT: tile.reduce <abssum> %[[XF]] to %[[AS]] dim 1 {clear = false}
// CHECK-NEXT: tile.reduce <absmax> %[[XF]] to %[[AM]] dim 1 {clear = false}
// CHECK-NEXT: tile.reduce <max> %[[XHI]] to %[[MX]] dim 1 {clear = false}
// CHECK-NEXT: tile.reduce <min> %[[XLO]] to %[[MN]] dim 1 {clear = false}
// CHECK-NEXT: }
// CHECK-NEXT: tile.copy %[[S]] to %[[SUM]][%[[ROW]]] : memref<32xf32, #tile.mem<fragment>> to memref<?xf32>
// CHECK-NEXT: tile.copy %[[MX]] to %[[MAX]][%[[ROW]]]
// CHECK-NEXT: tile.copy %[[MN]] to %[[MIN]][%[[ROW]]]
// CHECK-NEXT: tile.copy %[[AM]] to %[[ABSMAX]][%[[ROW]]]
// CHECK-NEXT: tile.copy %[[AS]] to %[[ABSSUM]][%[[ROW]]]
// CHECK-NEXT: }
// CHECK-NEXT: return

module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
  func.func @row_reduce(%X: memref<?x?xf32>, %Sum: memref<?xf32>,
                        %Max: memref<?xf32>, %Min: memref<?xf32>,
                        %AbsMax: memref<?xf32>, %AbsSum: memref<?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %M = memref.dim %X, %c0 : memref<?x?xf32>
    %N = memref.dim %X, %c1 : memref<?x?xf32>
    %grid_x = arith.ceildivui %M, %c32 : index
    %n_tiles = arith.ceildivui %N, %c128 : index
    tile.kernel grid(%grid_x) threads(128) -> (%bx) {
      %neg_inf = arith.constant 0xFF800000 : f32
      %pos_inf = arith.constant 0x7F800000 : f32
      %x_shared = tile.alloc_shared : memref<32x128xf32, #tile.mem<shared>>
      %x = tile.alloc_fragment : memref<32x128xf32, #tile.mem<fragment>>
      %x_hi = tile.alloc_fragment : memref<32x128xf32, #tile.mem<fragment>>
      %x_lo = tile.alloc_fragment : memref<32x128xf32, #tile.mem<fragment>>
      %s = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
      %mx = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
      %mn = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
      %abs_m = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
      %abs_s = tile.alloc_fragment : memref<32xf32, #tile.mem<fragment>>
      tile.clear %s : memref<32xf32, #tile.mem<fragment>>
      tile.fill %mx, %neg_inf : memref<32xf32, #tile.mem<fragment>>
      tile.fill %mn, %pos_inf : memref<32xf32, #tile.mem<fragment>>
      tile.clear %abs_m : memref<32xf32, #tile.mem<fragment>>
      tile.clear %abs_s : memref<32xf32, #tile.mem<fragment>>
      %row = arith.muli %bx, %c32 : index
      tile.pipelined %k = %c0 to %n_tiles step %c1 num_stages = 2 {
        %col0 = arith.muli %k, %c128 : index
        tile.copy %X[%row, %col0] to %x_shared
            : memref<?x?xf32> to memref<32x128xf32, #tile.mem<shared>>
        tile.parallel (%i, %j) in (32, 128) {
          %col = arith.addi %col0, %j : index
          %valid = arith.cmpi ult, %col, %N : index
          %v = memref.load %x_shared[%i, %j] : memref<32x128xf32, #tile.mem<shared>>
          %hi = arith.select %valid, %v, %neg_inf : f32
          %lo = arith.select %valid, %v, %pos_inf : f32
          memref.store %v, %x[%i, %j] : memref<32x128xf32, #tile.mem<fragment>>
          memref.store %hi, %x_hi[%i, %j] : memref<32x128xf32, #tile.mem<fragment>>
          memref.store %lo, %x_lo[%i, %j] : memref<32x128xf32, #tile.mem<fragment>>
        }
        tile.reduce <sum> %x to %s dim 1 {clear = false}
            : memref<32x128xf32, #tile.mem<fragment>> to memref<32xf32, #tile.mem<fragment>>
        tile.reduce <abssum> %x to %abs_s dim 1 {clear = false}
            : memref<32x128xf32, #tile.mem<fragment>> to memref<32xf32, #tile.mem<fragment>>
        tile.reduce <absmax> %x to %abs_m dim 1 {clear = false}
            : memref<32x128xf32, #tile.mem<fragment>> to memref<32xf32, #tile.mem<fragment>>
        tile.reduce <max> %x_hi to %mx dim 1 {clear = false}
            : memref<32x128xf32, #tile.mem<fragment>> to memref<32xf32, #tile.mem<fragment>>
        tile.reduce <min> %x_lo to %mn dim 1 {clear = false}
            : memref<32x128xf32, #tile.mem<fragment>> to memref<32xf32, #tile.mem<fragment>>
      }
      tile.copy %s to %Sum[%row] : memref<32xf32, #tile.mem<fragment>> to memref<?xf32>
      tile.copy %mx to %Max[%row] : memref<32xf32, #tile.mem<fragment>> to memref<?xf32>
      tile.copy %mn to %Min[%row] : memref<32xf32, #tile.mem<fragment>> to memref<?xf32>
      tile.copy %abs_m to %AbsMax[%row] : memref<32xf32, #tile.mem<fragment>> to memref<?xf32>
      tile.copy %abs_s to %AbsSum[%row] : memref<32xf32, #tile.mem<fragment>> to memref<?xf32>
    }
    return
  }
}
