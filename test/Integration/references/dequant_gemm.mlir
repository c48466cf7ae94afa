// This file is an input of the Integration tests, not a test itself.
//
// Naive reference of examples/dequant_gemm.mlir (@dequant_gemm), in plain
// upstream MLIR (func, scf, memref, arith; no tile op): a GEMM whose B operand
// holds int4 weights, two per byte, dequantized on the fly.
//
//   byte    = B[n, k / 2]                         (i8, read as unsigned)
//   q[n, k] = (byte >> (4 * (k % 2))) & 0xF       low nibble: even k,
//                                                 high nibble: odd k; 0 .. 15
//   W[n, k] = (f32(q[n, k]) - 8) * f32(Scale[n])  (in f32)
//   C[i, n] = f16(sum_{k = 0 .. K-1} f32(A[i, k]) * W[n, k])
//
//   A: [M, K] f16, B: [N, K/2] i8, Scale: [N] f16, C: [M, N] f16.
//   M = dim(A, 0), K = dim(A, 1) (even), N = dim(B, 0), all dynamic.
//
// Everything is computed in f32 (the sum in increasing k order, from 0) and C
// is rounded to f16 once. (The kernel rounds each dequantized weight W to f16
// before its tensor-core gemm; that differs from this reference by at most
// half an f16 ulp of W, well within the tolerance of an f16 result.) Every
// size is handled and only the M x N elements of C are written.

module {
  func.func @dequant_gemm_ref(%A: memref<?x?xf16>, %B: memref<?x?xi8>,
                              %Scale: memref<?xf16>, %C: memref<?x?xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    %eight = arith.constant 8.0 : f32
    %mask = arith.constant 15 : i32
    %M = memref.dim %A, %c0 : memref<?x?xf16>
    %K = memref.dim %A, %c1 : memref<?x?xf16>
    %N = memref.dim %B, %c0 : memref<?x?xi8>
    scf.for %i = %c0 to %M step %c1 {
      scf.for %n = %c0 to %N step %c1 {
        %s16 = memref.load %Scale[%n] : memref<?xf16>
        %s = arith.extf %s16 : f16 to f32
        %acc = scf.for %k = %c0 to %K step %c1 iter_args(%sum = %zero) -> (f32) {
          // Unpack q[n, k] from byte k / 2: bits 0-3 for even k, 4-7 for odd k.
          %kb = arith.divui %k, %c2 : index
          %byte = memref.load %B[%n, %kb] : memref<?x?xi8>
          %u = arith.extui %byte : i8 to i32
          %odd = arith.remui %k, %c2 : index
          %sh_idx = arith.muli %odd, %c4 : index
          %sh = arith.index_cast %sh_idx : index to i32
          %shifted = arith.shrui %u, %sh : i32
          %q = arith.andi %shifted, %mask : i32
          %qf = arith.uitofp %q : i32 to f32
          %centered = arith.subf %qf, %eight : f32
          %w = arith.mulf %centered, %s : f32
          %a16 = memref.load %A[%i, %k] : memref<?x?xf16>
          %a = arith.extf %a16 : f16 to f32
          %p = arith.mulf %a, %w : f32
          %r = arith.addf %sum, %p : f32
          scf.yield %r : f32
        }
        %c16 = arith.truncf %acc : f32 to f16
        memref.store %c16, %C[%i, %n] : memref<?x?xf16>
      }
    }
    return
  }
}
