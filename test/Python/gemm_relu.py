"""TileLang's README GEMM + ReLU, written with T.*, on the CPU backend
against numpy (fresh random inputs, shapes that are and are not multiples
of the tiles, static and symbolic sizes)."""
# RUN: %tile_python %s | FileCheck %s
# CHECK: gemm_relu 128x128x64: ok
# CHECK: gemm_relu 100x70x50: ok
# CHECK: gemm_relu 100x70x50 (symbolic): ok
# CHECK: gemm_relu 130x65x33 (symbolic): ok

import numpy as np

import tilelang_mlir
import tilelang_mlir.language as T


@tilelang_mlir.jit(out_idx=[-1])
def matmul(M, N, K, block_M, block_N, block_K, dtype=T.float16,
           accum_dtype=T.float32):
    @T.prim_func
    def gemm_relu(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
                  C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M),
                      threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.use_swizzle(panel_size=10)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            for i, j in T.Parallel(block_M, block_N):
                C_local[i, j] = T.max(C_local[i, j], 0)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return gemm_relu


def check(M, N, K, M_sym=False):
    rng = np.random.default_rng()
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    dims = (T.symbolic("M"), T.symbolic("N"), T.symbolic("K")) if M_sym \
        else (M, N, K)
    kernel = matmul(*dims, 64, 64, 32)
    c = kernel(a, b)
    ref = np.maximum(a.astype(np.float32) @ b.astype(np.float32), 0)
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=1e-2, atol=1e-2)
    print("gemm_relu %dx%dx%d%s: ok" % (M, N, K, " (symbolic)" if M_sym else ""))


if __name__ == "__main__":  # (python/tests/test_gpu.py imports the kernel)
    check(128, 128, 64)
    check(100, 70, 50)
    check(100, 70, 50, M_sym=True)
    check(130, 65, 33, M_sym=True)
    # The traced IR keeps the user's lines: the tile.gemm comes from line 32.
    source = matmul(128, 128, 64, 64, 64, 32).get_kernel_source()
    print([line for line in source.splitlines() if "tile.gemm" in line][0])
# CHECK: tile.gemm {{.*}} loc("{{.*}}gemm_relu.py":32:17)
