"""T.annotate_layout({dQ: T.Layout(dQ.shape, fn)}) of a global tensor
(TileLang's FlashAttention backward): in the kernel that says so, element
(i, ...) of the tensor lives at fn(i, ...) of its storage, a row-major
array of the shape fn's bounds give. On the CPU against numpy (the storage
written element by element here, independently), compiled for sm_90a, and
the errors."""

import numpy as np
import pytest

import tilelang_mlir
import tilelang_mlir.language as T


def dq_layout(dQ):
    # TileLang's dQ order in its FlashAttention backward examples.
    return T.Layout(dQ.shape, lambda b, h, l, d: [
        b, h, l // 8, d // 8, d % 2, 4 * (l % 8) + (d % 8) // 2])


def dq_storage(x):
    """x placed as dq_layout places it, by loops over every element."""
    B, H, L, D = x.shape
    out = np.zeros((B, H, L // 8, D // 8, 2, 32), x.dtype)
    for b in range(B):
        for h in range(H):
            for l in range(L):
                for d in range(D):
                    out[b, h, l // 8, d // 8, d % 2, 4 * (l % 8) + (d % 8) // 2] = x[b, h, l, d]
    return out.reshape(x.shape)


def accumulate(B, H, L, D, blk, parts, tile_form):
    """dQ += X over `parts` row blocks of X per block of dQ, through the
    layout: a tile T.atomic_add of a region, or element atomics in a
    parallel loop (the backward's form)."""
    @T.prim_func
    def main(X: T.Tensor((B, H, parts * L, D), "float32"),
             dQ: T.Tensor((B, H, L, D), "float32")):
        with T.Kernel(T.ceildiv(L, blk), H, B, threads=64) as (bx, by, bz):
            T.annotate_layout({dQ: dq_layout(dQ)})
            part = T.alloc_fragment((blk, D), "float32")
            for p in T.serial(parts):
                T.copy(X[bz, by, p * L + bx * blk:p * L + (bx + 1) * blk, :], part)
                if tile_form:
                    T.atomic_add(dQ[bz, by, bx * blk:(bx + 1) * blk, :], part)
                else:
                    for i, j in T.Parallel(blk, D):
                        T.atomic_add(dQ[bz, by, bx * blk + i, j], part[i, j])
    return main


def accumulate_at(B, H, L, D, blk, rows):
    """dQ[:, :, s0:s0 + rows] += X through the layout, the row offset s0 a
    scalar argument: the slice's extent is known only at run time (TileLang's
    varlen backward), so the tile gives it."""
    @T.prim_func
    def main(X: T.Tensor((B, H, rows, D), "float32"),
             dQ: T.Tensor((B, H, L, D), "float32"), s0: T.int32):
        with T.Kernel(T.ceildiv(rows, blk), H, B, threads=64) as (bx, by, bz):
            T.annotate_layout({dQ: dq_layout(dQ)})
            part = T.alloc_fragment((blk, D), "float32")
            T.copy(X[bz, by, bx * blk:(bx + 1) * blk, :], part)
            T.atomic_add(dQ[bz, by, s0 + bx * blk:s0 + (bx + 1) * blk, :], part)
    return main


def read_back(B, H, L, D, blk):
    """Out = dQ read through the layout (the post-processing kernel)."""
    @T.prim_func
    def main(dQ: T.Tensor((B, H, L, D), "float32"),
             Out: T.Tensor((B, H, L, D), "float16")):
        with T.Kernel(T.ceildiv(L, blk), H, B, threads=64) as (bx, by, bz):
            T.annotate_layout({dQ: dq_layout(dQ)})
            T.copy(dQ[bz, by, bx * blk:(bx + 1) * blk, :],
                   Out[bz, by, bx * blk:(bx + 1) * blk, :])
    return main


def elementwise_store(B, H, L, D):
    @T.prim_func
    def main(X: T.Tensor((B, H, L, D), "float32"),
             dQ: T.Tensor((B, H, L, D), "float32")):
        with T.Kernel(H, B, threads=32) as (by, bz):
            T.annotate_layout({dQ: dq_layout(dQ)})
            for i, j in T.Parallel(L, D):
                dQ[bz, by, i, j] = X[bz, by, i, j] * 2
    return main


@pytest.mark.parametrize("tile_form", [True, False])
def test_accumulated_storage_is_the_layouts_order(tile_form):
    B, H, L, D, parts = 2, 3, 32, 16, 3
    rng = np.random.default_rng()
    x = rng.integers(-8, 8, (B, H, parts * L, D)).astype(np.float32)
    dq = np.full((B, H, L, D), np.nan, np.float32)
    dq[...] = 0
    kernel = tilelang_mlir.compile(accumulate(B, H, L, D, 16, parts, tile_form),
                                   target="cpu")
    kernel(x, dq)
    total = x.reshape(B, H, parts, L, D).sum(axis=2)
    np.testing.assert_array_equal(dq, dq_storage(total))
    # The post-processing kernel, with the same layout, reads it back.
    post = tilelang_mlir.compile(read_back(B, H, L, D, 16), out_idx=[1], target="cpu")
    np.testing.assert_array_equal(post(dq), total.astype(np.float16))


@pytest.mark.parametrize("s0", [0, 8, 24])
def test_a_slice_sized_at_run_time(s0):
    """Rows past the tensor's end (s0 = 24: 8 of 16) are dropped."""
    B, H, L, D, rows = 1, 2, 32, 16, 16
    x = np.random.default_rng().integers(-8, 8, (B, H, rows, D)).astype(np.float32)
    dq = np.zeros((B, H, L, D), np.float32)
    tilelang_mlir.compile(accumulate_at(B, H, L, D, 8, rows), target="cpu")(x, dq, s0)
    want = np.zeros_like(dq)
    end = min(L, s0 + rows)
    want[:, :, s0:end] = x[:, :, :end - s0]
    np.testing.assert_array_equal(dq, dq_storage(want))


def test_element_stores_and_edge_blocks():
    B, H, L, D = 1, 2, 24, 8
    x = np.random.default_rng().standard_normal((B, H, L, D)).astype(np.float32)
    dq = np.full((B, H, L, D), np.nan, np.float32)
    tilelang_mlir.compile(elementwise_store(B, H, L, D), target="cpu")(x, dq)
    np.testing.assert_array_equal(dq, dq_storage(2 * x))
    # 24 rows in blocks of 16: the second block's last 8 rows are past the
    # edge and dropped.
    post = tilelang_mlir.compile(read_back(B, H, L, D, 16), out_idx=[1], target="cpu")
    np.testing.assert_array_equal(post(dq), (2 * x).astype(np.float16))


def test_compiles_for_sm90():
    for func in (accumulate(1, 4, 128, 64, 64, 2, True),
                 accumulate(1, 4, 128, 64, 64, 2, False),
                 accumulate_at(1, 4, 128, 64, 64, 64),
                 read_back(1, 4, 128, 64, 64)):
        ptx = tilelang_mlir.compile(func, target="sm_90a").get_kernel_source("ptx")
        assert ".entry" in ptx


def test_misuse_is_refused_at_the_line():
    def kernel(layout, shared=False, outside=False):
        @T.prim_func
        def main(A: T.Tensor((16, 16), "float32")):
            if outside:
                T.annotate_layout({A: layout(A)})
            with T.Kernel(1, threads=32):
                S = T.alloc_shared((16, 16), "float32")
                T.annotate_layout({S if shared else A: layout(A)})
                A[0, 0] = 1.0
        return main

    with pytest.raises(T.TileLangError, match=r"test_global_layout.py:\d+: "
                       r"T.annotate_layout of A: the layout places the 256 "
                       r"elements in a storage of shape \[16, 31\]"):
        kernel(lambda A: T.Layout(A.shape, lambda i, j: [i, 2 * j]))
    with pytest.raises(T.TileLangError, match=r"T.Layout\(shape, fn\) of a shared "
                       r"tile is supported when fn maps each coordinate to "
                       r"itself .*; it maps \[0, 1\] to \[1, 0\]"):
        kernel(lambda A: T.Layout(A.shape, lambda i, j: [j, i]), shared=True)
    with pytest.raises(T.TileLangError, match="applies inside T.Kernel"):
        kernel(lambda A: T.Layout(A.shape, lambda i, j: [j, i]), outside=True)
    with pytest.raises(T.TileLangError, match=r"the layout's shape \[16, 8\] is "
                       r"not the tensor's \[16, 16\]"):
        kernel(lambda A: T.Layout((16, 8), lambda i, j: [j, i]))
    with pytest.raises(T.TileLangError, match="can be negative"):
        kernel(lambda A: T.Layout(A.shape, lambda i, j: [i - 1, j]))
