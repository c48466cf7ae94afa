// This file is an input of the Integration tests, not a test itself.
//
// Naive reference of examples/gemm_relu.mlir (@gemm_relu), in plain upstream
// MLIR (func, scf, memref, arith; no tile op):
//
//   C[i, j] = f16(max(0, sum_{k = 0 .. K-1} f32(A[i, k]) * f32(B[k, j])))
//
//   A: [M, K] f16, B: [K, N] f16, C: [M, N] f16.
//   M = dim(A, 0), K = dim(A, 1), N = dim(B, 1), all dynamic.
//
// The sum is accumulated in f32, in increasing k order, starting from 0; the
// ReLU is applied in f32 and the result is rounded to f16 (round to nearest
// even) once. Every size is handled (no tiling: M, N, K need not be multiples
// of anything) and only the M x N elements of C are written.

module {
  func.func @gemm_relu_ref(%A: memref<?x?xf16>, %B: memref<?x?xf16>,
                           %C: memref<?x?xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %M = memref.dim %A, %c0 : memref<?x?xf16>
    %K = memref.dim %A, %c1 : memref<?x?xf16>
    %N = memref.dim %B, %c1 : memref<?x?xf16>
    scf.for %i = %c0 to %M step %c1 {
      scf.for %j = %c0 to %N step %c1 {
        %acc = scf.for %k = %c0 to %K step %c1 iter_args(%sum = %zero) -> (f32) {
          %a16 = memref.load %A[%i, %k] : memref<?x?xf16>
          %b16 = memref.load %B[%k, %j] : memref<?x?xf16>
          %a = arith.extf %a16 : f16 to f32
          %b = arith.extf %b16 : f16 to f32
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %sum, %p : f32
          scf.yield %s : f32
        }
        %relu = arith.maximumf %acc, %zero : f32
        %c16 = arith.truncf %relu : f32 to f16
        memref.store %c16, %C[%i, %j] : memref<?x?xf16>
      }
    }
    return
  }
}
