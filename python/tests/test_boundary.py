"""The Python boundary never loses data, writes read-only memory or
misreads a value: in-place outputs of any layout are updated, read-only and
foreign-byte-order arrays and out-of-range scalars are refused with an error
that names the argument (reliability classes 1-3 and 6), for numpy arrays
and for DLPack producers (versioned capsules with read-only and copied
flags, old unversioned ones)."""

import mmap
import os
import re
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


def test_element_types_are_read_per_dtype_object(scaled):
    """Calls find an array's element type by its dtype object (cached after
    the first call): a foreign byte order after native calls is still
    refused, another type still named, and more distinct dtype objects than
    the cache keeps (dtypes with metadata are new objects) still run."""
    rng = np.random.default_rng()
    for k in range(80):
        a = rng.standard_normal(37).astype(np.dtype(np.float32, metadata={"k": k}))
        np.testing.assert_allclose(scaled(a, 3.0, 1), a * 3 + 1, rtol=1e-6)
        if k % 20 == 0:
            foreign = ">f4" if sys.byteorder == "little" else "<f4"
            with pytest.raises(TileError, match=r"argument 0 \('A'\).*-endian"):
                scaled(a.astype(foreign), 1.0, 0)
            with pytest.raises(TileError, match=r"argument #0 .*expected element type f32, got f64"):
                scaled(a.astype(np.float64), 1.0, 0)


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


# -- DLPack producers ------------------------------------------------------------

import ctypes  # noqa: E402


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _Versioned(ctypes.Structure):
    _fields_ = [("version", _DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", _DELETER), ("flags", ctypes.c_uint64),
                ("dl_tensor", _DLTensor)]


class _Unversioned(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", _DELETER)]


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

READ_ONLY, IS_COPIED = 1, 2


class Producer:
    """A DLPack producer written from the DLPack 1.0 header: a float32
    numpy array's memory exported as a versioned capsule with `flags`
    (or, with versioned=False, by an old producer that takes no
    max_version), counting the deleter's calls."""

    def __init__(self, array, flags=0, versioned=True, major=1, shape=None):
        self.array, self.flags, self.versioned, self.major = array, flags, versioned, major
        self.shape = list(array.shape if shape is None else shape)
        self.deleted = 0
        self._keep = []

    def __dlpack_device__(self):
        return (1, 0)

    def _tensor(self):
        shape = (ctypes.c_int64 * len(self.shape))(*self.shape)
        self._keep.append(shape)
        return _DLTensor(self.array.ctypes.data, _DLDevice(1, 0), len(self.shape),
                         _DLDataType(2, 32, 1), shape, None, 0)

    def _deleter(self):
        def deleter(_):
            self.deleted += 1
        callback = _DELETER(deleter)
        self._keep.append(callback)
        return callback

    def __dlpack__(self, stream=None, max_version=None, **kwargs):
        if not self.versioned:
            if max_version is not None:
                raise TypeError("__dlpack__() got an unexpected keyword argument "
                                "'max_version'")
            managed = _Unversioned(self._tensor(), None, self._deleter())
            self._keep.append(managed)
            return _capsule_new(ctypes.addressof(managed), b"dltensor", None)
        assert max_version == (1, 0), max_version
        managed = _Versioned(_DLPackVersion(self.major, 0), None, self._deleter(),
                             self.flags, self._tensor())
        self._keep.append(managed)
        return _capsule_new(ctypes.addressof(managed), b"dltensor_versioned", None)


def test_dlpack_versioned_outputs_are_written(inplace):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.full((3, 4), np.nan, np.float32)
    source, target = Producer(a), Producer(b)
    inplace(source, target)
    np.testing.assert_array_equal(b, a + 1)
    assert (source.deleted, target.deleted) == (1, 1)


def test_dlpack_unversioned_producers_still_work(inplace):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.zeros((3, 4), np.float32)
    target = Producer(b, versioned=False)
    inplace(Producer(a, versioned=False), target)
    np.testing.assert_array_equal(b, a + 1)
    assert target.deleted == 1


def test_dlpack_read_only_and_copied_exports(inplace):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.zeros((3, 4), np.float32)
    # Read-only inputs are fine.
    inplace(Producer(a, flags=READ_ONLY | IS_COPIED), Producer(b))
    np.testing.assert_array_equal(b, a + 1)
    for flags, message in [(READ_ONLY, "read-only (its DLPack export says so)"),
                           (IS_COPIED, "exported a copy of it")]:
        b[:] = -7
        target = Producer(b, flags=flags)
        with pytest.raises(TileError, match=r"argument 1 \('B'\).*" + re.escape(message)):
            inplace(Producer(a), target)
        assert (b == -7).all() and target.deleted == 1


def test_dlpack_capsules_of_unknown_versions_and_absurd_shapes(inplace):
    a = np.zeros((3, 4), np.float32)
    with pytest.raises(TileError, match=r"DLPack 2\.0 capsule; this build reads DLPack 1\.x"):
        inplace(Producer(a, major=2), Producer(a.copy()))
    with pytest.raises(TileError, match="more bytes than fit in 64 bits"):
        inplace(Producer(a, shape=[2 ** 62, 4]), Producer(a.copy()))
