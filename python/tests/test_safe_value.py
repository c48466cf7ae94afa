"""T.annotate_safe_value (TileLang's): element reads of a global tensor
outside its bounds give the annotated value, in the kernel that says so;
on the CPU against numpy, compiled for sm_90a, and the errors."""

import numpy as np
import pytest

import tilelang_mlir
import tilelang_mlir.language as T


def shifted_copy(M, N, bm, bn, pad, shift=10):
    """B[r, c] = A[r - shift, c], `pad` above the top (TileLang's test)."""
    @T.prim_func
    def main(A: T.Tensor((M, N), "float16"), B: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            tile = T.alloc_shared((bm, bn), "float16")
            T.annotate_safe_value({A: pad})
            for i, j in T.Parallel(bm, bn):
                tile[i, j] = A[by * bm + i - shift, bx * bn + j]
            for i, j in T.Parallel(bm, bn):
                B[by * bm + i, bx * bn + j] = tile[i, j]
    return main


@pytest.mark.parametrize("pad", [0, 10, -2.5])
def test_reads_above_the_top_give_the_value(pad):
    kernel = tilelang_mlir.compile(shifted_copy(64, 48, 32, 16, pad), out_idx=[1],
                                   target="cpu")
    a = np.random.default_rng().standard_normal((64, 48)).astype(np.float16)
    want = np.full_like(a, pad)
    want[10:] = a[:-10]
    np.testing.assert_array_equal(kernel(a), want)


def test_reads_past_the_end_in_every_dimension():
    @T.prim_func
    def main(A: T.Tensor((5, 7), "int32"), B: T.Tensor((8, 8), "int32")):
        with T.Kernel(1, threads=64) as _:
            T.annotate_safe_value({A: -1})
            for i, j in T.Parallel(8, 8):
                B[i, j] = A[i, j]
    kernel = tilelang_mlir.compile(main, target="cpu")
    a = np.arange(35, dtype=np.int32).reshape(5, 7)
    b = np.zeros((8, 8), np.int32)
    kernel(a, b)
    want = np.full((8, 8), -1, np.int32)
    want[:5, :7] = a
    np.testing.assert_array_equal(b, want)


def test_compiles_for_sm90():
    kernel = tilelang_mlir.compile(shifted_copy(256, 256, 64, 64, 3.0),
                                   out_idx=[1], target="sm_90a")
    assert "ld.global" in kernel.get_kernel_source("ptx")


def test_misuse_is_refused_at_the_line():
    with pytest.raises(T.TileLangError,
                       match=r"test_safe_value.py:\d+: T.annotate_safe_value "
                             r"applies inside T.Kernel"):
        @T.prim_func
        def outside(A: T.Tensor((4,), "float32")):
            T.annotate_safe_value({A: 0})
    with pytest.raises(T.TileLangError, match="takes global tensors"):
        @T.prim_func
        def shared(A: T.Tensor((4,), "float32")):
            with T.Kernel(1, threads=32) as _:
                s = T.alloc_shared((4,), "float32")
                T.annotate_safe_value({s: 0})


def test_copies_past_the_edge_read_the_safe_value():
    # TileLang's copy tests: a region copy from A (70x75) into a padded B
    # whose blocks run past A's edge fills the outside with the annotated
    # value, converted to B's type (zero without an annotation); so does a
    # copy into a shared tile.
    M, N, bm, bn = 70, 75, 32, 32
    pm, pn = 96, 96

    def build(pad, dst_dtype, through_shared):
        @T.prim_func
        def main(A: T.Tensor((M, N), T.float32), B: T.Tensor((pm, pn), dst_dtype)):
            with T.Kernel(pn // bn, pm // bm, threads=128) as (bx, by):
                if pad is not None:
                    T.annotate_safe_value({A: pad})
                if through_shared:
                    tile = T.alloc_shared((bm, bn), T.float32)
                    T.copy(A[by * bm, bx * bn], tile)
                    T.copy(tile, B[by * bm, bx * bn])
                else:
                    T.copy(A[by * bm:(by + 1) * bm, bx * bn:(bx + 1) * bn],
                           B[by * bm:(by + 1) * bm, bx * bn:(bx + 1) * bn])
        return main

    a = np.random.default_rng().standard_normal((M, N)).astype(np.float32)
    for pad, dtype, shared in [(-99, "float32", False), (None, "float32", False),
                               (-99, "float16", False), (7, "float32", True)]:
        b = np.full((pm, pn), np.nan, dtype)
        tilelang_mlir.compile(build(pad, dtype, shared), target="cpu")(a, b)
        expected = np.full((pm, pn), 0 if pad is None else pad, dtype)
        expected[:M, :N] = a.astype(dtype)
        np.testing.assert_array_equal(b, expected)
