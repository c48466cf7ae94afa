"""T.sync_threads(): a barrier of the block's threads between per-thread
writes and reads of shared memory (TileLang's hand-written scans, top-k
histograms). It was accepted and did nothing: a thread could read an
element before the thread that writes it had. Compiled for sm_90a (the
barrier is there), run on the CPU (nothing to wait for) and, where a GPU
is, against torch."""

import re

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T


def reverse_through_shared(n):
    @T.prim_func
    def main(A: T.Tensor((n,), T.int32), B: T.Tensor((n,), T.int32)):
        with T.Kernel(1, threads=n):
            tx = T.get_thread_binding()
            s = T.alloc_shared((n,), T.int32)
            s[tx] = A[tx] * 2
            T.sync_threads()
            B[tx] = s[n - 1 - tx]
    return main


def test_barrier_is_in_the_kernel():
    ptx = tilelang.compile(reverse_through_shared(256),
                           target="cuda -arch=sm_90a").get_kernel_source("ptx")
    assert "bar.sync" in ptx or "barrier.sync" in ptx


def test_sync_threads_on_the_cpu():
    @T.prim_func
    def main(A: T.Tensor((64,), T.float32), B: T.Tensor((64,), T.float32)):
        with T.Kernel(1, threads=64):
            s = T.alloc_shared((64,), T.float32)
            T.copy(A, s)
            T.sync_threads()
            for i in T.Parallel(64):
                B[i] = s[63 - i]

    a = np.random.default_rng().standard_normal(64).astype(np.float32)
    b = np.zeros(64, np.float32)
    tilelang.compile(main, target="cpu")(a, b)
    np.testing.assert_array_equal(b, a[::-1])


def test_sync_threads_outside_a_kernel_and_named_barriers():
    with pytest.raises(T.TileLangError, match="T.sync_threads"):
        @T.prim_func
        def outside(A: T.Tensor((4,), T.float32)):
            T.sync_threads()
            with T.Kernel(1, threads=32):
                A[0] = 1.0
    with pytest.raises(T.TileLangError, match="positive multiple of 32"):
        @T.prim_func
        def odd(A: T.Tensor((4,), T.float32)):
            with T.Kernel(1, threads=32):
                T.sync_threads(3, 48)

    @T.prim_func
    def wrong_count(A: T.Tensor((512,), T.int32)):
        with T.Kernel(1, threads=512):
            tx = T.get_thread_binding()
            if tx < 256:
                A[tx] = 1
                T.sync_threads(3, 128)
    with pytest.raises(tilelang.TileError, match="synchronizes 128 threads, but "
                       "the range of threads it is in has 256"):
        tilelang.compile(wrong_count, target="cuda -arch=sm_90a").get_kernel_source("ptx")


def named_barrier_scan(n, part):
    """A Hillis-Steele prefix sum over the first `part` threads of an
    n-thread block, with TileLang's named barrier of those threads
    (T.sync_threads(3, part) under if tx < part, as its top-k selector
    writes it); the other threads copy their element through."""
    @T.prim_func
    def main(A: T.Tensor((n,), T.int32), B: T.Tensor((n,), T.int32)):
        with T.Kernel(1, threads=n):
            tx = T.get_thread_binding()
            s = T.alloc_shared((n,), T.int32)
            v = T.alloc_var(T.int32)
            s[tx] = A[tx]
            T.sync_threads()
            if tx < part:
                for i in T.serial(part.bit_length() - 1):
                    offset = 1 << i
                    v = s[tx]
                    if tx >= offset:
                        v = v + s[tx - offset]
                    T.sync_threads(3, part)
                    s[tx] = v
                    T.sync_threads(3, part)
            T.sync_threads()
            B[tx] = s[tx]
    return main


def test_named_barrier_compiles_to_the_ranges_barrier():
    ptx = tilelang.compile(named_barrier_scan(512, 256),
                           target="cuda -arch=sm_90a").get_kernel_source("ptx")
    # The range's own hardware barrier for 256 threads (not the block's).
    assert re.search(r"bar(rier)?\.sync\s+1,\s*256;", ptx), \
        [line for line in ptx.splitlines() if "bar" in line]


def _cuda_torch():
    """torch, when it and a CUDA device are here (else the test skips)."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    return torch


def test_reverse_through_shared_on_the_gpu():
    torch = _cuda_torch()
    kernel = tilelang.compile(named_barrier_scan(512, 256), target="cuda")
    a = torch.randint(-100, 100, (512,), device="cuda", dtype=torch.int32)
    b = torch.zeros(512, device="cuda", dtype=torch.int32)
    kernel(a, b)
    expected = torch.cat([a[:256].cumsum(0).int(), a[256:]])
    assert torch.equal(b, expected)
    for n in (256, 1024):
        kernel = tilelang.compile(reverse_through_shared(n), target="cuda")
        a = torch.randint(-1000, 1000, (n,), device="cuda", dtype=torch.int32)
        b = torch.zeros(n, device="cuda", dtype=torch.int32)
        for _ in range(20):
            kernel(a, b)
            torch.cuda.synchronize()
            assert torch.equal(b, (a * 2).flip(0))


def histogram(n, bins):
    """Per-thread code: each thread adds its element's bin to a shared
    histogram (T.atomic_add of one element, under a condition on the
    thread index), then a barrier, then the first threads write it out."""
    @T.prim_func
    def main(A: T.Tensor((n,), T.int32), H: T.Tensor((bins,), T.int32)):
        with T.Kernel(1, threads=n):
            tx = T.get_thread_binding()
            hist = T.alloc_shared((bins,), T.int32)
            if tx < bins:
                hist[tx] = 0
            T.sync_threads()
            if A[tx] >= 0:
                T.atomic_add(hist[A[tx] % bins], 1)
            T.sync_threads()
            if tx < bins:
                H[tx] = hist[tx]
    return main


def test_per_thread_atomics_compile_for_sm90():
    ptx = tilelang.compile(histogram(256, 16),
                           target="cuda -arch=sm_90a").get_kernel_source("ptx")
    assert "atom.shared.add" in ptx or "red.shared.add" in ptx


def test_per_thread_histogram_on_the_gpu():
    torch = _cuda_torch()
    kernel = tilelang.compile(histogram(256, 16), target="cuda")
    a = torch.randint(-5, 100, (256,), device="cuda", dtype=torch.int32)
    h = torch.full((16,), -1, device="cuda", dtype=torch.int32)
    kernel(a, h)
    kept = a[a >= 0].long() % 16
    assert torch.equal(h.long(), torch.bincount(kept, minlength=16))


def votes(threads=128, split=16):
    """Every thread writes the block's count, and, or of `tx < split`, and
    the and of a predicate that holds everywhere."""
    @T.prim_func
    def main(Out: T.Tensor((4, threads), T.int32)):
        with T.Kernel(1, threads=threads):
            tx = T.get_thread_binding()
            Out[0, tx] = T.syncthreads_count(tx < split)
            Out[1, tx] = T.syncthreads_and(tx < split)
            Out[2, tx] = T.syncthreads_or(tx < split)
            Out[3, tx] = T.syncthreads_and(tx < threads)
    return main


def uniform_votes():
    """The CPU's block is one thread: it counts itself."""
    @T.prim_func
    def main(Flag: T.Tensor((1,), T.int32), Out: T.Tensor((3,), T.int32)):
        with T.Kernel(1, threads=128):
            Out[0] = T.syncthreads_count(Flag[0] != 0)
            Out[1] = T.syncthreads_and(Flag[0])
            Out[2] = T.syncthreads_or(Flag[0] != 0)
    return main


def test_block_votes_on_the_cpu():
    kernel = tilelang.compile(uniform_votes(), out_idx=-1, target="cpu")
    np.testing.assert_array_equal(kernel(np.array([1], np.int32)), [1, 1, 1])
    np.testing.assert_array_equal(kernel(np.array([0], np.int32)), [0, 0, 0])


def test_block_votes_compile_to_shared_atomics_and_barriers():
    ptx = tilelang.compile(votes(), target="cuda -arch=sm_90a").get_kernel_source("ptx")
    assert "atom.shared" in ptx or "red.shared" in ptx
    assert "bar.sync" in ptx or "barrier.sync" in ptx
    with pytest.raises(TypeError, match="requires an integer or boolean predicate"):
        @T.prim_func
        def main(Out: T.Tensor((1,), T.int32)):
            with T.Kernel(1, threads=32):
                Out[0] = T.syncthreads_count(T.float32(0.5))


def test_block_votes_on_the_gpu(cuda_torch):
    torch = cuda_torch
    out = torch.full((4, 128), -7, device="cuda", dtype=torch.int32)
    tilelang.compile(votes(), target="cuda -arch=sm_90a")(out)
    torch.cuda.synchronize()
    want = torch.tensor([16, 0, 1, 1], device="cuda", dtype=torch.int32)
    assert torch.equal(out, want[:, None].expand(4, 128)), out
