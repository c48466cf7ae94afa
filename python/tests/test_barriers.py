"""Barriers the kernel author manages (TileLang's T.alloc_barrier,
T.barrier_arrive / T.mbarrier_arrive, T.barrier_wait /
T.mbarrier_wait_parity, T.tma_copy): numerics on the CPU (the copies are
synchronous there and the barriers have nothing to order), the sm_90a code
(mbarrier.expect_tx without an arrival for T.tma_copy, one mbarrier.arrive
per thread for T.barrier_arrive), the refusals, and on a GPU against numpy:
TileLang's pipelined GEMM with user barriers (TMA and, for rows TMA cannot
address, the block's synchronous copy) and a producer and a consumer
warpgroup handing tiles over through a full and an empty barrier."""

import re

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T
from tilelang_mlir.language import TileLangError


def gemm_on_user_barriers(M, N, K, bM=128, bN=128, bK=32, stages=2):
    @T.prim_func
    def main(A: T.Tensor((M, K), T.float16), B: T.Tensor((K, N), T.float16),
             C: T.Tensor((M, N), T.float32)):
        with T.Kernel(T.ceildiv(N, bN), T.ceildiv(M, bM), threads=128) as (bx, by):
            A_s = T.alloc_shared((bM, bK), T.float16)
            B_s = T.alloc_shared((bK, bN), T.float16)
            C_l = T.alloc_fragment((bM, bN), T.float32)
            mbar_A = T.alloc_barrier(128)
            mbar_B = T.alloc_barrier(128)
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bK), num_stages=stages):
                T.tma_copy(A[by * bM, k * bK], A_s, barrier=mbar_A)
                T.barrier_arrive(mbar_A)
                T.tma_copy(B[k * bK, bx * bN], B_s, barrier=mbar_B)
                T.barrier_arrive(mbar_B)
                T.barrier_wait(mbar_A, k % 2)
                T.barrier_wait(mbar_B, k % 2)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * bM, bx * bN])
    return main


def handoff(n_tiles, stages=2):
    """Warpgroup 1 fills the stages of a shared tile by TMA, warpgroup 0
    stores each filled stage to B: `full[s]` counts the producer's 128
    arrivals and the transfer's bytes, `empty[s]` the consumer's 128."""
    rows = 64 * n_tiles

    @T.prim_func
    def main(A: T.Tensor((rows, 64), T.float32), B: T.Tensor((rows, 64), T.float32)):
        with T.Kernel(1, threads=256):
            s = T.alloc_shared((stages, 64, 64), T.float32)
            full = T.alloc_barrier([128] * stages)
            empty = T.alloc_barrier([128] * stages)
            tx = T.get_thread_binding()
            for k in T.serial(n_tiles):
                if tx >= 128:
                    T.mbarrier_wait_parity(empty[k % stages], (k // stages + 1) % 2)
                    T.tma_copy(A[k * 64:(k + 1) * 64, 0:64], s[k % stages, :, :],
                               barrier=full[k % stages])
                    T.mbarrier_arrive(full[k % stages])
                else:
                    T.mbarrier_wait_parity(full[k % stages], (k // stages) % 2)
                    T.copy(s[k % stages, :, :], B[k * 64, 0])
                    T.mbarrier_arrive(empty[k % stages])
    return main


def test_gemm_on_user_barriers_on_the_cpu():
    M, N, K = 256, 128, 96
    kernel = tilelang.compile(gemm_on_user_barriers(M, N, K), target="cpu")
    rng = np.random.default_rng()
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, np.float32)
    kernel(a, b, c)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32),
                               rtol=1e-3, atol=1e-3)


def test_tma_copy_counts_bytes_and_threads_arrive():
    ptx = tilelang.compile(gemm_on_user_barriers(256, 256, 256),
                           target="cuda -arch=sm_90a").get_kernel_source("ptx")
    # Each T.tma_copy: thread 0 adds the tile's bytes without arriving, then
    # TMA; each T.barrier_arrive: every thread arrives (no warp election).
    assert len(re.findall(r"mbarrier\.expect_tx", ptx)) == 2
    assert "mbarrier.arrive.expect_tx" not in ptx
    assert len(re.findall(r"mbarrier\.arrive\.shared\.b64", ptx)) == 2
    assert "cp.async.bulk.tensor" in ptx
    assert len(re.findall(r"mbarrier\.init", ptx)) == 2
    # The user's barriers order the loop: the planner adds no stages.
    assert "cp.async.ca" not in ptx and "cp.async.cg" not in ptx


def test_handoff_between_warpgroups_compiles_to_ranges():
    kernel = tilelang.compile(handoff(4), target="cuda -arch=sm_90a")
    loops = kernel.get_kernel_source("loops")
    assert "tile.thread_range = array<i64: 128, 128>" in loops
    assert "tile.thread_range = array<i64: 0, 128>" in loops


def test_refusals_name_the_problem():
    def build(body):
        @T.prim_func
        def main(A: T.Tensor((64, 64), T.float32), B: T.Tensor((64, 64), T.float32)):
            with T.Kernel(1, threads=128):
                body(A, B)
        return main

    def mixed(A, B):
        T.alloc_barrier([128, 64])

    def into_fragment(A, B):
        f = T.alloc_fragment((64, 64), T.float32)
        T.tma_copy(A[0, 0], f, barrier=T.alloc_barrier(128))

    def per_warp(A, B):
        s = T.alloc_shared((64, 64), T.float32)
        T.tma_copy(A[0, 0], s, barrier=T.alloc_barrier(128),
                   leader_scope_threads=32)

    def unnamed(A, B):
        T.barrier_arrive(T.alloc_barrier([128, 128]))

    def parity(A, B):
        T.barrier_wait(T.alloc_barrier(128), 2)

    def not_a_barrier(A, B):
        T.barrier_wait(A, 0)

    def cluster(A, B):
        T.mbarrier_arrive(T.alloc_barrier(128), cta_id=1)

    for body, message in [
            (mixed, "share their thread count"),
            (into_fragment, "into a whole shared tile"),
            (per_warp, "per warp are not provided"),
            (unnamed, r"made 2 barriers here; name one"),
            (parity, "parity is 0 or 1, got 2"),
            (not_a_barrier, "takes a barrier of T.alloc_barrier"),
            (cluster, "is one of T.alloc_cluster_barrier, not of T.alloc_barrier")]:
        with pytest.raises(TileLangError, match=message):
            build(body)
    with pytest.raises(TileLangError, match="inside"):
        T.alloc_barrier(128)


def _torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    return torch


def test_gemm_on_user_barriers_on_the_gpu():
    torch = _torch()
    # 16-byte aligned rows (TMA) and rows of 1001 f16 (TMA cannot address
    # them: the block's synchronous copy, no bytes expected); edge tiles.
    for M, N, K in [(512, 384, 256), (300, 200, 1001)]:
        kernel = tilelang.compile(gemm_on_user_barriers(M, N, K),
                                  target="cuda -arch=sm_90a")
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        b = torch.randn(K, N, device="cuda", dtype=torch.float16)
        c = torch.full((M, N), float("nan"), device="cuda")
        kernel(a, b, c)
        torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-3,
                                   atol=2e-2)


def test_handoff_between_warpgroups_on_the_gpu():
    torch = _torch()
    for n_tiles in (1, 2, 7):
        kernel = tilelang.compile(handoff(n_tiles), target="cuda -arch=sm_90a")
        a = torch.randn(64 * n_tiles, 64, device="cuda")
        b = torch.full_like(a, float("nan"))
        kernel(a, b)
        torch.cuda.synchronize()
        assert torch.equal(a, b), n_tiles


def ws_gemm(M, N, K, producer=0, stages=1, bM=128, bN=128, bK=64):
    """TileLang's warp-specialized GEMM: warpgroup `producer` issues the
    TMA copies of each stage, the other one (the consumer, which alone
    holds the accumulators: a fragment laid out over its 128 threads)
    runs the gemms; `ready[s]` and `done[s]` hand the stages over."""
    consumer = 1 - producer

    @T.prim_func
    def main(A: T.Tensor((M, K), T.float16), B: T.Tensor((K, N), T.float16),
             C: T.Tensor((M, N), T.float16)):
        with T.Kernel(T.ceildiv(N, bN), T.ceildiv(M, bM), threads=256) as (bx, by):
            A_s = T.alloc_shared((stages, bM, bK), T.float16)
            B_s = T.alloc_shared((stages, bK, bN), T.float16)
            C_l = T.alloc_fragment((bM, bN), T.float32)
            ready = T.alloc_barrier([128] * stages)
            done = T.alloc_barrier([128] * stages)
            with T.ws(consumer):
                T.clear(C_l)
            for ko in T.Pipelined(T.ceildiv(K, bK), num_stages=0):
                s = ko % stages
                with T.ws(producer):
                    T.barrier_wait(done[s], (ko // stages + 1) % 2)
                    T.tma_copy(A[by * bM, ko * bK], A_s[s, :, :], barrier=ready[s])
                    T.tma_copy(B[ko * bK, bx * bN], B_s[s, :, :], barrier=ready[s])
                    T.barrier_arrive(ready[s])
                with T.ws(consumer):
                    T.barrier_wait(ready[s], (ko // stages) % 2)
                    T.gemm(A_s[s, :, :], B_s[s, :, :], C_l)
                    T.barrier_arrive(done[s])
            with T.ws(consumer):
                T.copy(C_l, C[by * bM, bx * bN])
    return main


def test_ws_gemm_compiles_to_one_warpgroup_of_wgmma():
    ptx = tilelang.compile(ws_gemm(512, 512, 512),
                           target="cuda -arch=sm_90a").get_kernel_source("ptx")
    # The consumer warpgroup alone runs both m64 blocks of the 128 rows.
    assert len(re.findall(r"wgmma\.mma_async", ptx)) == 8
    # Each warpgroup's copies and gemms synchronize on its own named
    # barrier of 128 threads, never the block's.
    assert re.search(r"bar\.sync \s*[1-9]\d*, 128;", ptx)


def test_ws_ranges_are_refused_off_nvidia_and_when_misused():
    # The CPU runs each block as one thread: no warpgroups to split.
    cpu = tilelang.compile(ws_gemm(256, 256, 128), target="cpu")
    with pytest.raises(Exception, match="runs each block as one thread"):
        cpu(np.zeros((256, 128), np.float16), np.zeros((128, 256), np.float16),
            np.zeros((256, 256), np.float16))

    def build(body, threads=256):
        @T.prim_func
        def main(A: T.Tensor((128, 128), T.float32)):
            with T.Kernel(1, threads=threads):
                body(A)
        return main

    def gap(A):
        with T.ws(0, 2):
            pass

    def too_many(A):
        with T.ws(2):
            pass

    for body, message in [(gap, "consecutive"), (too_many, "256 threads, 2 warpgroups")]:
        with pytest.raises(TileLangError, match=message):
            build(body)

    # A fragment used by both warpgroups cannot be laid out over either.
    @T.prim_func
    def shared_fragment(A: T.Tensor((128, 128), T.float32)):
        with T.Kernel(1, threads=256):
            f = T.alloc_fragment((128, 128), T.float32)
            with T.ws(0):
                T.clear(f)
            with T.ws(1):
                T.copy(f, A)
    with pytest.raises(Exception, match="laid out over 256 threads, not the "
                                        "range's 128"):
        tilelang.compile(shared_fragment,
                         target="cuda -arch=sm_90a").get_kernel_source("ptx")


def test_ws_gemm_on_the_gpu():
    torch = _torch()
    for producer, stages, (M, N, K) in [(0, 1, (512, 384, 512)),
                                        (1, 1, (256, 256, 192)),
                                        (1, 2, (384, 256, 1024)),
                                        (0, 2, (300, 200, 320))]:
        kernel = tilelang.compile(ws_gemm(M, N, K, producer, stages),
                                  target="cuda -arch=sm_90a")
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        b = torch.randn(K, N, device="cuda", dtype=torch.float16)
        c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
        kernel(a, b, c)
        torch.testing.assert_close(c.float(), a.float() @ b.float(),
                                   rtol=1e-2, atol=5e-2,
                                   msg="producer %d stages %d" % (producer, stages))


def three_warpgroups(n=64, registers=False):
    """FlashMLA's shape of a kernel: `if tx < 128: ... elif tx >= 128 and tx
    < 256: ... else: ...` over three warpgroups, the last one loading a tile
    by TMA, the first two each computing from it in a fragment of its own
    (laid out over its 128 threads) and storing their result; with
    `registers`, each warpgroup first sets its registers as FlashMLA does
    (the producer gives some to the consumers)."""

    def consumer_registers():
        if registers:
            T.set_max_nreg(232, 1)

    @T.prim_func
    def main(A: T.Tensor((n, n), T.float32), X: T.Tensor((n, n), T.float32),
             Y: T.Tensor((n, n), T.float32)):
        with T.Kernel(1, threads=384):
            s = T.alloc_shared((n, n), T.float32)
            f0 = T.alloc_fragment((n, n), T.float32)
            f1 = T.alloc_fragment((n, n), T.float32)
            full = T.alloc_barrier(128)
            tx = T.get_thread_binding()
            if tx < 128:
                consumer_registers()
                T.barrier_wait(full, 0)
                T.copy(s, f0)
                for i, j in T.Parallel(n, n):
                    f0[i, j] = f0[i, j] * 2.0
                T.copy(f0, X)
            elif tx >= 128 and tx < 256:
                consumer_registers()
                T.barrier_wait(full, 0)
                T.copy(s, f1)
                for i, j in T.Parallel(n, n):
                    f1[i, j] = f1[i, j] + 1.0
                T.copy(f1, Y)
            else:
                if registers:
                    T.dec_max_nreg(40)
                T.tma_copy(A[0, 0], s, barrier=full)
                T.barrier_arrive(full)
    return main


def test_elif_chain_gives_each_warpgroup_its_range():
    loops = tilelang.compile(three_warpgroups(),
                             target="cuda -arch=sm_90a").get_kernel_source("loops")
    for first in (0, 128, 256):
        assert "tile.thread_range = array<i64: %d, 128>" % first in loops


@pytest.mark.parametrize("registers", [False, True])
def test_elif_chain_on_the_gpu(registers):
    torch = _torch()
    kernel = tilelang.compile(three_warpgroups(registers=registers),
                              target="cuda -arch=sm_90a")
    a = torch.randn(64, 64, device="cuda")
    x = torch.full_like(a, float("nan"))
    y = torch.full_like(a, float("nan"))
    kernel(a, x, y)
    torch.testing.assert_close(x, a * 2.0)
    torch.testing.assert_close(y, a + 1.0)


def test_warpgroup_registers_become_setmaxnreg():
    # FlashMLA's T.set_max_nreg(240, 1) / T.set_max_nreg(80, 0) in its
    # warpgroups: tile.set_max_registers in the branch that runs it,
    # setmaxnreg on sm_90a, nothing on sm_80 and the CPU (results do not
    # depend on it there).
    program = three_warpgroups(registers=True)
    ir = program.script()
    assert ir.count("tile.set_max_registers increase 232") == 2
    assert ir.count("tile.set_max_registers decrease 40") == 1
    ptx = tilelang.compile(program, target="cuda -arch=sm_90a").get_kernel_source("ptx")
    assert len(re.findall(r"setmaxnreg\.inc\.sync\.aligned\.u32\s+232;", ptx)) == 2
    assert len(re.findall(r"setmaxnreg\.dec\.sync\.aligned\.u32\s+40;", ptx)) == 1
    assert "setmaxnreg" not in tilelang.compile(
        program, target="cuda -arch=sm_80").get_kernel_source("ptx")

    # One warpgroup's whole block on the CPU: the count changes nothing.
    @T.prim_func
    def scale(A: T.Tensor((128,), T.float32), B: T.Tensor((128,), T.float32)):
        with T.Kernel(1, threads=128):
            T.set_max_nreg(240, 1)
            for i in T.Parallel(128):
                B[i] = A[i] * 3.0
            T.dec_max_nreg(24)

    a = np.random.default_rng().standard_normal(128).astype(np.float32)
    b = np.full_like(a, np.nan)
    tilelang.compile(scale, target="cpu")(a, b)
    np.testing.assert_array_equal(b, a * np.float32(3.0))


@pytest.mark.parametrize("count,inc,message", [
    (250, 1, "multiple of 8 in"), (16, 0, "multiple of 8 in"),
    (264, 1, "multiple of 8 in"), (240, 2, "is_inc is 1")])
def test_register_counts_setmaxnreg_cannot_take_are_refused(count, inc, message):
    with pytest.raises(TileLangError, match=message):
        @T.prim_func
        def bad(A: T.Tensor((128,), T.float32)):
            with T.Kernel(1, threads=128):
                T.set_max_nreg(count, inc)


def test_compiler_register_switches_are_accepted_with_one_warning():
    # TileLang's switch of its own warp specialization's setmaxnreg.
    T._hints_warned.discard("no_set_max_nreg")
    with pytest.warns(RuntimeWarning, match=r"no_set_max_nreg\(\) is accepted and ignored"):
        @T.prim_func
        def main(A: T.Tensor((128,), T.float32)):
            with T.Kernel(1, threads=128):
                T.no_set_max_nreg()
    assert "tile.set_max_registers" not in main.script()
