"""T.isnan, T.isinf and T.isfinite (TileLang's float classification) on
NaNs of both signs, infinities, the largest finite values, subnormals and
zeros, against numpy; integers are finite."""

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T

RNG = np.random.default_rng()


def _specials(dtype):
    info = np.finfo(dtype)
    values = [np.nan, -np.nan, np.inf, -np.inf, info.max, -info.max,
              info.smallest_subnormal, -info.tiny, 0.0, -0.0, 1.0, -2.5]
    values += list(RNG.standard_normal(64 - len(values)) * 100)
    out = np.array(values, dtype=dtype)
    RNG.shuffle(out)
    return out


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_float_classes_match_numpy(dtype):
    @T.prim_func
    def main(X: T.Tensor((64,), dtype), Y: T.Tensor((3, 64), T.int32)):
        with T.Kernel(1, threads=64):
            for i in T.Parallel(64):
                Y[0, i] = T.if_then_else(T.isnan(X[i]), 1, 0)
                Y[1, i] = T.if_then_else(T.isinf(X[i]), 1, 0)
                Y[2, i] = T.if_then_else(T.isfinite(X[i]), 1, 0)

    x = _specials(dtype)
    y = np.full((3, 64), -7, np.int32)
    tilelang.compile(main, target="cpu")(x, y)
    np.testing.assert_array_equal(y[0], np.isnan(x).astype(np.int32))
    np.testing.assert_array_equal(y[1], np.isinf(x).astype(np.int32))
    np.testing.assert_array_equal(y[2], np.isfinite(x).astype(np.int32))


def test_integers_are_finite():
    @T.prim_func
    def main(X: T.Tensor((8,), T.int32), Y: T.Tensor((8,), T.int32)):
        with T.Kernel(1, threads=8):
            for i in T.Parallel(8):
                Y[i] = (T.if_then_else(T.isfinite(X[i]), 4, 0)
                        + T.if_then_else(T.isnan(X[i]), 2, 0)
                        + T.if_then_else(T.isinf(X[i]), 1, 0))

    y = np.zeros(8, np.int32)
    tilelang.compile(main, target="cpu")(np.arange(8, dtype=np.int32), y)
    np.testing.assert_array_equal(y, np.full(8, 4, np.int32))


def test_float_classes_compile_for_sm90a():
    @T.prim_func
    def main(X: T.Tensor((128,), T.float32), Y: T.Tensor((128,), T.int32)):
        with T.Kernel(1, threads=128):
            for i in T.Parallel(128):
                Y[i] = T.if_then_else(T.isfinite(X[i]), 1, 0)

    ptx = tilelang.compile(main, target="cuda -arch=sm_90a").get_kernel_source("ptx")
    assert "setp" in ptx


def test_float_classes_on_the_gpu(cuda_torch):
    torch = cuda_torch

    @T.prim_func
    def main(X: T.Tensor((64,), T.float32), Y: T.Tensor((3, 64), T.int32)):
        with T.Kernel(1, threads=64):
            for i in T.Parallel(64):
                Y[0, i] = T.if_then_else(T.isnan(X[i]), 1, 0)
                Y[1, i] = T.if_then_else(T.isinf(X[i]), 1, 0)
                Y[2, i] = T.if_then_else(T.isfinite(X[i]), 1, 0)

    x = torch.from_numpy(_specials("float32")).cuda()
    y = torch.full((3, 64), -7, dtype=torch.int32, device="cuda")
    tilelang.compile(main, target="cuda -arch=sm_90a")(x, y)
    assert torch.equal(y[0], torch.isnan(x).int())
    assert torch.equal(y[1], torch.isinf(x).int())
    assert torch.equal(y[2], torch.isfinite(x).int())


@pytest.mark.parametrize("dtype, bits", [
    ("float16", 0x7C00), ("bfloat16", 0x7F80), ("float32", 0x7F800000),
    ("float64", 0x7FF0000000000000), ("float8_e5m2", 0x7C)])
def test_infinity_of_every_float_with_one(dtype, bits):
    """T.infinity(dtype) (TileLang's test_infinity): +inf and -inf read
    back as float64, and +inf's bit pattern in the type's own width."""
    width = {"float16": 16, "bfloat16": 16, "float32": 32, "float64": 64,
             "float8_e5m2": 8}[dtype]
    unsigned = "uint%d" % width

    @T.prim_func
    def main(Out: T.Tensor((2,), T.float64), Bits: T.Tensor((1,), unsigned)):
        with T.Kernel(1, threads=1):
            Out[0] = T.cast(T.infinity(dtype), T.float64)
            Out[1] = T.cast(-T.infinity(dtype), T.float64)
            Bits[0] = T.reinterpret(T.infinity(dtype), unsigned)

    out = np.zeros(2, np.float64)
    pattern = np.zeros(1, getattr(np, unsigned))
    tilelang.compile(main, target="cpu")(out, pattern)
    assert out[0] == np.inf and out[1] == -np.inf
    assert int(pattern[0]) == bits


@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float4_e2m1fn"])
def test_infinity_of_a_float_without_one_is_refused(dtype):
    with pytest.raises(T.TileLangError, match="%s has no infinity" % dtype):
        @T.prim_func
        def main(Out: T.Tensor((1,), T.float32)):
            with T.Kernel(1, threads=1):
                Out[0] = T.cast(T.infinity(dtype), T.float32)
