// This file is an input of the Integration tests, not a test itself.
//
// Naive references of examples/cumsum.mlir (@cumsum and @cumsum_reverse), in
// plain upstream MLIR (func, scf, memref, arith; no tile op): inclusive
// prefix sums along the rows, in f32, each a sequential running sum,
//
//   @cumsum_ref:          Y[i, j] = sum_{k <= j} X[i, k]   (k = 0, 1, .., j)
//   @cumsum_reverse_ref:  Y[i, j] = sum_{k >= j} X[i, k]   (k = N-1, .., j)
//
//   X, Y: [M, 256] f32, M = dim(X, 0) dynamic (any value, not only multiples
//   of the kernel's 32-row blocks). Only the M rows of Y are written.

module {
  func.func @cumsum_ref(%X: memref<?x256xf32>, %Y: memref<?x256xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %M = memref.dim %X, %c0 : memref<?x256xf32>
    %N = memref.dim %X, %c1 : memref<?x256xf32>
    scf.for %i = %c0 to %M step %c1 {
      %last = scf.for %j = %c0 to %N step %c1 iter_args(%acc = %zero) -> (f32) {
        %x = memref.load %X[%i, %j] : memref<?x256xf32>
        %s = arith.addf %acc, %x : f32
        memref.store %s, %Y[%i, %j] : memref<?x256xf32>
        scf.yield %s : f32
      }
    }
    return
  }

  func.func @cumsum_reverse_ref(%X: memref<?x256xf32>, %Y: memref<?x256xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %M = memref.dim %X, %c0 : memref<?x256xf32>
    %N = memref.dim %X, %c1 : memref<?x256xf32>
    %last_col = arith.subi %N, %c1 : index
    scf.for %i = %c0 to %M step %c1 {
      // t = 0 .. N-1 walks the columns j = N-1-t from the right.
      %first = scf.for %t = %c0 to %N step %c1 iter_args(%acc = %zero) -> (f32) {
        %j = arith.subi %last_col, %t : index
        %x = memref.load %X[%i, %j] : memref<?x256xf32>
        %s = arith.addf %acc, %x : f32
        memref.store %s, %Y[%i, %j] : memref<?x256xf32>
        scf.yield %s : f32
      }
    }
    return
  }
}
