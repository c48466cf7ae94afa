// This file is an input of the Integration tests, not a test itself.
//
// Naive reference of examples/rmsnorm.mlir (@rmsnorm), in plain upstream
// MLIR (func, scf, memref, arith, math; no tile op):
//
//   s[i]    = sum_{k < 1024} X[i, k]^2                   (in k order, from 0)
//   Y[i, j] = X[i, j] * W[j] / sqrt(s[i] / 1024 + 1e-6)
//
//   X, Y: [M, 1024] f32, M = dim(X, 0) dynamic; W: [1024] f32.
//
// It divides by a square root where the kernel multiplies by rsqrt, and sums
// in k order where the kernel sums per lane and then across lanes: the two
// agree within float tolerance. Only the M rows of Y are written.

module {
  func.func @rmsnorm_ref(%X: memref<?x1024xf32>, %W: memref<1024xf32>,
                         %Y: memref<?x1024xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %n = arith.constant 1024.0 : f32
    %eps = arith.constant 1.0e-06 : f32
    %M = memref.dim %X, %c0 : memref<?x1024xf32>
    %N = memref.dim %X, %c1 : memref<?x1024xf32>
    scf.for %i = %c0 to %M step %c1 {
      %s = scf.for %k = %c0 to %N step %c1 iter_args(%acc = %zero) -> (f32) {
        %x = memref.load %X[%i, %k] : memref<?x1024xf32>
        %x2 = arith.mulf %x, %x : f32
        %r = arith.addf %acc, %x2 : f32
        scf.yield %r : f32
      }
      %mean = arith.divf %s, %n : f32
      %var = arith.addf %mean, %eps : f32
      %rms = math.sqrt %var : f32
      scf.for %j = %c0 to %N step %c1 {
        %x = memref.load %X[%i, %j] : memref<?x1024xf32>
        %w = memref.load %W[%j] : memref<1024xf32>
        %xw = arith.mulf %x, %w : f32
        %y = arith.divf %xw, %rms : f32
        memref.store %y, %Y[%i, %j] : memref<?x1024xf32>
      }
    }
    return
  }
}
