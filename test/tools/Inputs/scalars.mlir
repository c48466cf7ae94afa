// A kernel with scalar parameters of several types: B = A * s + n.
func.func @k(%A: memref<?xf32>, %s: f32, %n: i8, %B: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %m = memref.dim %A, %c0 : memref<?xf32>
  %g = arith.ceildivui %m, %c64 : index
  tile.kernel grid(%g) threads(64) -> (%bx) {
    %f = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
    %off = arith.muli %bx, %c64 : index
    tile.copy %A[%off] to %f : memref<?xf32> to memref<64xf32, #tile.mem<fragment>>
    %nf = arith.sitofp %n : i8 to f32
    tile.parallel (%i) in (64) {
      %v = memref.load %f[%i] : memref<64xf32, #tile.mem<fragment>>
      %w = arith.mulf %v, %s : f32
      %x = arith.addf %w, %nf : f32
      memref.store %x, %f[%i] : memref<64xf32, #tile.mem<fragment>>
    }
    tile.copy %f to %B[%off] : memref<64xf32, #tile.mem<fragment>> to memref<?xf32>
  }
  return
}
