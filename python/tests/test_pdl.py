"""TileLang's programmatic dependent launch: T.pdl_trigger() and
T.pdl_sync() in consecutive kernels of one prim_func. They are
griddepcontrol instructions on sm_90 and newer and nothing elsewhere; a
kernel that waits (T.pdl_sync) launches with programmatic stream
serialization, so it may start before the kernel ahead of it has finished
and its wait blocks until that kernel's writes are visible. Numerics on the
CPU against numpy; the GPU runs on the GPU machine."""

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T


@T.macro
def doubled_after_wait(B, C, N, block):
    """The dependent kernel: waits on the grid before it, then C = B * 2."""
    with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
        T.pdl_sync()
        for i in T.Parallel(block):
            if bx * block + i < N:
                C[bx * block + i] = B[bx * block + i] * 2.0


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
        doubled_after_wait(B, C, N, block)
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


def test_waiting_kernels_launch_programmatically():
    """The host code marks the launch of the kernel that waits, and only
    that one; without griddepcontrol (sm_80) nothing is marked."""
    hopper = tilelang.compile(chained(256), target="cuda -arch=sm_90a")
    host = hopper.get_kernel_source("llvm")
    marks = [i for i, line in enumerate(host.splitlines())
             if "llvm.call @tileProgrammaticLaunch()" in line]
    launches = [i for i, line in enumerate(host.splitlines())
                if "gpu.launch_func" in line]
    assert len(marks) == 1 and len(launches) == 2, (marks, launches)
    # Right before the second launch, after the first.
    assert launches[0] < marks[0] < launches[1]
    ampere = tilelang.compile(chained(256), target="cuda -arch=sm_80")
    assert "tileProgrammaticLaunch" not in ampere.get_kernel_source("llvm")


def early_trigger(N, rounds, block=128):
    """The first kernel lets its dependent launch before it has done
    anything (T.pdl_trigger first), then computes B for a while; the second
    reads B after T.pdl_sync. Right only if the wait waits for the whole
    first kernel, not for its trigger."""
    @T.prim_func
    def main(A: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32),
             C: T.Tensor((N,), T.float32)):
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            T.pdl_trigger()
            acc = T.alloc_fragment((block,), T.float32)
            for i in T.Parallel(block):
                acc[i] = T.if_then_else(bx * block + i < N, A[bx * block + i], 0.0)
            for _ in T.serial(rounds):
                for i in T.Parallel(block):
                    acc[i] = acc[i] * 0.5 + 1.0
            for i in T.Parallel(block):
                if bx * block + i < N:
                    B[bx * block + i] = acc[i]
        doubled_after_wait(B, C, N, block)
    return main


def test_early_trigger_on_the_cpu():
    a = np.random.default_rng().standard_normal(1000).astype(np.float32)
    b, c = np.full_like(a, np.nan), np.full_like(a, np.nan)
    tilelang.compile(early_trigger(1000, 7), target="cpu")(a, b, c)
    want = a.copy()
    for _ in range(7):
        want = want * np.float32(0.5) + np.float32(1.0)
    np.testing.assert_allclose(b, want, rtol=1e-6)
    np.testing.assert_allclose(c, want * 2, rtol=1e-6)


def test_early_trigger_on_the_gpu(cuda_torch):
    """Many blocks, a long first kernel: the dependent is resident and
    waiting while the first still computes; repeated, with fresh inputs."""
    torch = cuda_torch
    n, rounds = 1 << 22, 2000
    kernel = tilelang.compile(early_trigger(n, rounds), target="cuda -arch=sm_90a")
    for _ in range(5):
        a = torch.randn(n, device="cuda")
        b = torch.full_like(a, float("nan"))
        c = torch.full_like(a, float("nan"))
        kernel(a, b, c)
        torch.cuda.synchronize()
        want = a.clone()
        for _ in range(rounds):
            want = want * 0.5 + 1.0
        torch.testing.assert_close(b, want)
        torch.testing.assert_close(c, want * 2)
