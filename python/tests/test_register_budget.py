"""A fragment too large for the 512 bytes of registers a thread gives one
fragment normally lives in shared memory; when it cannot live there either
(its bytes and the kernel's shared tiles' together exceed what a block may
use: TileLang's 256x256 f32 accumulator of a 128-thread GEMM, 256 KiB), it
stays in registers and the device compiler spills them, as TileLang's
kernels do, instead of a kernel that cannot launch."""

import numpy as np
import pytest

import tilelang_mlir as tilelang
import tilelang_mlir.language as T
from kernels import matmul_func

RNG = np.random.default_rng()


def gemm(M, N, K, block_M, block_N, block_K, dtype=T.float16, threads=128):
    return matmul_func(M, N, K, block_M, block_N, block_K, threads=threads,
                       dtype=dtype, stages=2)


def test_an_accumulator_larger_than_shared_memory_stays_in_registers():
    kernel = tilelang.compile(gemm(512, 512, 256, 256, 256, 32),
                              target="cuda -arch=sm_90a")
    # (It used to fail: "the kernel's shared tiles need 327696 bytes".)
    ptx = kernel.get_kernel_source("ptx")
    assert ".entry" in ptx
    loops = kernel.get_kernel_source("loops")
    assert "memref<256x256xf32, #gpu.address_space<workgroup>>" not in loops


def test_a_fragment_that_fits_shared_memory_keeps_the_register_budget():
    # 128x128 f32 over 64 threads: 1 KiB per thread, more than 512 bytes,
    # and 64 KiB fit a block's shared memory: it lives there, as before.
    kernel = tilelang.compile(gemm(256, 256, 128, 128, 128, 32, threads=64),
                              target="cuda -arch=sm_90a")
    loops = kernel.get_kernel_source("loops")
    assert "memref<128x128xf32, #gpu.address_space<workgroup>>" in loops


def test_the_large_accumulator_program_computes_the_product_on_the_cpu():
    M, N, K = 300, 260, 96
    kernel = tilelang.compile(gemm(M, N, K, 256, 256, 32, dtype=T.float32),
                              out_idx=-1, target="cpu")
    a = RNG.standard_normal((M, K)).astype(np.float32)
    b = RNG.standard_normal((K, N)).astype(np.float32)
    np.testing.assert_allclose(kernel(a, b), a.astype(np.float64) @ b,
                               rtol=1e-4, atol=1e-3)


def test_the_large_accumulator_gemm_on_the_gpu(cuda_torch):
    torch = cuda_torch
    M, N, K = 1000, 768, 512
    kernel = tilelang.compile(gemm(M, N, K, 256, 256, 32), out_idx=-1,
                              target="cuda -arch=sm_90a")
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = kernel(a, b)
    torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-2, atol=1e-2)
