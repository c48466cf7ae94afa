"""Bad T.* programs: the error names the user's file and line, whether
the tracer finds it (Python) or the tile dialect's verifier does (through
the locations the tracer recorded)."""
# RUN: %tile_python %s 2>&1 | FileCheck %s

import numpy as np

import tilelang_mlir
import tilelang_mlir.language as T


@T.prim_func
def bad_copy(A: T.Tensor((64, 64), T.float16)):
    with T.Kernel(1, threads=128) as bx:
        s = T.alloc_shared((64, 32), T.float16)
        f = T.alloc_fragment((32, 32), T.float32)
        T.copy(s, f)


try:
    tilelang_mlir.compile(bad_copy)
except tilelang_mlir.TileError as error:
    print(error)
# CHECK: errors.py:17:9: error: 'tile.copy' op shape mismatch: the tile is [64, 32] but the destination is [32, 32]


try:
    @T.prim_func
    def bad_index(A: T.Tensor((64,), T.float32)):
        with T.Kernel(1, threads=32) as bx:
            A[bx] = A[bx] // 2.0
except T.TileLangError as error:
    print(error)
# CHECK: errors.py:31: // on floats; use / and T.floor


@tilelang_mlir.jit(out_idx=[1])
def double(M):
    @T.prim_func
    def main(A: T.Tensor((M,), T.float32), B: T.Tensor((M,), T.float32)):
        with T.Kernel(T.ceildiv(M, 32), threads=32) as bx:
            for i in T.Parallel(32):
                B[bx * 32 + i] = A[bx * 32 + i] * 2.0

    return main


# Arguments that do not fit the signature are refused before anything runs.
for bad in (np.zeros((8, 8), np.float32), np.zeros(64, np.float64), 3.0):
    try:
        double(64)(bad)
    except tilelang_mlir.TileError as error:
        print(error)
# CHECK: rank
# CHECK: f64
# CHECK: numpy array
