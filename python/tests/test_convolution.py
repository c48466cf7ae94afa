"""2-D convolution as TileLang writes it: T.im2col gathers the input patch
of an implicit GEMM into shared memory, and ``T.Tensor(shape, dtype,
A.data)`` views the (KH, KW, C, F) filter and the (N, OH, OW, F) output
as matrices. On the CPU against a convolution computed with numpy from
the padded input (no im2col); compiled for sm_90a; run on the GPU machine
against torch.conv2d."""

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T

RNG = np.random.default_rng()


def convolution(N, C, H, W, F, K, S, D, P, block_M, block_N, block_K,
                dtype=T.float32, accum_dtype=T.float32, threads=128):
    KH = KW = K
    OH = (H + 2 * P - D * (K - 1) - 1) // S + 1
    OW = (W + 2 * P - D * (K - 1) - 1) // S + 1

    @T.prim_func
    def main(data: T.Tensor((N, H, W, C), dtype),
             kernel: T.Tensor((KH, KW, C, F), dtype),
             out: T.Tensor((N, OH, OW, F), dtype)):
        with T.Kernel(T.ceildiv(F, block_N), T.ceildiv(N * OH * OW, block_M),
                      threads=threads) as (bx, by):
            data_shared = T.alloc_shared((block_M, block_K), dtype)
            kernel_shared = T.alloc_shared((block_K, block_N), dtype)
            out_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            kernel_flat = T.Tensor((KH * KW * C, F), dtype, kernel.data)
            out_flat = T.Tensor((N * OH * OW, F), dtype, out.data)
            T.clear(out_local)
            for k in T.Pipelined(T.ceildiv(KH * KW * C, block_K), num_stages=2):
                T.im2col(data, data_shared, by, k, KH, S, D, P)
                T.copy(kernel_flat[k * block_K, bx * block_N], kernel_shared)
                T.gemm(data_shared, kernel_shared, out_local)
            T.copy(out_local, out_flat[by * block_M, bx * block_N])

    return main, (N, OH, OW, F)


def _reference(x, w, S, D, P):
    """NHWC input, (KH, KW, C, F) filter: sum over taps of shifted slices
    of the zero-padded input."""
    N, H, W, C = x.shape
    KH, KW, _, F = w.shape
    padded = np.zeros((N, H + 2 * P, W + 2 * P, C), np.float64)
    padded[:, P:P + H, P:P + W, :] = x
    OH = (H + 2 * P - D * (KH - 1) - 1) // S + 1
    OW = (W + 2 * P - D * (KW - 1) - 1) // S + 1
    out = np.zeros((N, OH, OW, F), np.float64)
    for kh in range(KH):
        for kw in range(KW):
            patch = padded[:, kh * D:kh * D + S * (OH - 1) + 1:S,
                           kw * D:kw * D + S * (OW - 1) + 1:S, :]
            out += patch @ w[kh, kw].astype(np.float64)
    return out


@pytest.mark.parametrize("shape", [
    # N, C, H, W, F, K, S, D, P: padding, the last block past the pixels,
    # stride 2 with dilation 2, taps not a multiple of block_K.
    (2, 8, 9, 7, 16, 3, 1, 1, 1),
    (1, 4, 11, 10, 8, 3, 2, 2, 2),
])
def test_im2col_convolution_on_the_cpu(shape):
    N, C, H, W, F, K, S, D, P = shape
    func, out_shape = convolution(N, C, H, W, F, K, S, D, P, 32, 16, 16)
    kernel = tilelang.compile(func, target="cpu")
    x = RNG.standard_normal((N, H, W, C)).astype(np.float32)
    w = RNG.standard_normal((K, K, C, F)).astype(np.float32)
    out = np.full(out_shape, np.nan, np.float32)
    kernel(x, w, out)
    np.testing.assert_allclose(out, _reference(x, w, S, D, P), rtol=1e-4,
                               atol=1e-4)


def test_im2col_convolution_compiles_for_sm90a():
    func, _ = convolution(4, 64, 32, 32, 64, 3, 1, 1, 1, 64, 128, 32,
                          dtype=T.float16, threads=256)
    kernel = tilelang.compile(func, target="cuda -arch=sm_90a")
    assert ".entry" in kernel.get_kernel_source("ptx")


def test_bad_im2col_arguments_are_refused():
    with pytest.raises(T.TileLangError, match="pad is a non-negative int"):
        convolution(1, 4, 8, 8, 8, 3, 1, 1, -1, 32, 16, 16)
    with pytest.raises(T.TileLangError, match="a view keeps the bytes"):
        @T.prim_func
        def main(A: T.Tensor((4, 4), T.float32)):
            with T.Kernel(1, threads=32):
                T.Tensor((16,), T.float16, A.data)


def test_im2col_convolution_on_the_gpu(cuda_torch):
    torch = cuda_torch
    N, C, H, W, F, K, S, D, P = 4, 64, 32, 32, 64, 3, 1, 1, 1
    func, out_shape = convolution(N, C, H, W, F, K, S, D, P, 64, 128, 32,
                                  dtype=T.float16, threads=256)
    kernel = tilelang.compile(func, target="cuda -arch=sm_90a")
    x = torch.randn(N, H, W, C, device="cuda", dtype=torch.float16)
    w = torch.randn(K, K, C, F, device="cuda", dtype=torch.float16)
    out = torch.full(out_shape, float("nan"), device="cuda", dtype=torch.float16)
    kernel(x, w, out)
    ref = torch.conv2d(x.permute(0, 3, 1, 2).float(), w.permute(3, 2, 0, 1).float(),
                       stride=S, padding=P, dilation=D).permute(0, 2, 3, 1)
    torch.testing.assert_close(out.float(), ref, rtol=2e-2, atol=2e-2)
