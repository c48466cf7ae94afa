"""Arguments without memory: None for a tensor parameter the kernel never
uses (TileLang's optional bias, traced without it: a null pointer), and
scalars beside device tensors, which leave the call queued on the caller's
stream (no host copies, no wait: CUDA graphs capture it). Numerics on the
CPU against numpy; the GPU tests run on the GPU machine."""

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T

RNG = np.random.default_rng()


def scaled_rows(M, N, with_bias, block=16):
    """Y = X * scale (+ Bias per column when traced with it)."""
    @T.prim_func
    def main(X: T.Tensor((M, N), T.float32), Bias: T.Tensor((N,), T.float32),
             scale: T.float32, Y: T.Tensor((M, N), T.float32)):
        with T.Kernel(T.ceildiv(M, block), threads=64) as bx:
            for i, j in T.Parallel(block, N):
                if bx * block + i < M:
                    value = X[bx * block + i, j] * scale
                    if with_bias:
                        value = value + Bias[j]
                    Y[bx * block + i, j] = value
    return main


def test_none_for_a_tensor_the_kernel_never_uses():
    M, N = 37, 24
    kernel = tilelang.compile(scaled_rows(M, N, with_bias=False), out_idx=-1,
                              target="cpu")
    assert [p["name"] for p in kernel.params if not p["is_buffer"]] == ["scale"]
    x = RNG.standard_normal((M, N)).astype(np.float32)
    np.testing.assert_allclose(kernel(x, None, 1.5), x * np.float32(1.5),
                               rtol=1e-6)
    # A tensor is still taken there.
    np.testing.assert_allclose(kernel(x, np.zeros(N, np.float32), 2.0), x * 2,
                               rtol=1e-6)


def test_none_for_a_tensor_the_kernel_uses_is_refused_by_name():
    M, N = 8, 16
    kernel = tilelang.compile(scaled_rows(M, N, with_bias=True), out_idx=-1,
                              target="cpu")
    x = RNG.standard_normal((M, N)).astype(np.float32)
    with pytest.raises(tilelang.TileError,
                       match=r"argument 1 \('Bias'\) is None, but the kernel uses it"):
        kernel(x, None, 1.0)
    bias = RNG.standard_normal(N).astype(np.float32)
    np.testing.assert_allclose(kernel(x, bias, 3.0), x * 3 + bias, rtol=1e-5,
                               atol=1e-6)


def test_none_where_an_output_is_sized_from_the_inputs():
    """The outputs are sized from the first input that is a tensor."""
    M = T.dynamic("M")

    @T.prim_func
    def main(Unused: T.Tensor((8,), T.float32), X: T.Tensor((M,), T.float32),
             Y: T.Tensor((M,), T.float32)):
        with T.Kernel(T.ceildiv(M, 32), threads=32) as bx:
            for i in T.Parallel(32):
                if bx * 32 + i < M:
                    Y[bx * 32 + i] = X[bx * 32 + i] + 1.0

    kernel = tilelang.compile(main, out_idx=-1, target="cpu")
    x = RNG.standard_normal(45).astype(np.float32)
    np.testing.assert_array_equal(kernel(None, x), x + 1)



def test_none_and_scalars_with_device_tensors_on_the_gpu(cuda_torch):
    torch = cuda_torch
    M, N = 300, 128
    kernel = tilelang.compile(scaled_rows(M, N, with_bias=False), out_idx=-1,
                              target="cuda -arch=sm_90a")
    x = torch.randn(M, N, device="cuda")
    y = kernel(x, None, 0.5)
    assert y.is_cuda
    torch.testing.assert_close(y, x * 0.5)


def test_a_kernel_with_scalars_is_captured_in_a_cuda_graph(cuda_torch):
    """A call of device tensors and a scalar is queued on the capturing
    stream (a call that copied host memory would be refused there)."""
    torch = cuda_torch
    M, N = 64, 128
    kernel = tilelang.compile(scaled_rows(M, N, with_bias=True),
                              target="cuda -arch=sm_90a")
    x = torch.randn(M, N, device="cuda")
    bias = torch.randn(N, device="cuda")
    y = torch.full((M, N), float("nan"), device="cuda")
    kernel(x, bias, 2.0, y)  # loads the module before the capture
    y.fill_(float("nan"))
    graph = torch.cuda.CUDAGraph()
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        with torch.cuda.graph(graph, stream=stream):
            kernel(x, bias, 2.0, y)
    graph.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(y, x * 2 + bias)
