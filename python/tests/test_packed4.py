"""4-bit element types (T.float4_e2m1fn, T.int4) in global tensors: two
elements per byte, the even one in the low nibble, as TileLang and torch's
float4_e2m1fn_x2 store them. The kernel takes the bytes (int8 or uint8
arrays whose last dimension is half the tensor's); its symbolic sizes and
strides count elements. Kernels run on the CPU against numpy references
written here from the formats' definitions, on fresh random bytes, outputs
poisoned first."""

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T

RNG = np.random.default_rng()


def fp4_value(code):
    """The value of the 4-bit float code (OCP E2M1: sign, 2 exponent bits
    of bias 1, 1 mantissa bit; no infinities or NaNs)."""
    sign = -1.0 if code & 8 else 1.0
    exponent, mantissa = (code >> 1) & 3, code & 1
    if exponent == 0:
        return sign * mantissa * 0.5
    return sign * (1 + mantissa / 2) * 2.0 ** (exponent - 1)


FP4_VALUES = np.array([fp4_value(c) for c in range(16)], dtype=np.float32)


def fp4_code(x):
    """The code of the 4-bit float nearest to x (ties to the even code),
    saturating at +-6."""
    magnitudes = FP4_VALUES[:8]
    a = min(abs(float(x)), 6.0)
    distances = np.abs(magnitudes - a)
    best = np.flatnonzero(distances == distances.min())
    code = int(best[0]) if len(best) == 1 else int(best[best % 2 == 0][0])
    negative = np.signbit(np.float32(x))
    return code | (8 if negative else 0)


def unpack(bytes_):
    """The nibbles of a byte array, the low one first: last dimension x2."""
    b = bytes_.view(np.uint8)
    out = np.empty(b.shape[:-1] + (b.shape[-1] * 2,), dtype=np.uint8)
    out[..., 0::2] = b & 15
    out[..., 1::2] = b >> 4
    return out


def pack(nibbles):
    n = nibbles.astype(np.uint8)
    return (n[..., 0::2] | (n[..., 1::2] << 4)).astype(np.uint8)


def test_fp4_reads_decode_every_code():
    """Element reads of a packed fp4 tensor, converted to f32: every code
    in both nibble positions."""
    M, N = 16, 64

    @T.prim_func
    def main(A: T.Tensor((M, N), T.float4_e2m1fn), B: T.Tensor((M, N), "float32")):
        with T.Kernel(M, threads=32) as bx:
            for j in T.serial(N):
                B[bx, j] = A[bx, j]

    kernel = tilelang.compile(main, target="cpu")
    a = RNG.integers(0, 256, (M, N // 2), dtype=np.uint8)
    a[0, :8] = np.arange(16, dtype=np.uint8).reshape(8, 2) @ [1, 16]  # every code, both halves
    b = np.full((M, N), np.nan, dtype=np.float32)
    kernel(a, b)
    expected = FP4_VALUES[unpack(a)]
    np.testing.assert_array_equal(b, expected)
    # Signed zeros too: code 8 is -0.
    assert np.array_equal(np.signbit(b), np.signbit(expected))


def test_fp4_writes_round_to_nearest_even_and_saturate():
    """f32 values stored into a packed fp4 tensor: ties go to the even
    code, magnitudes above 6 saturate, both nibbles of every byte are
    written without disturbing each other."""
    M, N = 8, 128
    x = RNG.uniform(-8, 8, (M, N)).astype(np.float32)
    ties = np.array([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 7.0, 100.0, 0.0],
                    dtype=np.float32)
    x[0, :10], x[1, :10] = ties, -ties

    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), A: T.Tensor((M, N), T.float4_e2m1fn)):
        with T.Kernel(M, threads=32) as bx:
            for j in T.serial(N):
                A[bx, j] = X[bx, j]

    kernel = tilelang.compile(main, target="cpu")
    a = np.full((M, N // 2), 0x77, dtype=np.uint8)
    kernel(x, a)
    expected = np.vectorize(fp4_code)(x).astype(np.uint8)
    np.testing.assert_array_equal(unpack(a), expected)


def test_fp4_copy_keeps_bits_and_scatter_by_index():
    """TileLang's scatter of fp4 rows through a permutation: element by
    element, the bytes of each row arrive unchanged (odd elements write
    the high nibble of the byte their even neighbour writes the low one
    of)."""
    n = 64

    @tilelang.jit(out_idx=None)
    def scatter(src, dst, perm):
        nv = T.dynamic("n")
        src: T.Tensor[(nv, 128), T.float4_e2m1fn]
        dst: T.Tensor[(nv, 128), T.float4_e2m1fn]
        perm: T.Tensor[(nv,), T.int32]
        with T.Kernel(nv, threads=32) as i:
            for k in T.serial(128):
                dst[perm[i], k] = src[i, k]

    src = RNG.integers(0, 256, (n, 64), dtype=np.uint8).view(np.int8)
    dst = np.zeros((n, 64), dtype=np.int8)
    perm = RNG.permutation(n).astype(np.int32)
    scatter(src, dst, perm)
    expected = np.empty_like(src)
    expected[perm] = src
    np.testing.assert_array_equal(dst, expected)


def test_int4_reads_are_signed_and_writes_keep_the_low_bits():
    M, N = 4, 32

    @T.prim_func
    def main(A: T.Tensor((M, N), T.int4), B: T.Tensor((M, N), "int32"),
             C: T.Tensor((M, N), T.int4)):
        with T.Kernel(M, threads=32) as bx:
            for j in T.serial(N):
                B[bx, j] = A[bx, j]
                C[bx, j] = B[bx, j] * 3 + 1

    kernel = tilelang.compile(main, target="cpu")
    a = RNG.integers(-128, 128, (M, N // 2), dtype=np.int8)
    b = np.full((M, N), 12345, dtype=np.int32)
    c = np.zeros((M, N // 2), dtype=np.int8)
    kernel(a, b, c)
    nibbles = unpack(a).astype(np.int32)
    values = np.where(nibbles >= 8, nibbles - 16, nibbles)
    np.testing.assert_array_equal(b, values)
    np.testing.assert_array_equal(unpack(c), ((values * 3 + 1) & 15).astype(np.uint8))


def test_symbolic_sizes_count_elements():
    """TileLang's subtype bindings: a symbol in the last dimension is twice
    the bytes (n from bytes n/2); one in an expression of it is solved in
    elements (x (m, n*2) and y (m*2, n) from bytes (m, n) and (2m, n/2));
    outputs of packed types are allocated as their bytes."""
    @tilelang.jit
    def widths(x, y):
        m = T.dynamic("m")
        n = T.dynamic("n")
        x: T.Tensor[(m, n * 2), T.float4_e2m1fn]
        y: T.Tensor[(m * 2, n), T.float4_e2m1fn]
        out = T.empty((4,), T.int32)
        z = T.empty((m, n), T.float4_e2m1fn)
        with T.Kernel(1, threads=1):
            out[0] = m
            out[1] = n
            out[2] = x.shape[1]
            out[3] = y.shape[1]
            for i in T.serial(m):
                for j in T.serial(n):
                    z[i, j] = y[i * 2, j]
        return out, z

    m, n = 3, 16
    x = RNG.integers(0, 256, (m, n), dtype=np.uint8)
    y = RNG.integers(0, 256, (2 * m, n // 2), dtype=np.uint8)
    out, z = widths(x, y)
    np.testing.assert_array_equal(out, [m, n, 2 * n, n])
    assert z.shape == (m, n // 2) and z.dtype == np.int8
    np.testing.assert_array_equal(z.view(np.uint8), y[0::2])


def test_dynamic_strides_count_elements():
    """T.StridedTensor of packed elements with symbolic strides: the row
    stride in elements is twice the bytes'; a row-sliced array is used in
    place."""
    @tilelang.jit(out_idx=None)
    def copy_rows(src, dst):
        m = T.dynamic("m")
        s = T.dynamic("s")
        src: T.StridedTensor[(m, 32), (s, 1), T.float4_e2m1fn]
        dst: T.Tensor[(m, 33), T.int32]
        with T.Kernel(m, threads=1) as i:
            dst[i, 32] = s
            for j in T.serial(32):
                dst[i, j] = T.reinterpret(src[i, j], "int4")

    big = RNG.integers(0, 256, (8, 40), dtype=np.uint8)
    view = big[::2, :16]
    dst = np.zeros((4, 33), dtype=np.int32)
    copy_rows(view, dst)
    assert (dst[:, 32] == 2 * view.strides[0]).all()
    nibbles = unpack(np.ascontiguousarray(view)).astype(np.int32)
    np.testing.assert_array_equal(dst[:, :32], np.where(nibbles >= 8, nibbles - 16, nibbles))


def test_packed_tensor_errors():
    def traced(shape, dtype=T.float4_e2m1fn):
        @T.prim_func
        def main(A: T.Tensor(shape, dtype)):
            with T.Kernel(1, threads=32):
                B = T.alloc_shared((4, 4), "float16")
                T.copy(A, B)
        return main

    with pytest.raises(T.TileLangError, match="last dimension .* even; got 5"):
        traced((4, 5))
    with pytest.raises(T.TileLangError, match=r"test_packed4.py:\d+: A holds "
                       "float4_e2m1fn elements packed two per byte.*T.copy"):
        traced((4, 4))

    with pytest.raises(T.TileLangError, match="on-chip tiles of them are not supported"):
        @T.prim_func
        def tile(A: T.Tensor((4, 4), "float16")):
            with T.Kernel(1, threads=32):
                T.alloc_shared((4, 4), T.float4_e2m1fn)

    with pytest.raises(T.TileLangError, match="stride 1 along its last dimension"):
        @T.prim_func
        def strided(A: T.StridedTensor((4, 4), (8, 2), T.float4_e2m1fn)):
            with T.Kernel(1, threads=1):
                A[0, 0] = 1.0

    @T.prim_func
    def fill(A: T.Tensor((2, 8), T.float4_e2m1fn)):
        with T.Kernel(1, threads=1):
            A[0, 0] = 1.0

    kernel = tilelang.compile(fill, target="cpu")
    with pytest.raises(tilelang.TileError, match="bytes of packed 4-bit elements"):
        kernel(np.zeros((2, 4), dtype=np.int16))
    with pytest.raises(tilelang.TileError, match="dimension 1 must be 4"):
        kernel(np.zeros((2, 8), dtype=np.uint8))


def test_fp4_arithmetic_goes_through_f32():
    """Arithmetic on fp4 values promotes as TileLang's does: fp4 + f32 is
    an f32 sum; min/max and comparisons of two fp4 values choose one."""
    N = 64

    @T.prim_func
    def main(A: T.Tensor((N,), T.float4_e2m1fn), B: T.Tensor((N,), T.float4_e2m1fn),
             S: T.Tensor((N,), "float32"), M: T.Tensor((N,), T.float4_e2m1fn),
             L: T.Tensor((N,), "int32")):
        with T.Kernel(1, threads=1):
            for i in T.serial(N):
                S[i] = A[i] + T.float32(0.25)
                M[i] = T.max(A[i], B[i])
                L[i] = T.if_then_else(A[i] < B[i], 1, 0)

    kernel = tilelang.compile(main, target="cpu")
    a = RNG.integers(0, 256, N // 2, dtype=np.uint8)
    b = RNG.integers(0, 256, N // 2, dtype=np.uint8)
    s = np.full(N, np.nan, dtype=np.float32)
    m = np.zeros(N // 2, dtype=np.uint8)
    lt = np.full(N, 7, dtype=np.int32)
    kernel(a, b, s, m, lt)
    va, vb = FP4_VALUES[unpack(a)], FP4_VALUES[unpack(b)]
    np.testing.assert_array_equal(s, va + np.float32(0.25))
    np.testing.assert_array_equal(FP4_VALUES[unpack(m)], np.maximum(va, vb))
    np.testing.assert_array_equal(lt, (va < vb).astype(np.int32))


def test_copy_between_global_tensors_converts_elements():
    """T.copy of a whole packed tensor to a global f16 tensor and back
    (element by element): decoded exactly, re-encoded to the same codes."""
    M, N = 8, 32

    @T.prim_func
    def main(A: T.Tensor((M, N), T.float4_e2m1fn), B: T.Tensor((M, N), "float16"),
             C: T.Tensor((M, N), T.float4_e2m1fn)):
        with T.Kernel(1, threads=32):
            T.copy(A, B)
            T.copy(B, C)

    kernel = tilelang.compile(main, target="cpu")
    a = RNG.integers(0, 256, (M, N // 2), dtype=np.uint8)
    b = np.full((M, N), np.nan, dtype=np.float16)
    c = np.zeros((M, N // 2), dtype=np.uint8)
    kernel(a, b, c)
    np.testing.assert_array_equal(b, FP4_VALUES[unpack(a)].astype(np.float16))
    np.testing.assert_array_equal(c, a)
