"""Unsigned integers (T.uint8 .. T.uint64): TileLang's (C's) meaning of
their arithmetic, comparisons and conversions, at the kernel boundary
(numpy arrays and scalars of the unsigned types, their ranges checked), in
T.copy conversions and tile reductions. Kernels run on the CPU against
numpy on fresh random inputs, outputs poisoned first."""

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T

RNG = np.random.default_rng()
N = 256


def poisoned(dtype, n=N):
    return np.full(n, np.iinfo(dtype).max // 3 if np.dtype(dtype).kind in "iu"
                   else np.nan, dtype=dtype)


def full_range(dtype, n=N):
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "uint32", "uint64"])
def test_arithmetic_and_comparisons(dtype):
    """Division, remainder, right shift, min/max and comparisons of
    unsigned values (the large ones a signed reading would make negative),
    and wrap-around of + - * as numpy's."""
    bits = np.dtype(dtype).itemsize * 8

    @T.prim_func
    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype),
             Q: T.Tensor((N,), dtype), R: T.Tensor((N,), dtype),
             S: T.Tensor((N,), dtype), M: T.Tensor((N,), dtype),
             W: T.Tensor((N,), dtype), L: T.Tensor((N,), "int32")):
        with T.Kernel(2, threads=128) as bx:
            for i in T.Parallel(128):
                a = A[bx * 128 + i]
                b = B[bx * 128 + i]
                Q[bx * 128 + i] = a // b
                R[bx * 128 + i] = a % b
                S[bx * 128 + i] = a >> (bits - 3)
                M[bx * 128 + i] = T.max(a, b) - T.min(a, b)
                W[bx * 128 + i] = a * b + a - b
                L[bx * 128 + i] = T.if_then_else(a < b, 1, 0) + \
                    T.if_then_else(a >= (1 << (bits - 1)), 2, 0)

    kernel = tilelang.compile(main, target="cpu")
    a, b = full_range(dtype), full_range(dtype)
    b[b == 0] = 1
    outs = [poisoned(dtype) for _ in range(5)] + [poisoned(np.int32)]
    kernel(a, b, *outs)
    with np.errstate(over="ignore"):
        expected = [a // b, a % b, a >> np.array(bits - 3, dtype),
                    np.maximum(a, b) - np.minimum(a, b), a * b + a - b,
                    (a < b).astype(np.int32) +
                    2 * (a >= (1 << (bits - 1))).astype(np.int32)]
    for name, got, want in zip("QRSMWL", outs, expected):
        np.testing.assert_array_equal(got, want, err_msg=name)


def test_conversions_follow_c():
    """An unsigned value widens with zeros and becomes the float of its
    value; a signed one widens by its sign, also into an unsigned type; one
    width of the other sign keeps the bits; a float converts to the
    unsigned integer it holds."""

    @T.prim_func
    def main(U: T.Tensor((N,), "uint8"), I: T.Tensor((N,), "int8"),
             F: T.Tensor((N,), "float32"),
             UI: T.Tensor((N,), "int32"), IU: T.Tensor((N,), "uint32"),
             UF: T.Tensor((N,), "float32"), US: T.Tensor((N,), "int8"),
             FU: T.Tensor((N,), "uint16"), U64: T.Tensor((N,), "uint64")):
        with T.Kernel(1, threads=128):
            for i in T.Parallel(N):
                UI[i] = T.cast(U[i], "int32")
                IU[i] = T.cast(I[i], "uint32")
                UF[i] = T.cast(U[i], "float32")
                US[i] = T.cast(U[i], "int8")
                FU[i] = T.cast(F[i], "uint16")
                U64[i] = T.cast(T.cast(U[i], "uint32") << 24, "uint64") * 256

    kernel = tilelang.compile(main, target="cpu")
    u, i = full_range(np.uint8), full_range(np.int8)
    f = RNG.integers(0, 65536, N).astype(np.float32)
    outs = [poisoned(t) for t in (np.int32, np.uint32, np.float32, np.int8,
                                  np.uint16, np.uint64)]
    kernel(u, i, f, *outs)
    expected = [u.astype(np.int32), i.astype(np.uint32), u.astype(np.float32),
                u.view(np.int8), f.astype(np.uint16),
                (u.astype(np.uint32) << np.uint32(24)).astype(np.uint64) * 256]
    for got, want in zip(outs, expected):
        np.testing.assert_array_equal(got, want)


def test_promotion_of_mixed_signedness():
    """TileLang's (TVM's) rules: the wider type wins; of one width, the
    unsigned one. A literal takes the other operand's type."""

    @T.prim_func
    def main(U8: T.Tensor((N,), "uint8"), I8: T.Tensor((N,), "int8"),
             I16: T.Tensor((N,), "int16"), A: T.Tensor((N,), "int32"),
             B: T.Tensor((N,), "int32"), C: T.Tensor((N,), "int32")):
        with T.Kernel(1, threads=128):
            for i in T.Parallel(N):
                # uint8 + int8 is a uint8 sum (wraps), then widened by zeros.
                A[i] = T.cast(U8[i] + I8[i], "int32")
                # int16 + uint8: an int16 sum of the uint8's value.
                B[i] = T.cast(I16[i] + U8[i], "int32")
                # A literal in the uint8 type: 250 + 10 wraps to 4.
                C[i] = T.cast(U8[i] + 10, "int32")

    kernel = tilelang.compile(main, target="cpu")
    u8, i8 = full_range(np.uint8), full_range(np.int8)
    i16 = RNG.integers(-1000, 1000, N).astype(np.int16)
    a, b, c = (poisoned(np.int32) for _ in range(3))
    kernel(u8, i8, i16, a, b, c)
    np.testing.assert_array_equal(a, (u8 + i8.view(np.uint8)).astype(np.int32))
    np.testing.assert_array_equal(b, (i16 + u8.astype(np.int16)).astype(np.int32))
    np.testing.assert_array_equal(c, (u8 + np.uint8(10)).astype(np.int32))


def test_scalars_and_outputs_at_the_boundary():
    """Unsigned scalars up to their type's maximum (uint64's above
    INT64_MAX); out-of-range values and signed arrays are refused naming
    the argument; outputs (out_idx) come back as unsigned arrays."""

    @T.prim_func
    def main(A: T.Tensor((N,), "uint32"), s: T.uint32, t: T.uint64,
             B: T.Tensor((N,), "uint32"), C: T.Tensor((N,), "uint64")):
        with T.Kernel(1, threads=128):
            for i in T.Parallel(N):
                B[i] = A[i] + s
                C[i] = T.cast(A[i], "uint64") ^ t

    kernel = tilelang.compile(main, out_idx=[3, 4], target="cpu")
    a = full_range(np.uint32)
    b, c = kernel(a, 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF)
    assert b.dtype == np.uint32 and c.dtype == np.uint64
    np.testing.assert_array_equal(b, a + np.uint32(0xFFFFFFFF))
    np.testing.assert_array_equal(c, a.astype(np.uint64) ^ np.uint64(2**64 - 1))
    b, c = kernel(a, np.uint32(7), np.uint64(2**63 + 5))
    np.testing.assert_array_equal(c, a.astype(np.uint64) ^ np.uint64(2**63 + 5))
    with pytest.raises(tilelang.TileError, match=r"'s'.*-1 is out of the range of ui32"):
        kernel(a, -1, 0)
    with pytest.raises(tilelang.TileError, match=r"'s'.*4294967296 is out of the range of ui32"):
        kernel(a, 2**32, 0)
    with pytest.raises(tilelang.TileError, match=r"'t'.*-1 is out of the range of uint64"):
        kernel(a, 0, -1)
    with pytest.raises(tilelang.TileError, match=r"'t'.*is out of the range of uint64"):
        kernel(a, 0, 2**64)
    with pytest.raises(tilelang.TileError, match=r"'A'.*expected element type ui32, got i32"):
        kernel(a.view(np.int32), 0, 0)


def test_copies_convert_as_casts():
    """T.copy between tiles of other signedness or kind (uint8 -> int32,
    int16 -> float32, uint8 -> float32, the conversions the tile ops do not
    make) converts each element as T.cast does, edge tiles included."""
    M, BLOCK = 200, 64

    @T.prim_func
    def main(A: T.Tensor((M,), "uint8"), H: T.Tensor((M,), "int16"),
             W: T.Tensor((M,), "int32"), F: T.Tensor((M,), "float32"),
             G: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, BLOCK), threads=64) as bx:
            wide = T.alloc_fragment((BLOCK,), "int32")
            halves = T.alloc_shared((BLOCK,), "int16")
            floats = T.alloc_fragment((BLOCK,), "float32")
            T.copy(A[bx * BLOCK], wide)
            T.copy(wide, W[bx * BLOCK])
            T.copy(H[bx * BLOCK], halves)
            T.copy(halves, floats)
            T.copy(floats, F[bx * BLOCK])
            T.copy(A[bx * BLOCK:(bx + 1) * BLOCK], G[bx * BLOCK:(bx + 1) * BLOCK])

    kernel = tilelang.compile(main, target="cpu")
    a = full_range(np.uint8, M)
    h = full_range(np.int16, M)
    w, f, g = poisoned(np.int32, M), poisoned(np.float32, M), poisoned(np.float32, M)
    kernel(a, h, w, f, g)
    np.testing.assert_array_equal(w, a.astype(np.int32))
    np.testing.assert_array_equal(f, h.astype(np.float32))
    np.testing.assert_array_equal(g, a.astype(np.float32))


def test_sums_and_bitwise_reductions_of_unsigned_tiles():
    """Reductions that do not depend on the sign (sums and bitwise ops in
    the same type) run; a uint32 sum wraps as numpy's."""

    @T.prim_func
    def main(A: T.Tensor((4, 64), "uint32"), S: T.Tensor((4,), "uint32"),
             O: T.Tensor((4,), "uint32"), X: T.Tensor((4,), "uint32")):
        with T.Kernel(1, threads=64):
            tile = T.alloc_fragment((4, 64), "uint32")
            s = T.alloc_fragment((4,), "uint32")
            o = T.alloc_fragment((4,), "uint32")
            x = T.alloc_fragment((4,), "uint32")
            T.copy(A, tile)
            T.reduce_sum(tile, s, dim=1)
            T.reduce_bitor(tile, o, dim=1)
            T.reduce_bitxor(tile, x, dim=1)
            T.copy(s, S)
            T.copy(o, O)
            T.copy(x, X)

    kernel = tilelang.compile(main, target="cpu")
    a = full_range(np.uint32, 256).reshape(4, 64)
    s, o, x = (poisoned(np.uint32, 4) for _ in range(3))
    kernel(a, s, o, x)
    np.testing.assert_array_equal(s, a.sum(axis=1, dtype=np.uint32))
    np.testing.assert_array_equal(o, np.bitwise_or.reduce(a, axis=1))
    np.testing.assert_array_equal(x, np.bitwise_xor.reduce(a, axis=1))


def test_what_the_tile_ops_cannot_do_is_refused_at_the_users_line():
    def trace(body):
        @T.prim_func
        def main(A: T.Tensor((64,), "uint8"), B: T.Tensor((1,), "uint8")):
            with T.Kernel(1, threads=64):
                body(A, B)

    def reduce_max(A, B):
        tile = T.alloc_fragment((64,), "uint8")
        out = T.alloc_fragment((1,), "uint8")
        T.copy(A, tile)
        T.reduce_max(tile, out, dim=0)

    with pytest.raises(T.TileLangError, match=r"test_unsigned.py:\d+: T.reduce_max of "
                       r"unsigned integers \(uint8 to uint8\) is not supported"):
        trace(reduce_max)

    def widening_sum(A, B):
        tile = T.alloc_fragment((64,), "uint8")
        out = T.alloc_fragment((1,), "int32")
        T.copy(A, tile)
        T.reduce_sum(tile, out, dim=0)

    with pytest.raises(T.TileLangError, match=r"T.reduce_sum of unsigned integers "
                       r"\(uint8 to int32\)"):
        trace(widening_sum)

    def constant_out_of_range(A, B):
        B[0] = T.uint8(300)

    with pytest.raises(T.TileLangError, match="300 is out of the range of uint8"):
        trace(constant_out_of_range)

    def gemm(A, B):
        a = T.alloc_shared((16, 16), "uint8")
        c = T.alloc_fragment((16, 16), "int32")
        T.gemm(a, a, c)

    with pytest.raises(T.TileLangError, match="T.gemm of unsigned integers"):
        trace(gemm)


def test_reinterpret_keeps_the_bits():
    # TileLang's float tricks (DeepSeek's act_quant and top-k selectors):
    # a float's bits as an unsigned integer, changed, and read back.
    @T.prim_func
    def main(X: T.Tensor((64,), T.float32), B: T.Tensor((64,), T.uint32),
             H: T.Tensor((64,), T.int16), Y: T.Tensor((64,), T.float32)):
        with T.Kernel(1, threads=64) as _:
            for i in T.Parallel(64):
                bits = T.reinterpret(X[i], T.uint32)
                B[i] = bits
                H[i] = T.reinterpret(T.cast(X[i], T.float16), T.int16)
                # Clearing the sign bit: |x|.
                Y[i] = T.reinterpret(bits & T.uint32(0x7FFFFFFF), T.float32)

    kernel = tilelang.compile(main, target="cpu")
    x = np.random.default_rng().standard_normal(64).astype(np.float32)
    x[:3] = [-0.0, np.inf, -np.inf]
    b, h, y = poisoned("uint32", 64), poisoned("int16", 64), \
        np.full(64, np.nan, np.float32)
    kernel(x, b, h, y)
    np.testing.assert_array_equal(b, x.view(np.uint32))
    np.testing.assert_array_equal(h, x.astype(np.float16).view(np.int16))
    np.testing.assert_array_equal(y, np.abs(x))


def test_reinterpret_refuses_other_widths_and_handles():
    with pytest.raises(T.TileLangError, match=r"test_unsigned.py:\d+: "
                                              r"T.reinterpret keeps the bits"):
        @T.prim_func
        def main(X: T.Tensor((4,), T.float32), Y: T.Tensor((4,), T.int16)):
            with T.Kernel(1, threads=4) as _:
                for i in T.Parallel(4):
                    Y[i] = T.reinterpret(X[i], T.int16)
    with pytest.raises(T.TileLangError, match="no pointer values"):
        T.reinterpret(T.uint64(0), dtype="handle")
