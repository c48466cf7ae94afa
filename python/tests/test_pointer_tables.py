"""Pointer tables: ``T.Tensor([G], T.ptr)`` parameters (64-bit addresses,
int64 at the call) whose elements ``T.make_tensor(ptrs[g], shape, dtype)``
turns into global tensors inside the kernel (TileLang's grouped GEMMs and
mixture-of-experts kernels). On the CPU target the table holds host
addresses of numpy arrays; results against numpy. The same programs
compile for sm_90a (their tiles move without TMA: the host encodes tensor
maps of arguments only) and run on the GPU with torch tensors."""

import math

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T

RNG = np.random.default_rng()


def gather_rows(G, N, dtype=T.float32):
    """out[g, :] = the N elements at address ptrs[g]."""
    @T.prim_func
    def main(ptrs: T.Tensor([G], T.ptr), out: T.Tensor([G, N], dtype)):
        with T.Kernel(G, threads=32) as bx:
            src = T.make_tensor(ptrs[bx], (N,), dtype)
            for i in T.serial(N):
                out[bx, i] = src[i]
    return main


def grouped_gemm(sizes, N, K, block_M=32, block_N=32, block_K=32,
                 dtype=T.float32, accum_dtype=T.float32):
    """C_g = A_g @ B_g for groups of A_g: (M_g, K), B_g: (K, N), C_g:
    (M_g, N), each found through a pointer table; M_g from a table of sizes
    (a dynamic dimension of the made tensors: the last block of a group
    reads zeros past its rows and writes none)."""
    G = len(sizes)
    offsets = [0]
    for m in sizes[:-1]:
        offsets.append(offsets[-1] + math.ceil(m / block_M))
    total = offsets[-1] + math.ceil(sizes[-1] / block_M)

    @T.prim_func
    def main(a_ptrs: T.Tensor([G], T.ptr), b_ptrs: T.Tensor([G], T.ptr),
             c_ptrs: T.Tensor([G], T.ptr), rows: T.Tensor([G], T.int32),
             first_block: T.Tensor([G], T.int32)):
        with T.Kernel(total, T.ceildiv(N, block_N), threads=128) as (bx, by):
            A_s = T.alloc_shared((block_M, block_K), dtype)
            B_s = T.alloc_shared((block_K, block_N), dtype)
            C_f = T.alloc_fragment((block_M, block_N), accum_dtype)
            g = T.alloc_var(T.int32)
            start = T.alloc_var(T.int32)
            g = 0
            start = 0
            for i in range(G):
                if bx >= first_block[i]:
                    g = i
                    start = first_block[i]
            m = rows[g]
            A = T.make_tensor(a_ptrs[g], (m, K), dtype)
            B = T.make_tensor(b_ptrs[g], (K, N), dtype)
            C = T.make_tensor(c_ptrs[g], (m, N), dtype)
            T.clear(C_f)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[(bx - start) * block_M, ko * block_K], A_s)
                T.copy(B[ko * block_K, by * block_N], B_s)
                T.gemm(A_s, B_s, C_f)
            T.copy(C_f, C[(bx - start) * block_M, by * block_N])

    return main, np.array(offsets, dtype=np.int32)


def _table(arrays):
    return np.array([a.ctypes.data for a in arrays], dtype=np.int64)


def test_rows_gathered_through_a_pointer_table():
    G, N = 5, 37
    sources = [RNG.standard_normal(N).astype(np.float32) for _ in range(G)]
    order = RNG.permutation(G)
    out = np.full((G, N), np.nan, np.float32)
    kernel = tilelang.compile(gather_rows(G, N), target="cpu")
    kernel(_table([sources[k] for k in order]), out)
    np.testing.assert_array_equal(out, np.stack([sources[k] for k in order]))


def test_grouped_gemm_through_pointer_tables():
    sizes, N, K = [70, 17, 33], 48, 64   # groups end inside a block
    func, first = grouped_gemm(sizes, N, K)
    kernel = tilelang.compile(func, target="cpu")
    As = [RNG.standard_normal((m, K)).astype(np.float32) for m in sizes]
    Bs = [RNG.standard_normal((K, N)).astype(np.float32) for _ in sizes]
    Cs = [np.full((m, N), np.nan, np.float32) for m in sizes]
    kernel(_table(As), _table(Bs), _table(Cs), np.array(sizes, np.int32), first)
    for a, b, c in zip(As, Bs, Cs):
        np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4,
                                   atol=1e-4)


def test_made_tensors_compile_for_sm90a_without_tma():
    func, _ = grouped_gemm([128, 64], 128, 128, block_M=64, block_N=64,
                           block_K=64, dtype=T.float16)
    kernel = tilelang.compile(func, target="cuda -arch=sm_90a")
    ptx = kernel.get_kernel_source("ptx")
    assert ".entry" in ptx
    # No tensor map can describe a buffer found at run time.
    assert "cp.async.bulk.tensor" not in ptx
    assert "tile.make_tensor" in kernel.get_kernel_source("tile")


@pytest.mark.parametrize("address, message", [
    (lambda ptrs: T.int32(7), "an address is a 64-bit integer"),
    (lambda ptrs: 12345, "takes an address"),
])
def test_bad_addresses_are_refused_at_the_users_line(address, message):
    with pytest.raises(T.TileLangError, match=r"test_pointer_tables.py:\d+: .*" + message):
        @T.prim_func
        def main(ptrs: T.Tensor([2], T.ptr), out: T.Tensor([4], T.float32)):
            with T.Kernel(1, threads=32):
                src = T.make_tensor(address(ptrs), (4,), T.float32)
                for i in T.serial(4):
                    out[i] = src[i]


def test_packed_elements_and_bad_shapes_are_refused():
    with pytest.raises(T.TileLangError, match="packed two per byte"):
        @T.prim_func
        def packed(ptrs: T.Tensor([2], T.ptr)):
            with T.Kernel(1, threads=32):
                T.make_tensor(ptrs[0], (8,), T.int4)
    with pytest.raises(T.TileLangError, match="dimensions are positive"):
        @T.prim_func
        def empty(ptrs: T.Tensor([2], T.ptr)):
            with T.Kernel(1, threads=32):
                T.make_tensor(ptrs[0], (0, 8), T.float32)



def test_grouped_gemm_through_pointer_tables_on_the_gpu(cuda_torch):
    torch = cuda_torch
    sizes, N, K = [200, 64, 129], 128, 256
    func, first = grouped_gemm(sizes, N, K, block_M=64, block_N=64, block_K=64,
                               dtype=T.float16)
    kernel = tilelang.compile(func, target="cuda -arch=sm_90a")
    As = [torch.randn(m, K, device="cuda", dtype=torch.float16) for m in sizes]
    Bs = [torch.randn(K, N, device="cuda", dtype=torch.float16) for _ in sizes]
    Cs = [torch.full((m, N), float("nan"), device="cuda", dtype=torch.float16)
          for m in sizes]
    table = lambda ts: torch.tensor([t.data_ptr() for t in ts], device="cuda",
                                    dtype=torch.int64)
    kernel(table(As), table(Bs), table(Cs),
           torch.tensor(sizes, device="cuda", dtype=torch.int32),
           torch.from_numpy(first).cuda())
    torch.cuda.synchronize()
    for a, b, c in zip(As, Bs, Cs):
        torch.testing.assert_close(c.float(), a.float() @ b.float(), rtol=1e-2,
                                   atol=1e-2)


def test_rows_gathered_through_a_pointer_table_on_the_gpu(cuda_torch):
    torch = cuda_torch
    G, N = 6, 1000
    sources = [torch.randn(N, device="cuda") for _ in range(G)]
    out = torch.full((G, N), float("nan"), device="cuda")
    kernel = tilelang.compile(gather_rows(G, N), target="cuda -arch=sm_90a")
    kernel(torch.tensor([s.data_ptr() for s in sources[::-1]], device="cuda",
                        dtype=torch.int64), out)
    torch.cuda.synchronize()
    assert torch.equal(out, torch.stack(sources[::-1]))


def pointer_params_matmul(S, block):
    """TileLang's pointer-parameter GEMM: C = A @ B^T through three T.ptr
    parameters and sizes given as scalars."""
    @T.prim_func
    def main(a_ptr: T.ptr, b_ptr: T.ptr, c_ptr: T.ptr, m: T.int32, n: T.int32,
             k: T.int32):
        A = T.make_tensor(a_ptr, (m, k), T.float16)
        B = T.make_tensor(b_ptr, (n, k), T.float16)
        C = T.make_tensor(c_ptr, (m, n), T.float32)
        with T.Kernel(T.ceildiv(S, block), T.ceildiv(S, block), threads=128) as (bx, by):
            A_s = T.alloc_shared((block, 32), T.float16)
            B_s = T.alloc_shared((block, 32), T.float16)
            C_l = T.alloc_fragment((block, block), T.float32)
            T.clear(C_l)
            for ko in T.Pipelined(T.ceildiv(k, 32), num_stages=2):
                T.copy(A[by * block, ko * 32], A_s)
                T.copy(B[bx * block, ko * 32], B_s)
                T.gemm(A_s, B_s, C_l, transpose_B=True)
            T.copy(C_l, C[by * block, bx * block])
    return main


def test_pointer_parameters_take_addresses_or_tensors():
    S = 128
    kernel = tilelang.compile(pointer_params_matmul(S, 64), target="cpu")
    rng = np.random.default_rng()
    a = rng.standard_normal((S, S)).astype(np.float16)
    b = rng.standard_normal((S, S)).astype(np.float16)
    want = a.astype(np.float32) @ b.astype(np.float32).T
    by_address = np.full((S, S), np.nan, np.float32)
    kernel(a.ctypes.data, b.ctypes.data, by_address.ctypes.data, S, S, S)
    np.testing.assert_allclose(by_address, want, rtol=1e-3, atol=1e-3)
    by_array = np.full((S, S), np.nan, np.float32)
    kernel(a, b, by_array, S, S, S)
    np.testing.assert_array_equal(by_array, by_address)
    with pytest.raises(TypeError, match=r"parameter 'a_ptr' \(T.ptr\) takes an address"):
        kernel("a", b, by_array, S, S, S)


def test_pointer_parameters_take_torch_tensors_on_the_gpu(cuda_torch):
    torch = cuda_torch
    S = 256
    kernel = tilelang.compile(pointer_params_matmul(S, 64), target="sm_90a")
    a = torch.randn(S, S, device="cuda", dtype=torch.float16)
    b = torch.randn(S, S, device="cuda", dtype=torch.float16)
    c = torch.full((S, S), float("nan"), device="cuda")
    kernel(a, b, c, S, S, S)
    torch.cuda.synchronize()
    torch.testing.assert_close(c, (a @ b.T).float(), rtol=1e-2, atol=1e-2)
