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
