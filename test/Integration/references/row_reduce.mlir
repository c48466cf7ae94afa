// This file is an input of the Integration tests, not a test itself.
//
// Naive reference of examples/row_reduce.mlir (@row_reduce), in plain
// upstream MLIR (func, scf, memref, arith, math; no tile op): five row
// reductions in f32, each a sequential walk over j = 0 .. N-1,
//
//   Sum[i]    = sum_j X[i, j]          (starting from 0)
//   Max[i]    = max_j X[i, j]          (starting from -inf)
//   Min[i]    = min_j X[i, j]          (starting from +inf)
//   AbsMax[i] = max_j |X[i, j]|        (starting from 0)
//   AbsSum[i] = sum_j |X[i, j]|        (starting from 0)
//
//   X: [M, N] f32, M = dim(X, 0), N = dim(X, 1) dynamic (any values, not only
//   multiples of the kernel's 32 x 128 tiles); outputs [M] f32.
//
// The starting values are the identities of the reductions, so they are also
// the results for N = 0 (as in the kernel, which then runs no column tile).
// Only the M elements of each output are written.

module {
  func.func @row_reduce_ref(%X: memref<?x?xf32>, %Sum: memref<?xf32>,
                            %Max: memref<?xf32>, %Min: memref<?xf32>,
                            %AbsMax: memref<?xf32>, %AbsSum: memref<?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %neg_inf = arith.constant 0xFF800000 : f32
    %pos_inf = arith.constant 0x7F800000 : f32
    %M = memref.dim %X, %c0 : memref<?x?xf32>
    %N = memref.dim %X, %c1 : memref<?x?xf32>
    scf.for %i = %c0 to %M step %c1 {
      %r:5 = scf.for %j = %c0 to %N step %c1
          iter_args(%s = %zero, %mx = %neg_inf, %mn = %pos_inf,
                    %am = %zero, %as = %zero) -> (f32, f32, f32, f32, f32) {
        %x = memref.load %X[%i, %j] : memref<?x?xf32>
        %ax = math.absf %x : f32
        %s2 = arith.addf %s, %x : f32
        %mx2 = arith.maximumf %mx, %x : f32
        %mn2 = arith.minimumf %mn, %x : f32
        %am2 = arith.maximumf %am, %ax : f32
        %as2 = arith.addf %as, %ax : f32
        scf.yield %s2, %mx2, %mn2, %am2, %as2 : f32, f32, f32, f32, f32
      }
      memref.store %r#0, %Sum[%i] : memref<?xf32>
      memref.store %r#1, %Max[%i] : memref<?xf32>
      memref.store %r#2, %Min[%i] : memref<?xf32>
      memref.store %r#3, %AbsMax[%i] : memref<?xf32>
      memref.store %r#4, %AbsSum[%i] : memref<?xf32>
    }
    return
  }
}
