"""8-bit float conversions (tile-expand-f8) against a decoder written from
the formats' definitions: every one of the 256 bytes of f8E4M3FN and
f8E5M2, extended to f32 and f16 by a kernel on the CPU backend."""

import math

import numpy as np
import pytest

from tilelang_mlir import _tilelang

KERNEL = """
func.func @decode(%bytes: memref<256xi8>, %out: memref<256x{out}>) {{
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {{
    %t = tile.alloc_fragment : memref<256xi8, #tile.mem<fragment>>
    %f = tile.alloc_fragment : memref<256x{out}, #tile.mem<fragment>>
    tile.copy %bytes[%bx] to %t : memref<256xi8> to memref<256xi8, #tile.mem<fragment>>
    tile.parallel (%i) in (256) {{
      %b = memref.load %t[%i] : memref<256xi8, #tile.mem<fragment>>
      %x = arith.bitcast %b : i8 to {f8}
      %y = arith.extf %x : {f8} to {out}
      memref.store %y, %f[%i] : memref<256x{out}, #tile.mem<fragment>>
    }}
    tile.copy %f to %out[%bx] : memref<256x{out}, #tile.mem<fragment>> to memref<256x{out}>
  }}
  return
}}
"""


# The conversion done by a tile.copy from an f8 fragment to an f32 one
# (vectorized extf).
COPY_KERNEL = """
func.func @decode(%bytes: memref<256xi8>, %out: memref<256xf32>) {{
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(256) -> (%bx) {{
    %t = tile.alloc_fragment : memref<256xi8, #tile.mem<fragment>>
    %e = tile.alloc_fragment : memref<256x{f8}, #tile.mem<fragment>>
    %f = tile.alloc_fragment : memref<256xf32, #tile.mem<fragment>>
    tile.copy %bytes[%bx] to %t : memref<256xi8> to memref<256xi8, #tile.mem<fragment>>
    tile.parallel (%i) in (256) {{
      %b = memref.load %t[%i] : memref<256xi8, #tile.mem<fragment>>
      %x = arith.bitcast %b : i8 to {f8}
      memref.store %x, %e[%i] : memref<256x{f8}, #tile.mem<fragment>>
    }}
    tile.copy %e to %f : memref<256x{f8}, #tile.mem<fragment>> to memref<256xf32, #tile.mem<fragment>>
    tile.copy %f to %out[%bx] : memref<256xf32, #tile.mem<fragment>> to memref<256xf32>
  }}
  return
}}
"""


def reference(byte, fmt):
    """The value of one byte, from the format's definition."""
    sign = -1.0 if byte & 0x80 else 1.0
    if fmt == "f8E4M3FN":        # bias 7, 3 mantissa bits, no infinities
        exponent, mantissa = (byte >> 3) & 0xF, byte & 7
        if exponent == 15 and mantissa == 7:
            return math.copysign(math.nan, sign)
        if exponent == 0:
            return sign * mantissa / 8 * 2.0 ** -6
        return sign * (1 + mantissa / 8) * 2.0 ** (exponent - 7)
    exponent, mantissa = (byte >> 2) & 0x1F, byte & 3   # f8E5M2: bias 15
    if exponent == 31:
        return sign * math.inf if mantissa == 0 else math.copysign(math.nan, sign)
    if exponent == 0:
        return sign * mantissa / 4 * 2.0 ** -14
    return sign * (1 + mantissa / 4) * 2.0 ** (exponent - 15)


@pytest.mark.parametrize("fmt", ["f8E4M3FN", "f8E5M2"])
@pytest.mark.parametrize("out", ["f32", "f16"])
def test_every_byte_decodes_exactly(fmt, out):
    kernel = _tilelang.Kernel(KERNEL.format(f8=fmt, out=out), "cpu")
    bytes_ = np.arange(256, dtype=np.uint8).view(np.int8)
    result = np.full(256, 12345, np.float32 if out == "f32" else np.float16)
    kernel.run(bytes_, result)
    want = np.array([reference(b, fmt) for b in range(256)], np.float64)
    got = result.astype(np.float64)
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got[~nan], want[~nan])
    # Signs of zeros and NaNs survive too.
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("fmt", ["f8E4M3FN", "f8E5M2"])
def test_tile_copies_convert_every_byte(fmt):
    kernel = _tilelang.Kernel(COPY_KERNEL.format(f8=fmt), "cpu")
    result = np.full(256, 12345, np.float32)
    kernel.run(np.arange(256, dtype=np.uint8).view(np.int8), result)
    want = np.array([reference(b, fmt) for b in range(256)], np.float64)
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(result), nan)
    np.testing.assert_array_equal(result[~nan], want[~nan])


def test_arithmetic_on_f8_is_a_clear_error():
    source = """
func.func @bad(%out: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(4) -> (%bx) {
    %f = tile.alloc_fragment : memref<4xf8E4M3FN, #tile.mem<fragment>>
    %g = tile.alloc_fragment : memref<4xf32, #tile.mem<fragment>>
    tile.parallel (%i) in (4) {
      %x = memref.load %f[%i] : memref<4xf8E4M3FN, #tile.mem<fragment>>
      %y = arith.addf %x, %x : f8E4M3FN
      %z = arith.extf %y : f8E4M3FN to f32
      memref.store %z, %g[%i] : memref<4xf32, #tile.mem<fragment>>
    }
    tile.copy %g to %out[%bx] : memref<4xf32, #tile.mem<fragment>> to memref<4xf32>
  }
  return
}
"""
    kernel = _tilelang.Kernel(source, "cpu")
    with pytest.raises(_tilelang.TileError, match=r"'arith.addf' op on 8-bit floats"):
        kernel.run(np.zeros(4, np.float32))


PAIR_KERNEL = """
func.func @pairs(%a: memref<65536xi8>, %b: memref<65536xi8>, %out: memref<65536xi8>,
                 %lt: memref<65536xi8>) {{
  %c256 = arith.constant 256 : index
  tile.kernel grid(%c256) threads(256) -> (%bx) {{
    tile.parallel (%i) in (256) {{
      %c256i = arith.constant 256 : index
      %base = arith.muli %bx, %c256i : index
      %k = arith.addi %base, %i : index
      %x8 = memref.load %a[%k] : memref<65536xi8>
      %y8 = memref.load %b[%k] : memref<65536xi8>
      %x = arith.bitcast %x8 : i8 to {f8}
      %y = arith.bitcast %y8 : i8 to {f8}
      %m = arith.{op} %x, %y : {f8}
      %r = arith.bitcast %m : {f8} to i8
      memref.store %r, %out[%k] : memref<65536xi8>
      %c = arith.cmpf olt, %x, %y : {f8}
      %ci = arith.extui %c : i1 to i8
      memref.store %ci, %lt[%k] : memref<65536xi8>
    }}
  }}
  return
}}
"""


def _pick(op, a, b, fmt):
    """The byte an IEEE max/min of bytes a and b gives, from the decoded
    values: maximumf/minimumf return a NaN operand (a's first), maxnumf/
    minnumf the other operand; -0 orders below +0."""
    va, vb = reference(a, fmt), reference(b, fmt)
    if math.isnan(va) or math.isnan(vb):
        if op in ("maximumf", "minimumf"):
            return a if math.isnan(va) else b
        return b if math.isnan(va) else a
    key = lambda v: (v, not math.copysign(1.0, v) < 0)   # -0 < +0
    larger = a if key(va) >= key(vb) else b
    smaller = b if larger == a else a
    if key(va) == key(vb):
        larger = smaller = a
    return larger if op in ("maximumf", "maxnumf") else smaller


@pytest.mark.parametrize("fmt", ["f8E4M3FN", "f8E5M2"])
@pytest.mark.parametrize("op", ["maximumf", "minimumf", "maxnumf", "minnumf"])
def test_max_min_and_comparisons_of_every_pair(fmt, op):
    # T.max / T.min / T.clamp of FP8 values (TileLang's clamp test): the
    # operand the f32 op picks, for all 65536 pairs of bytes.
    kernel = _tilelang.Kernel(PAIR_KERNEL.format(f8=fmt, op=op), "cpu")
    a, b = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    a, b = a.ravel().astype(np.uint8), b.ravel().astype(np.uint8)
    out = np.full(65536, 0x55, np.uint8)
    lt = np.full(65536, 7, np.uint8)
    kernel.run(a.view(np.int8), b.view(np.int8), out.view(np.int8), lt.view(np.int8))
    want = np.array([_pick(op, int(x), int(y), fmt) for x, y in zip(a, b)], np.uint8)
    both_nan = np.array([math.isnan(reference(int(x), fmt)) and math.isnan(reference(int(y), fmt))
                         for x, y in zip(a, b)])
    got_nan = np.array([math.isnan(reference(int(v), fmt)) for v in out])
    # +0 against -0: the f32 op's choice, which is the backend's (the CPU
    # lowering of f32 maximumf does not order -0 below +0); either zero.
    zeros = np.isin(a, (0, 0x80)) & np.isin(b, (0, 0x80)) & (a != b)
    assert np.isin(out[zeros], (0, 0x80)).all()
    exact = ~both_nan & ~zeros
    np.testing.assert_array_equal(out[exact], want[exact])
    assert got_nan[both_nan].all()
    want_lt = np.array([reference(int(x), fmt) < reference(int(y), fmt)
                        for x, y in zip(a, b)], np.uint8)
    np.testing.assert_array_equal(lt, want_lt)


@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float8_e5m2"])
def test_max_min_clamp_of_fp8_values_compile_for_sm90(dtype):
    # TileLang's FP8 clamp kernel: T.max, T.min and T.clamp of FP8 elements
    # (refused as "cannot be lowered" before).
    import tilelang_mlir
    import tilelang_mlir.language as T

    @T.prim_func
    def main(A: T.Tensor((1024,), dtype), B: T.Tensor((1024,), dtype),
             C: T.Tensor((1024,), dtype)):
        with T.Kernel(8, threads=128) as bx:
            for i in T.Parallel(128):
                k = bx * 128 + i
                C[k] = T.clamp(T.max(A[k], B[k]), T.cast(-1.0, dtype),
                               T.cast(1.0, dtype))
    ptx = tilelang_mlir.compile(main, target="sm_90a").get_kernel_source("ptx")
    assert "max.NaN.f32" in ptx or "max.f32" in ptx
