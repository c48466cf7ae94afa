"""float8_e8m0fnu, the OCP MX scale factor: byte b is 2^(b - 127) and 255
is NaN (no sign, no zero, no infinity). Conversions as torch's: to it, the
magnitude's float32 exponent, plus one where the dropped significand is
past one half (or exactly one half of a normal number), NaN for infinities,
NaNs and values that round past 2^127; from it, exact. Checked on the CPU
against a reference written from that rule (and, where torch is
installed, the rule against torch itself), and on the GPU against torch."""

import math
import struct

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T
from tilelang_mlir import _tilelang

import test_f8  # its byte-decoding kernel

N = 1024


def _decode(byte):
    byte = int(byte)  # not uint8 arithmetic: numpy 2 keeps byte - 127 in uint8
    return math.nan if byte == 255 else 2.0 ** (byte - 127)


def _encode(x):
    """The byte of float32 `x`, from the rule above."""
    bits = struct.unpack("<I", struct.pack("<f", float(np.float32(x))))[0]
    exponent = (bits >> 23) & 0xFF
    if exponent == 0xFF:
        return 255
    significand = bits & 0x7FFFFF  # the fraction below the leading bit
    half = 0x400000
    up = significand > half or (significand == half and exponent > 0)
    return exponent + up  # 254 + 1 = 255: NaN


def _values():
    """Every exponent at the significands where rounding changes, zeros,
    negatives, subnormals, the edges of the range and non-finite values."""
    values = [0.0, -0.0, math.inf, -math.inf, math.nan, 2.0 ** -149,
              2.0 ** -127, 1.5 * 2.0 ** -127, 1.1 * 2.0 ** -127,
              2.0 ** -126, 2.0 ** 127, 1.5 * 2.0 ** 127, 1.4 * 2.0 ** 127,
              3.4e38]
    ulp = 2.0 ** -23
    for e in range(-126, 128):
        for m in (1.0, 1.25, 1.5 - ulp, 1.5, 1.5 + ulp, 1.75, 2.0 - ulp):
            values += [m * 2.0 ** e, -m * 2.0 ** e]
    rng = np.random.default_rng()
    values += list(rng.standard_normal(64) * 10.0 ** rng.integers(-30, 30, 64))
    values = np.array(values, np.float32)
    return np.resize(values, -(-len(values) // N) * N)


def _round_trip_program(n):
    @T.prim_func
    def main(X: T.Tensor((n,), T.float32), B: T.Tensor((n,), T.uint8),
             Y: T.Tensor((n,), T.float32)):
        with T.Kernel(n // 256, threads=256) as bx:
            s = T.alloc_fragment((256,), T.float8_e8m0fnu)
            for i in T.Parallel(256):
                s[i] = T.cast(X[bx * 256 + i], T.float8_e8m0fnu)
            for i in T.Parallel(256):
                B[bx * 256 + i] = T.reinterpret(s[i], T.uint8)
                Y[bx * 256 + i] = T.cast(s[i], T.float32)

    return main


def test_every_byte_decodes_exactly():
    """Each of the 256 bytes through arith.extf to f32 and f64 (the 2^-127
    of byte 0 is an f32 subnormal)."""
    want = np.array([_decode(b) for b in range(256)])
    for out, dtype in (("f32", np.float32), ("f64", np.float64)):
        compiled = _tilelang.Kernel(
            test_f8.KERNEL.format(f8="f8E8M0FNU", out=out), "cpu")
        got = np.zeros(256, dtype)
        compiled.run(np.arange(256, dtype=np.uint8).view(np.int8), got)
        np.testing.assert_array_equal(got, want.astype(dtype))


def test_conversions_round_as_the_rule_on_the_cpu():
    x = _values()
    kernel = tilelang.compile(_round_trip_program(len(x)), target="cpu")
    b = np.zeros(len(x), np.uint8)
    y = np.zeros(len(x), np.float32)
    kernel(x, b, y)
    want = np.array([_encode(v) for v in x], np.uint8)
    wrong = np.flatnonzero(b != want)
    assert not len(wrong), [(float(x[i]), int(b[i]), int(want[i]))
                            for i in wrong[:8]]
    np.testing.assert_array_equal(
        y, np.array([_decode(v) for v in want], np.float32))


def test_constants_take_the_same_rule():
    values = [3.0, 1.5, 1.4, 0.0, -8.0, 2.0 ** -127, 2.0 ** 127, math.nan]

    @T.prim_func
    def main(B: T.Tensor((len(values),), T.uint8)):
        with T.Kernel(1, threads=1):
            for k, v in enumerate(values):
                B[k] = T.reinterpret(T.cast(v, T.float8_e8m0fnu), T.uint8)

    got = np.zeros(len(values), np.uint8)
    tilelang.compile(main, target="cpu")(got)
    assert list(got) == [_encode(v) for v in values]
    with pytest.raises(T.TileLangError, match="float8_e8m0fnu has no infinity"):
        @T.prim_func
        def infinite(B: T.Tensor((1,), T.uint8)):
            with T.Kernel(1, threads=1):
                B[0] = T.reinterpret(T.infinity(T.float8_e8m0fnu), T.uint8)


def _copy_program(n):
    @T.prim_func
    def copy(A: T.Tensor((n,), T.float8_e8m0fnu),
             C: T.Tensor((n,), T.float8_e8m0fnu)):
        with T.Kernel(n // 256, threads=256) as bx:
            T.copy(A[bx * 256:(bx + 1) * 256], C[bx * 256:(bx + 1) * 256])

    return copy


@pytest.mark.parametrize("target", ["sm_90a", "sm_80"])
def test_kernels_compile_for_nvidia(target):
    for program in (_round_trip_program(N), _copy_program(N)):
        ptx = tilelang.compile(program, target=target).get_kernel_source("ptx")
        assert ".entry" in ptx


def test_arrays_of_the_type_copy_exactly_on_the_cpu():
    """An ml_dtypes float8_e8m0fnu array in and out, every byte."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    if not hasattr(ml_dtypes, "float8_e8m0fnu"):
        pytest.skip("this ml_dtypes has no float8_e8m0fnu")
    bytes_ = np.random.default_rng().permutation(np.tile(np.arange(256, dtype=np.uint8), 4))
    a = bytes_.view(ml_dtypes.float8_e8m0fnu)
    c = np.full(len(a), 7, np.uint8).view(ml_dtypes.float8_e8m0fnu)  # poison
    tilelang.compile(_copy_program(len(a)), target="cpu")(a, c)
    np.testing.assert_array_equal(c.view(np.uint8), bytes_)


def test_the_rule_is_torchs():
    torch = pytest.importorskip("torch")
    if not hasattr(torch, "float8_e8m0fnu"):
        pytest.skip("this torch has no float8_e8m0fnu")
    x = _values()
    got = torch.from_numpy(x).to(torch.float8_e8m0fnu).view(torch.uint8).numpy()
    want = np.array([_encode(v) for v in x], np.uint8)
    np.testing.assert_array_equal(got, want)


def test_conversions_match_torch_on_the_gpu(cuda_torch):
    torch = cuda_torch
    if not hasattr(torch, "float8_e8m0fnu"):
        pytest.skip("this torch has no float8_e8m0fnu")
    x = torch.from_numpy(_values()).cuda()
    kernel = tilelang.compile(_round_trip_program(len(x)),
                              target="cuda -arch=sm_90a")
    b = torch.zeros(len(x), dtype=torch.uint8, device="cuda")
    y = torch.zeros(len(x), device="cuda")
    kernel(x, b, y)
    want = x.to(torch.float8_e8m0fnu)
    torch.testing.assert_close(b, want.view(torch.uint8), rtol=0, atol=0)
    torch.testing.assert_close(y, want.float(), rtol=0, atol=0, equal_nan=True)
    # A tensor of the type itself, in and out.
    e = x.to(torch.float8_e8m0fnu)
    c = tilelang.compile(_copy_program(len(x)), out_idx=-1,
                         target="cuda -arch=sm_90a")(e)
    assert c.dtype == torch.float8_e8m0fnu
    torch.testing.assert_close(c.view(torch.uint8), e.view(torch.uint8),
                               rtol=0, atol=0)
