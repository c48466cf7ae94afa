"""TileLang's programmatic dependent launch: T.pdl_trigger() and
T.pdl_sync() in consecutive kernels of one prim_func. They are
griddepcontrol instructions on sm_90 and newer and nothing elsewhere; the
kernels run in stream order, so results are those of the program without
them. Numerics on the CPU against numpy; the GPU run on the GPU machine."""

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T


def chained(N, block=64):
    """B = A + 1 in one kernel, C = B * 2 in the next, which waits for it."""
    @T.prim_func
    def main(A: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32),
             C: T.Tensor((N,), T.float32)):
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            for i in T.Parallel(block):
                if bx * block + i < N:
                    B[bx * block + i] = A[bx * block + i] + 1.0
            T.pdl_trigger()
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            T.pdl_sync()
            for i in T.Parallel(block):
                if bx * block + i < N:
                    C[bx * block + i] = B[bx * block + i] * 2.0
    return main


def test_chained_kernels_on_the_cpu():
    a = np.random.default_rng().standard_normal(300).astype(np.float32)
    b, c = np.full_like(a, np.nan), np.full_like(a, np.nan)
    tilelang.compile(chained(300), target="cpu")(a, b, c)
    np.testing.assert_array_equal(b, a + 1)
    np.testing.assert_array_equal(c, (a + 1) * 2)


def test_griddepcontrol_on_sm90_only():
    hopper = tilelang.compile(chained(256), target="cuda -arch=sm_90a")
    ptx = hopper.get_kernel_source("ptx")
    assert "griddepcontrol.launch_dependents" in ptx
    assert "griddepcontrol.wait" in ptx
    ampere = tilelang.compile(chained(256), target="cuda -arch=sm_80")
    assert "griddepcontrol" not in ampere.get_kernel_source("ptx")


def test_outside_a_kernel_it_is_refused():
    with pytest.raises(T.TileLangError, match="T.pdl_sync is only meaningful "
                                              "inside a T.Kernel"):
        @T.prim_func
        def main(A: T.Tensor((4,), T.float32)):
            T.pdl_sync()


def test_chained_kernels_on_the_gpu(cuda_torch):
    torch = cuda_torch
    kernel = tilelang.compile(chained(5000), target="cuda -arch=sm_90a")
    a = torch.randn(5000, device="cuda")
    b = torch.full_like(a, float("nan"))
    c = torch.full_like(a, float("nan"))
    kernel(a, b, c)
    torch.cuda.synchronize()
    torch.testing.assert_close(b, a + 1)
    torch.testing.assert_close(c, (a + 1) * 2)
