"""Thread block clusters as TileLang writes them: T.ClusterKernel,
T.cluster_arrive / _relaxed / T.cluster_wait / T.cluster_sync,
T.block_rank_in_cluster, T.alloc_cluster_barrier and T.mbarrier_arrive(bar,
cta_id). NVIDIA sm_90 and newer run them; elsewhere a kernel whose cluster
has several blocks is refused (its blocks run independently there) and a
one-block cluster's operations are what they mean for one block. The CPU
checks the refusals, the one-block meaning against numpy and the sm_90a
PTX; the GPU tests run on the GPU machine."""

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T


def ranks(blocks, cluster):
    """A[b] = the rank of block b in its cluster, after a cluster barrier."""
    @T.prim_func
    def main(A: T.Tensor((blocks,), T.int32)):
        with T.ClusterKernel(blocks, threads=128, cluster_dims=cluster) as bx:
            T.cluster_arrive()
            T.cluster_wait()
            rank = T.block_rank_in_cluster()
            if T.get_thread_binding() == 0:
                A[bx] = rank
            T.cluster_sync()
    return main


def remote_arrivals(blocks, cluster, threads=128):
    """Every thread of every block arrives once on block 0's barrier of its
    cluster, which completes a phase only when all of them did; block 0
    then writes its cluster's mark."""
    @T.prim_func
    def main(A: T.Tensor((blocks // cluster,), T.int32)):
        with T.ClusterKernel(blocks, threads=threads, cluster_dims=(cluster, 1, 1)) as bx:
            bar = T.alloc_cluster_barrier([threads * cluster])
            T.cluster_sync()
            T.mbarrier_arrive(bar, 0)
            if T.block_rank_in_cluster() == 0:
                T.mbarrier_wait_parity(bar, 0)
                if T.get_thread_binding() == 0:
                    A[bx // cluster] = bx // cluster + 1
            T.cluster_sync()
    return main


def test_one_block_clusters_on_the_cpu():
    """A kernel without a cluster: the barriers are nothing, the rank 0."""
    @T.prim_func
    def main(A: T.Tensor((8,), T.int32), B: T.Tensor((8,), T.int32)):
        with T.Kernel(8, threads=1) as bx:
            bar = T.alloc_cluster_barrier([1])
            T.cluster_sync()
            T.cluster_arrive_relaxed()
            T.cluster_wait()
            T.mbarrier_arrive(bar, 0)
            B[bx] = A[bx] * 2 + T.block_rank_in_cluster()

    a = np.random.default_rng().integers(-100, 100, 8).astype(np.int32)
    b = np.full_like(a, -7)
    tilelang.compile(main, target="cpu")(a, b)
    np.testing.assert_array_equal(b, a * 2)


@pytest.mark.parametrize("target", ["cpu", "gfx942"])
def test_several_block_clusters_are_refused_where_blocks_run_apart(target):
    with pytest.raises(Exception, match=r"this kernel's clusters have 4 blocks "
                                        r"\(target: %s\)" % target):
        tilelang.compile(ranks(8, 4), target=target).get_kernel_source("llvm")


def test_sm90a_code():
    ptx = tilelang.compile(ranks(8, 4), target="sm_90a").get_kernel_source("ptx")
    assert "barrier.cluster.arrive" in ptx and "barrier.cluster.wait" in ptx
    assert "%cluster_ctarank" in ptx
    remote = tilelang.compile(remote_arrivals(8, 4), target="sm_90a")
    ptx = remote.get_kernel_source("ptx")
    assert "mapa.shared::cluster" in ptx
    assert "mbarrier.arrive.release.cluster.shared::cluster" in ptx
    assert "fence.mbarrier_init.release.cluster" in ptx


def test_before_sm90_clusters_are_refused():
    with pytest.raises(Exception, match=r"only NVIDIA sm_90 and newer run a "
                                        r"cluster's blocks together.*sm_80"):
        tilelang.compile(ranks(8, 4), target="sm_80").get_kernel_source("ptx")


def test_misuse_is_refused():
    with pytest.raises(T.TileLangError, match="cluster_dims is a positive int"):
        T.ClusterKernel(8, cluster_dims=(0, 1))
    with pytest.raises(T.TileLangError, match="takes no C source"):
        T.ClusterKernel(8, cluster_dims=2, prelude="#include <x>")
    with pytest.raises(T.TileLangError, match="one of T.alloc_cluster_barrier"):
        @T.prim_func
        def main(A: T.Tensor((8,), T.int32)):
            with T.ClusterKernel(8, cluster_dims=2):
                T.mbarrier_arrive(T.alloc_barrier(128), 1)
    with pytest.raises(T.TileLangError, match="only meaningful inside a T.Kernel"):
        T.cluster_sync()


@pytest.mark.parametrize("cluster", [2, 4, (8, 1, 1)])
def test_ranks_on_the_gpu(cuda_torch, cluster):
    torch = cuda_torch
    size = cluster if isinstance(cluster, int) else cluster[0]
    kernel = tilelang.compile(ranks(128, cluster), out_idx=-1, target="sm_90a")
    got = kernel()
    want = torch.arange(128, dtype=torch.int32, device="cuda") % size
    torch.testing.assert_close(got, want)


@pytest.mark.parametrize("cluster", [2, 4])
def test_remote_arrivals_on_the_gpu(cuda_torch, cluster):
    torch = cuda_torch
    blocks = 64
    kernel = tilelang.compile(remote_arrivals(blocks, cluster), target="sm_90a")
    a = torch.zeros(blocks // cluster, dtype=torch.int32, device="cuda")
    kernel(a)
    torch.cuda.synchronize()
    want = torch.arange(1, blocks // cluster + 1, dtype=torch.int32, device="cuda")
    torch.testing.assert_close(a, want)
