// This file is an input of the Integration tests, not a test itself.
//
// Naive reference of examples/softmax.mlir (@softmax), in plain upstream MLIR
// (func, scf, memref, arith, math; no tile op): the row softmax in f32,
//
//   m[i]    = max_{k < 1024} X[i, k]                     (in k order)
//   s[i]    = sum_{k < 1024} exp(X[i, k] - m[i])         (in k order, from 0)
//   Y[i, j] = exp(X[i, j] - m[i]) / s[i]
//
//   X, Y: [M, 1024] f32, M = dim(X, 0) dynamic (any value, not only
//   multiples of the kernel's 8-row blocks).
//
// It uses the natural exponential (math.exp) and a division, not the
// kernel's exp2 with log2(e) folded in and multiplication by the reciprocal:
// the two agree within float tolerance. Only the M rows of Y are written.

module {
  func.func @softmax_ref(%X: memref<?x1024xf32>, %Y: memref<?x1024xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %neg_inf = arith.constant 0xFF800000 : f32
    %M = memref.dim %X, %c0 : memref<?x1024xf32>
    %N = memref.dim %X, %c1 : memref<?x1024xf32>
    scf.for %i = %c0 to %M step %c1 {
      // Pass 1: the row maximum.
      %m = scf.for %k = %c0 to %N step %c1 iter_args(%mx = %neg_inf) -> (f32) {
        %x = memref.load %X[%i, %k] : memref<?x1024xf32>
        %r = arith.maximumf %mx, %x : f32
        scf.yield %r : f32
      }
      // Pass 2: the sum of the exponentials.
      %s = scf.for %k = %c0 to %N step %c1 iter_args(%acc = %zero) -> (f32) {
        %x = memref.load %X[%i, %k] : memref<?x1024xf32>
        %d = arith.subf %x, %m : f32
        %e = math.exp %d : f32
        %r = arith.addf %acc, %e : f32
        scf.yield %r : f32
      }
      // Pass 3: normalize.
      scf.for %j = %c0 to %N step %c1 {
        %x = memref.load %X[%i, %j] : memref<?x1024xf32>
        %d = arith.subf %x, %m : f32
        %e = math.exp %d : f32
        %y = arith.divf %e, %s : f32
        memref.store %y, %Y[%i, %j] : memref<?x1024xf32>
      }
    }
    return
  }
}
