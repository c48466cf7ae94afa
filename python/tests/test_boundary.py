"""The Python boundary never loses data, writes read-only memory or
misreads a value: in-place outputs of any layout are updated, read-only and
foreign-byte-order arrays and out-of-range scalars are refused with an error
that names the argument (reliability classes 1-3 and 6)."""

import mmap
import os
import sys

import numpy as np
import pytest

import tilelang_mlir
import tilelang_mlir.language as T
from tilelang_mlir import TileError

M, N = T.symbolic("M"), T.symbolic("N")


@T.prim_func
def copy_add(A: T.Tensor((M, N), T.float32), B: T.Tensor((M, N), T.float32)):
    with T.Kernel(T.ceildiv(N, 32), T.ceildiv(M, 32), threads=128) as (bx, by):
        s = T.alloc_shared((32, 32), T.float32)
        T.copy(A[by * 32, bx * 32], s)
        for i, j in T.Parallel(32, 32):
            s[i, j] = s[i, j] + 1.0
        T.copy(s, B[by * 32, bx * 32])


@T.prim_func
def affine(A: T.Tensor((M,), T.float32), s: T.float32, n: T.int8,
           B: T.Tensor((M,), T.float32)):
    with T.Kernel(T.ceildiv(M, 64), threads=64) as bx:
        f = T.alloc_fragment((64,), T.float32)
        T.copy(A[bx * 64], f)
        for i in T.Parallel(64):
            f[i] = f[i] * s + T.cast(n, T.float32)
        T.copy(f, B[bx * 64])


@pytest.fixture(scope="module")
def inplace():
    return tilelang_mlir.compile(copy_add)          # no out_idx: B in place


@pytest.fixture(scope="module")
def scaled():
    return tilelang_mlir.compile(affine, out_idx=[3])


def test_the_kernel_knows_which_buffers_it_writes(inplace):
    assert [p["written"] for p in inplace.params] == [False, True]


# (base array, the view of it passed as the output) for each layout.
LAYOUTS = {
    "step slice": lambda base: base[::2, ::2],
    "transpose": lambda base: base[:35, :20].T,
    "fortran": lambda base: np.asfortranarray(base[:20, :35]),
    "negative stride": lambda base: base[19::-1, :35],
    "column slice": lambda base: base[:20, 5:40],
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_in_place_outputs_of_any_layout_are_written(inplace, layout):
    rng = np.random.default_rng(len(layout))
    a = rng.standard_normal((20, 35)).astype(np.float32)
    base = np.full((40, 70), -7, np.float32)
    b = LAYOUTS[layout](base)
    assert b.shape == (20, 35) and not b.flags.c_contiguous
    inplace(a, b)
    np.testing.assert_array_equal(b, a + 1)
    if np.shares_memory(b, base):
        # Exactly the view's elements changed.
        marker = np.zeros(base.shape, bool)
        LAYOUTS[layout](marker)[...] = True
        np.testing.assert_array_equal(base[~marker], -7)


def test_non_contiguous_inputs_are_read(inplace):
    a = np.random.default_rng(1).standard_normal((35, 20)).astype(np.float32).T
    b = np.zeros((20, 35), np.float32)
    inplace(a, b)
    np.testing.assert_array_equal(b, a + 1)


def test_read_only_outputs_are_refused(inplace, tmp_path):
    a = np.ones((4, 4), np.float32)
    frozen = np.zeros((4, 4), np.float32)
    frozen.flags.writeable = False
    raw = bytes(64)
    path = str(tmp_path / "ro.bin")
    np.zeros((4, 4), np.float32).tofile(path)
    mapped = np.memmap(path, np.float32, mode="r", shape=(4, 4))
    for target in (frozen, np.frombuffer(raw, np.float32).reshape(4, 4), mapped,
                   frozen[:, ::2]):
        with pytest.raises(TileError, match=r"'B'.*read-only"):
            inplace(a[:, :target.shape[1]].copy(), target)
    assert raw == bytes(64), "an immutable bytes object was written"
    assert not np.asarray(mapped).any()


def test_read_only_inputs_are_fine(inplace):
    a = np.full((4, 4), 2, np.float32)
    a.flags.writeable = False
    b = np.zeros((4, 4), np.float32)
    inplace(a, b)
    np.testing.assert_array_equal(b, 3)


def test_broadcast_views_cannot_take_outputs(inplace):
    b = np.broadcast_to(np.zeros((1, 4), np.float32), (4, 4))
    with pytest.raises(TileError, match="read-only|broadcast"):
        inplace(np.ones((4, 4), np.float32), b)
    shared = np.lib.stride_tricks.as_strided(np.zeros(4, np.float32), (4, 4), (0, 4),
                                             writeable=True)
    with pytest.raises(TileError, match="broadcast view"):
        inplace(np.ones((4, 4), np.float32), shared)


def test_foreign_byte_order_is_refused(scaled):
    foreign = ">f4" if sys.byteorder == "little" else "<f4"
    with pytest.raises(TileError, match=r"argument 0 \('A'\).*-endian"):
        scaled(np.arange(4, dtype=foreign), 1.0, 0)
    native = "<f4" if sys.byteorder == "little" else ">f4"
    np.testing.assert_array_equal(scaled(np.arange(4, dtype=native), 1.0, 0), np.arange(4))


def test_scalars_are_range_checked_not_truncated(scaled):
    a = np.ones(70, np.float32)
    np.testing.assert_array_equal(scaled(a, 2.0, -128), np.full(70, -126, np.float32))
    np.testing.assert_array_equal(scaled(a, 2.0, 127), np.full(70, 129, np.float32))
    for s, n, message in [(2.0, 128, r"128 is out of the range of i8 \(-128 to 127\)"),
                          (2.0, -129, "out of the range of i8"),
                          (2.0, 2 ** 70, "does not fit in 64 bits"),
                          (1e39, 3, r"overflows f32"),
                          (2.0, 2.5, "expected an integer"),
                          ("x", 1, "must be a number, got str")]:
        with pytest.raises(TileError, match=message):
            scaled(a, s, n)


def test_numpy_scalars_are_numbers(scaled):
    a = np.ones(8, np.float32)
    np.testing.assert_array_equal(scaled(a, np.float32(2.5), np.int8(5)), np.full(8, 7.5))
    np.testing.assert_array_equal(scaled(a, np.float64(1.0), np.int64(-3)), np.full(8, -2))
    np.testing.assert_array_equal(scaled(a, float("inf"), 0), np.full(8, np.inf))


def test_zero_size_arrays_run(inplace):
    for shape in [(0, 5), (5, 0), (0, 0)]:
        b = np.zeros(shape, np.float32)
        inplace(np.zeros(shape, np.float32), b)
    out = tilelang_mlir.compile(copy_add, out_idx=[1])(np.zeros((0, 7), np.float32))
    assert out.shape == (0, 7)


def test_a_wrong_rank_is_named_before_outputs_are_sized():
    kernel = tilelang_mlir.compile(copy_add, out_idx=[1])
    with pytest.raises(TileError, match=r"argument 'A' of copy_add: expected rank 2, got rank 1 \(shape 5\)"):
        kernel(np.zeros(5, np.float32))
