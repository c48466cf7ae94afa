"""Small kernels shared by the tests."""

import tilelang_mlir
import tilelang_mlir.language as T


def matmul_func(M, N, K, block_M=32, block_N=32, block_K=16, threads=64,
                dtype=T.float16, stages=2, out_dtype=T.float32,
                stage_epilogue=False):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), out_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M),
                      threads=threads) as (bx, by):
            A_s = T.alloc_shared((block_M, block_K), dtype)
            B_s = T.alloc_shared((block_K, block_N), dtype)
            C_f = T.alloc_fragment((block_M, block_N), T.float32)
            T.clear(C_f)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=stages):
                T.copy(A[by * block_M, k * block_K], A_s)
                T.copy(B[k * block_K, bx * block_N], B_s)
                T.gemm(A_s, B_s, C_f)
            if stage_epilogue:
                # Through a shared tile (its layout is the compiler's).
                C_s = T.alloc_shared((block_M, block_N), out_dtype)
                T.copy(C_f, C_s)
                T.copy(C_s, C[by * block_M, bx * block_N])
            else:
                T.copy(C_f, C[by * block_M, bx * block_N])

    return main


matmul = tilelang_mlir.jit(out_idx=[-1])(matmul_func)


def tile_copy_func():
    """B = A through 32x32 shared tiles, both sizes symbolic: the kernel of
    the empty- and tiny-tensor tests."""
    M, N = T.symbolic("M"), T.symbolic("N")

    @T.prim_func
    def main(A: T.Tensor((M, N), T.float32), B: T.Tensor((M, N), T.float32)):
        with T.Kernel(T.ceildiv(N, 32), T.ceildiv(M, 32),
                      threads=128) as (bx, by):
            s = T.alloc_shared((32, 32), T.float32)
            T.copy(A[by * 32, bx * 32], s)
            T.copy(s, B[by * 32, bx * 32])
    return main
