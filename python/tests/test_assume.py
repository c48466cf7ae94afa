"""T.assume: a condition inside a kernel that reads only what the host knows
(dynamic sizes, scalar arguments) is checked at every call before any kernel
runs ("Assume: <cond>", as TileLang's runtime check); conditions on what
only the kernel knows are hints. Numerics against numpy on the CPU; the
GPU run on the GPU machine."""

import re

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T

RNG = np.random.default_rng()


def scaled(block=64):
    """B = A * s over a dynamic N the caller promises is a multiple of 4,
    with a scalar s the caller promises is positive."""
    N = T.dynamic("N")

    @T.prim_func
    def main(A: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32),
             s: T.float32):
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            T.assume(N % 4 == 0)
            T.assume(s > 0)
            for i in T.Parallel(block):
                if bx * block + i < N:
                    B[bx * block + i] = A[bx * block + i] * s
    return main


def test_a_kept_promise_runs():
    kernel = tilelang.compile(scaled(), target="cpu")
    a = RNG.standard_normal(200).astype(np.float32)
    b = np.full_like(a, np.nan)
    kernel(a, b, 1.5)
    np.testing.assert_array_equal(b, a * np.float32(1.5))


@pytest.mark.parametrize("n, s, message", [
    (202, 1.0, "Assume: N % 4 == 0"),
    (200, -2.0, "Assume: s > 0"),
])
def test_a_broken_promise_fails_before_any_kernel_runs(n, s, message):
    kernel = tilelang.compile(scaled(), target="cpu")
    a = RNG.standard_normal(n).astype(np.float32)
    b = np.full_like(a, np.nan)
    with pytest.raises(RuntimeError, match=re.escape(message)):
        kernel(a, b, s)
    # Nothing ran: the output keeps its poison.
    assert np.isnan(b).all()
    # The kernel stays usable.
    good = RNG.standard_normal(8).astype(np.float32)
    out = np.full_like(good, np.nan)
    kernel(good, out, 2.0)
    np.testing.assert_array_equal(out, good * 2)


def test_the_check_is_host_code_before_the_kernel():
    ir = tilelang.compile(scaled(), target="cpu").get_kernel_source("loops")
    assert ir.count("llvm.call @tileAssumeFailed") == 2
    assert ir.index("tileAssumeFailed") < ir.index("scf.for")


def test_conditions_on_what_only_the_kernel_knows_are_hints():
    @T.prim_func
    def main(A: T.Tensor((64,), T.float32)):
        with T.Kernel(2, threads=32) as bx:
            T.assume(bx < 2)
            T.assume(A[bx] > 0)
            for i in T.Parallel(32):
                A[bx * 32 + i] = A[bx * 32 + i] + 1.0

    kernel = tilelang.compile(main, target="cpu")
    assert "tile.assume" not in main.script()
    a = -RNG.random(64).astype(np.float32)  # A[bx] > 0 does not hold
    want = a + 1
    kernel(a)
    np.testing.assert_array_equal(a, want)


def test_misuse_is_refused_at_the_users_line():
    with pytest.raises(T.TileLangError, match=r"test_assume.py:\d+: .*false"):
        @T.prim_func
        def main(A: T.Tensor((4,), T.float32)):
            with T.Kernel(1, threads=4):
                T.assume(False)


def test_a_broken_promise_on_the_gpu(cuda_torch):
    torch = cuda_torch
    kernel = tilelang.compile(scaled(), target="cuda -arch=sm_90a")
    a = torch.randn(256, device="cuda")
    b = torch.full_like(a, float("nan"))
    kernel(a, b, 3.0)
    torch.cuda.synchronize()
    torch.testing.assert_close(b, a * 3)
    bad = torch.randn(6, device="cuda")
    out = torch.full_like(bad, float("nan"))
    with pytest.raises(RuntimeError, match=re.escape("Assume: N % 4 == 0")):
        kernel(bad, out, 3.0)
    torch.cuda.synchronize()
    assert torch.isnan(out).all()
