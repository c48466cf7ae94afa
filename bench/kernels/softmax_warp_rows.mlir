// Row softmax with one warp per row (bench variant of examples/softmax.mlir,
// which the GPU suite times next to it): the 8x1024 fragment is annotated
// so that warp i holds row i (lane l the 16-byte runs at columns 4l + 128s),
// which puts every fragment in registers and reduces each row with xor
// shuffles inside its warp; the example's default layout spreads each row
// over all eight warps, so its fragments stay in shared memory. The kernel
// is otherwise the example's, and checked against the same reference.

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
      // Row i on warp i; lane l: columns 4l + 128s + e (slot 4s + e).
      tile.annotate_layout %x : memref<8x1024xf32, #tile.mem<fragment>>
          layout #tile.fragment<[8, 1024],
              thread = (i, j) -> (i * 32 + (j floordiv 4) mod 32),
              index = (i, j) -> ((j floordiv 128) * 4 + j mod 4),
              threads = 256>
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
