"""Every program of the TileLang-peer benchmark (bench/tilelang_peer.py:
GEMMs, attention, MLA decode, rows, warp-specialized, dequantize, FP8)
traces and compiles to PTX for sm_90a here, in CI's world without a GPU,
so the programs the GPU machine times stay compilable; and each compiles
in seconds (a hand-pipelined k loop once took 110 s when its range was
unrolled while tracing)."""

import os
import sys
import time

import pytest

import tilelang_mlir
import tilelang_mlir.language as T

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench")
sys.path.insert(0, BENCH)
import tilelang_peer  # noqa: E402


@pytest.mark.parametrize("group", sorted(tilelang_peer.GROUPS))
def test_bench_programs_compile_for_sm90a(group, tmp_path, monkeypatch):
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))  # cold compiles
    cases = tilelang_peer.GROUPS[group]()
    assert cases
    for case in cases:
        start = time.time()
        kernel = tilelang_mlir.compile(case.build(T), out_idx=case.out_idx,
                                       target="sm_90a")
        ptx = kernel.get_kernel_source("ptx")
        assert ".entry" in ptx, case.name
        elapsed = time.time() - start
        assert elapsed < 20, "%s took %.1f s to compile" % (case.name, elapsed)
