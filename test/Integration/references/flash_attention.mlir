// This file is an input of the Integration tests, not a test itself.
//
// Naive references of examples/flash_attention.mlir (@flash_attention and
// @flash_attention_causal), in plain upstream MLIR (func, scf, memref, arith,
// math; no tile op): plain attention, one query row at a time, in f32 with a
// full two-pass softmax (no online softmax, no exp2).
//
//   Q, K, V, O: [batch, heads, seq_len, 64] f16; batch, heads, seq_len =
//   dim(Q, 0), dim(Q, 1), dim(Q, 2), dynamic (any values, not only multiples
//   of the kernel's 64-row blocks); K and V have the shape of Q.
//
// For every b < batch, h < heads and query q < seq_len, over the visible keys
// k in [0, kend), kend = seq_len (@flash_attention_ref) or q + 1
// (@flash_attention_causal_ref: key k is masked when k > q):
//
//   s_k  = (sum_{d < 64} f32(Q[b, h, q, d]) * f32(K[b, h, k, d])) / sqrt(64)
//   m    = max_k s_k                                   (pass 1)
//   l    = sum_k exp(s_k - m)                          (pass 2, natural exp)
//   p_k  = exp(s_k - m) / l                            (normalize)
//   O[b, h, q, d] = f16(sum_k p_k * f32(V[b, h, k, d]))
//
// All sums run in increasing index order from 0; O is rounded to f16 once.
// Key 0 is always visible, so m is finite and l >= 1: no NaN and no inf.
// The scores are recomputed (by @flash_attention_ref_score) in each pass
// rather than kept in a scratch buffer, so the references need no
// allocation; the cost is O(batch * heads * seq_len^2 * 64^2) multiply-adds.
// Only the batch x heads x seq_len x 64 elements of O are written.

module {
  // s = (Q[b, h, q, :] . K[b, h, k, :]) * inv_sqrt_d, in f32.
  func.func private @flash_attention_ref_score(
      %Q: memref<?x?x?x64xf16>, %K: memref<?x?x?x64xf16>, %b: index,
      %h: index, %q: index, %k: index, %inv_sqrt_d: f32) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %zero = arith.constant 0.0 : f32
    %D = memref.dim %Q, %c3 : memref<?x?x?x64xf16>
    %dot = scf.for %d = %c0 to %D step %c1 iter_args(%acc = %zero) -> (f32) {
      %q16 = memref.load %Q[%b, %h, %q, %d] : memref<?x?x?x64xf16>
      %k16 = memref.load %K[%b, %h, %k, %d] : memref<?x?x?x64xf16>
      %qf = arith.extf %q16 : f16 to f32
      %kf = arith.extf %k16 : f16 to f32
      %p = arith.mulf %qf, %kf : f32
      %r = arith.addf %acc, %p : f32
      scf.yield %r : f32
    }
    %s = arith.mulf %dot, %inv_sqrt_d : f32
    return %s : f32
  }

  // One query row: O[b, h, q, :] = softmax(s_k for k < kend) @ V[b, h, :kend, :].
  func.func private @flash_attention_ref_row(
      %Q: memref<?x?x?x64xf16>, %K: memref<?x?x?x64xf16>,
      %V: memref<?x?x?x64xf16>, %O: memref<?x?x?x64xf16>, %b: index,
      %h: index, %q: index, %kend: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %neg_inf = arith.constant 0xFF800000 : f32
    %D = memref.dim %Q, %c3 : memref<?x?x?x64xf16>
    // 1 / sqrt(head dim) = 1 / sqrt(64) = 0.125.
    %D_i = arith.index_cast %D : index to i64
    %D_f = arith.sitofp %D_i : i64 to f32
    %sqrt_d = math.sqrt %D_f : f32
    %inv_sqrt_d = arith.divf %one, %sqrt_d : f32
    // Pass 1: the row maximum of the scores.
    %m = scf.for %k = %c0 to %kend step %c1 iter_args(%mx = %neg_inf) -> (f32) {
      %s = func.call @flash_attention_ref_score(%Q, %K, %b, %h, %q, %k, %inv_sqrt_d)
          : (memref<?x?x?x64xf16>, memref<?x?x?x64xf16>, index, index, index, index, f32) -> f32
      %r = arith.maximumf %mx, %s : f32
      scf.yield %r : f32
    }
    // Pass 2: the sum of exp(s - m).
    %l = scf.for %k = %c0 to %kend step %c1 iter_args(%acc = %zero) -> (f32) {
      %s = func.call @flash_attention_ref_score(%Q, %K, %b, %h, %q, %k, %inv_sqrt_d)
          : (memref<?x?x?x64xf16>, memref<?x?x?x64xf16>, index, index, index, index, f32) -> f32
      %x = arith.subf %s, %m : f32
      %e = math.exp %x : f32
      %r = arith.addf %acc, %e : f32
      scf.yield %r : f32
    }
    // Normalized probabilities times V, one output column at a time.
    scf.for %d = %c0 to %D step %c1 {
      %o = scf.for %k = %c0 to %kend step %c1 iter_args(%acc = %zero) -> (f32) {
        %s = func.call @flash_attention_ref_score(%Q, %K, %b, %h, %q, %k, %inv_sqrt_d)
            : (memref<?x?x?x64xf16>, memref<?x?x?x64xf16>, index, index, index, index, f32) -> f32
        %x = arith.subf %s, %m : f32
        %e = math.exp %x : f32
        %p = arith.divf %e, %l : f32
        %v16 = memref.load %V[%b, %h, %k, %d] : memref<?x?x?x64xf16>
        %v = arith.extf %v16 : f16 to f32
        %pv = arith.mulf %p, %v : f32
        %r = arith.addf %acc, %pv : f32
        scf.yield %r : f32
      }
      %o16 = arith.truncf %o : f32 to f16
      memref.store %o16, %O[%b, %h, %q, %d] : memref<?x?x?x64xf16>
    }
    return
  }

  func.func @flash_attention_ref(%Q: memref<?x?x?x64xf16>, %K: memref<?x?x?x64xf16>,
      %V: memref<?x?x?x64xf16>, %O: memref<?x?x?x64xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %batch = memref.dim %Q, %c0 : memref<?x?x?x64xf16>
    %heads = memref.dim %Q, %c1 : memref<?x?x?x64xf16>
    %seq_len = memref.dim %Q, %c2 : memref<?x?x?x64xf16>
    scf.for %b = %c0 to %batch step %c1 {
      scf.for %h = %c0 to %heads step %c1 {
        scf.for %q = %c0 to %seq_len step %c1 {
          // Every key of the sequence is visible.
          func.call @flash_attention_ref_row(%Q, %K, %V, %O, %b, %h, %q, %seq_len)
              : (memref<?x?x?x64xf16>, memref<?x?x?x64xf16>, memref<?x?x?x64xf16>,
                 memref<?x?x?x64xf16>, index, index, index, index) -> ()
        }
      }
    }
    return
  }

  func.func @flash_attention_causal_ref(%Q: memref<?x?x?x64xf16>, %K: memref<?x?x?x64xf16>,
      %V: memref<?x?x?x64xf16>, %O: memref<?x?x?x64xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %batch = memref.dim %Q, %c0 : memref<?x?x?x64xf16>
    %heads = memref.dim %Q, %c1 : memref<?x?x?x64xf16>
    %seq_len = memref.dim %Q, %c2 : memref<?x?x?x64xf16>
    scf.for %b = %c0 to %batch step %c1 {
      scf.for %h = %c0 to %heads step %c1 {
        scf.for %q = %c0 to %seq_len step %c1 {
          // Causal mask: keys k > q are masked, the visible ones are 0 .. q.
          %kend = arith.addi %q, %c1 : index
          func.call @flash_attention_ref_row(%Q, %K, %V, %O, %b, %h, %q, %kend)
              : (memref<?x?x?x64xf16>, memref<?x?x?x64xf16>, memref<?x?x?x64xf16>,
                 memref<?x?x?x64xf16>, index, index, index, index) -> ()
        }
      }
    }
    return
  }
}
