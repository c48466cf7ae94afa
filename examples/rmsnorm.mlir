// RMS normalization of rows (the LLaMA RMSNorm).
//
//   Y[i, j] = X[i, j] * W[j] / sqrt(sum_k X[i, k]^2 / 1024 + 1e-6)
//
// X, Y: [M, 1024] f32, M dynamic; W: [1024] f32. Tiles: 8 rows per block,
// 256 threads, grid ceildiv(M, 8). The layouts are chosen by hand (as
// T.annotate_layout with a T.Fragment would): each warp holds one row, lane
// l the 16-byte runs at columns 4l + 128s (s < 8), so the row's sum of
// squares is folded in registers and then across the warp's lanes with xor
// shuffles; the weights are held the same way by every warp (eight
// replicas). The rows past M of the last block read as zeros (their sum is
// 0, the result 0 * rsqrt(1e-6)) and their writes to Y are dropped.
//
// TileLang:
//
//   with T.Kernel(T.ceildiv(M, 8), threads=256) as bx:
//       x = T.alloc_fragment((8, 1024), "float32")
//       sq = T.alloc_fragment((8, 1024), "float32")
//       w = T.alloc_fragment((1024,), "float32")
//       ss = T.alloc_fragment((8,), "float32")
//       T.annotate_layout({x: rows_per_warp, w: replicated_row})
//       T.copy(X[bx * 8, 0], x)
//       T.copy(W, w)
//       for i, j in T.Parallel(8, 1024):
//           sq[i, j] = x[i, j] * x[i, j]
//       T.reduce_sum(sq, ss, dim=1)
//       for i in T.Parallel(8):
//           ss[i] = T.rsqrt(ss[i] / 1024 + 1e-6)
//       for i, j in T.Parallel(8, 1024):
//           x[i, j] = x[i, j] * ss[i] * w[j]
//       T.copy(x, Y[bx * 8, 0])

// CHECK-LABEL: func.func @rmsnorm(
// CHECK-SAME: %[[X:[^:]+]]: memref<?x1024xf32>, %[[W:[^:]+]]: memref<1024xf32>, %[[Y:[^:]+]]: memref<?x1024xf32>)
// CHECK: tile.kernel grid(%{{.+}}) threads(256) -> (%bx) {
// CHECK: %[[XF:.+]] = tile.alloc_fragment : memref<8x1024xf32, #tile.mem<fragment>>
// CHECK: tile.annotate_layout %[[XF]] : memref<8x1024xf32, #tile.mem<fragment>> layout #tile.fragment<[8, 1024]
// CHECK: tile.reduce <sum>
// CHECK: math.rsqrt
// CHECK: tile.copy %[[XF]] to %[[Y]]

module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
  func.func @rmsnorm(%X: memref<?x1024xf32>, %W: memref<1024xf32>,
                     %Y: memref<?x1024xf32>) {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %M = memref.dim %X, %c0 : memref<?x1024xf32>
    %grid_x = arith.ceildivui %M, %c8 : index
    tile.kernel grid(%grid_x) threads(256) -> (%bx) {
      %inv_n = arith.constant 9.765625e-04 : f32
      %eps = arith.constant 1.0e-06 : f32
      %x = tile.alloc_fragment : memref<8x1024xf32, #tile.mem<fragment>>
      %sq = tile.alloc_fragment : memref<8x1024xf32, #tile.mem<fragment>>
      %w = tile.alloc_fragment : memref<1024xf32, #tile.mem<fragment>>
      %ss = tile.alloc_fragment : memref<8xf32, #tile.mem<fragment>>
      // Row i on warp i; lane l: columns 4l + 128s + e (slot 4s + e).
      tile.annotate_layout %x : memref<8x1024xf32, #tile.mem<fragment>>
          layout #tile.fragment<[8, 1024],
              thread = (i, j) -> (i * 32 + (j floordiv 4) mod 32),
              index = (i, j) -> ((j floordiv 128) * 4 + j mod 4),
              threads = 256>
      // The same columns on every warp: warp r is replica r.
      tile.annotate_layout %w : memref<1024xf32, #tile.mem<fragment>>
          layout #tile.fragment<[1024],
              thread = (j, r) -> (r * 32 + (j floordiv 4) mod 32),
              index = (j) -> ((j floordiv 128) * 4 + j mod 4),
              threads = 256, replicate = 8>
      %row = arith.muli %bx, %c8 : index
      tile.copy %X[%row, %c0] to %x
          : memref<?x1024xf32> to memref<8x1024xf32, #tile.mem<fragment>>
      tile.copy %W[%c0] to %w
          : memref<1024xf32> to memref<1024xf32, #tile.mem<fragment>>
      tile.parallel (%i, %j) in (8, 1024) {
        %v = memref.load %x[%i, %j] : memref<8x1024xf32, #tile.mem<fragment>>
        %v2 = arith.mulf %v, %v : f32
        memref.store %v2, %sq[%i, %j] : memref<8x1024xf32, #tile.mem<fragment>>
      }
      tile.reduce <sum> %sq to %ss dim 1
          : memref<8x1024xf32, #tile.mem<fragment>> to memref<8xf32, #tile.mem<fragment>>
      tile.parallel (%i) in (8) {
        %s = memref.load %ss[%i] : memref<8xf32, #tile.mem<fragment>>
        %mean = arith.mulf %s, %inv_n : f32
        %e = arith.addf %mean, %eps : f32
        %r = math.rsqrt %e : f32
        memref.store %r, %ss[%i] : memref<8xf32, #tile.mem<fragment>>
      }
      tile.parallel (%i, %j) in (8, 1024) {
        %v = memref.load %x[%i, %j] : memref<8x1024xf32, #tile.mem<fragment>>
        %r = memref.load %ss[%i] : memref<8xf32, #tile.mem<fragment>>
        %g = memref.load %w[%j] : memref<1024xf32, #tile.mem<fragment>>
        %n = arith.mulf %v, %r : f32
        %y = arith.mulf %n, %g : f32
        memref.store %y, %x[%i, %j] : memref<8x1024xf32, #tile.mem<fragment>>
      }
      tile.copy %x to %Y[%row, %c0]
          : memref<8x1024xf32, #tile.mem<fragment>> to memref<?x1024xf32>
    }
    return
  }
}
