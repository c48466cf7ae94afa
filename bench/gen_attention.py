#!/usr/bin/env python3
"""Writes FlashAttention forward (non-causal and causal) for one head
dimension as tile IR, from the T.* program in test/Python/kernels.py's
style: bench/kernels/flash_attention_d<dim>.mlir, which the GPU suite times
at the issue's shape (b8 h32 s4096 d128) and checks on small shapes. Pipe
through `tile-opt` to drop the Python locations (the committed file must
not depend on the checkout's path); test/Python/gen_attention.py checks that
the committed file is current.

  python3 bench/gen_attention.py --dim 128 | tile-opt > bench/kernels/flash_attention_d128.mlir
"""

import argparse
import re

import tilelang_mlir.language as T


def flash_attention(name, dim, is_causal, block_M=64, block_N=64):
    batch, heads, seq_len = T.symbolic("B"), T.symbolic("H"), T.symbolic("S")
    scale = (1.0 / dim) ** 0.5 * 1.44269504  # log2(e)
    shape = (batch, heads, seq_len, dim)

    def main(Q: T.Tensor(shape, T.float16), K: T.Tensor(shape, T.float16),
             V: T.Tensor(shape, T.float16), Output: T.Tensor(shape, T.float16)):
        with T.Kernel(T.ceildiv(seq_len, block_M), heads, batch,
                      threads=128) as (bx, by, bz):
            Q_shared = T.alloc_shared((block_M, dim), T.float16)
            K_shared = T.alloc_shared((block_N, dim), T.float16)
            V_shared = T.alloc_shared((block_N, dim), T.float16)
            acc_s = T.alloc_fragment((block_M, block_N), T.float32)
            acc_s_cast = T.alloc_fragment((block_M, block_N), T.float16)
            acc_o = T.alloc_fragment((block_M, dim), T.float32)
            scores_max = T.alloc_fragment((block_M,), T.float32)
            scores_max_prev = T.alloc_fragment((block_M,), T.float32)
            scores_scale = T.alloc_fragment((block_M,), T.float32)
            scores_sum = T.alloc_fragment((block_M,), T.float32)
            logsum = T.alloc_fragment((block_M,), T.float32)

            T.copy(Q[bz, by, bx * block_M, 0], Q_shared)
            T.fill(acc_o, 0)
            T.fill(logsum, 0)
            T.fill(scores_max, -T.infinity(T.float32))
            loop_range = (T.min(T.ceildiv((bx + 1) * block_M, block_N),
                                T.ceildiv(seq_len, block_N))
                          if is_causal else T.ceildiv(seq_len, block_N))
            for k in T.Pipelined(loop_range, num_stages=2):
                T.copy(K[bz, by, k * block_N, 0], K_shared)
                for i, j in T.Parallel(block_M, block_N):
                    visible = k * block_N + j < seq_len
                    if is_causal:
                        visible = visible & (bx * block_M + i >= k * block_N + j)
                    acc_s[i, j] = T.if_then_else(visible, 0.0,
                                                 -T.infinity(T.float32))
                T.gemm(Q_shared, K_shared, acc_s, transpose_B=True)
                T.copy(V[bz, by, k * block_N, 0], V_shared)
                T.copy(scores_max, scores_max_prev)
                T.reduce_max(acc_s, scores_max, dim=1, clear=False)
                for i in T.Parallel(block_M):
                    scores_scale[i] = T.exp2(scores_max_prev[i] * scale -
                                             scores_max[i] * scale)
                for i, j in T.Parallel(block_M, dim):
                    acc_o[i, j] *= scores_scale[i]
                for i, j in T.Parallel(block_M, block_N):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale -
                                         scores_max[i] * scale)
                T.copy(acc_s, acc_s_cast)
                T.gemm(acc_s_cast, V_shared, acc_o)
                T.reduce_sum(acc_s, scores_sum, dim=1)
                for i in T.Parallel(block_M):
                    logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
            for i, j in T.Parallel(block_M, dim):
                acc_o[i, j] /= logsum[i]
            T.copy(acc_o, Output[bz, by, bx * block_M, 0])

    main.__name__ = name
    return T.prim_func(main)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dim", type=int, default=128)
    args = parser.parse_args()
    bodies = []
    for name, causal in (("flash_attention", False),
                         ("flash_attention_causal", True)):
        text = flash_attention(name, args.dim, causal).script()
        # The function of each traced module, side by side in one module.
        bodies.append(re.search(r"^module \{\n(.*)\n\}\n?$", text, re.S).group(1))
    print("module {\n" + "\n".join(bodies) + "\n}")


if __name__ == "__main__":
    main()
