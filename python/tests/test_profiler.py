"""The profiler: fresh inputs, checks against a reference, timings."""

import time

import numpy as np
import pytest

import tilelang_mlir
import tilelang_mlir.language as T
from tilelang_mlir.profiler import TensorSupplyType, assert_allclose, do_bench

from kernels import matmul


def reference(a, b):
    return a.astype(np.float32) @ b.astype(np.float32)


def test_assert_allclose_against_a_reference():
    profiler = matmul(48, 40, 24).get_profiler()
    profiler.assert_allclose(reference, rtol=1e-3, atol=1e-3)


def test_a_wrong_reference_fails():
    profiler = matmul(48, 40, 24).get_profiler()
    with pytest.raises(AssertionError, match="elements outside"):
        profiler.assert_allclose(lambda a, b: reference(a, b) + 1.0)


def test_supply_types():
    kernel = matmul(16, 16, 16)
    for kind, check in [(TensorSupplyType.Zero, lambda x: not x.any()),
                        (TensorSupplyType.One, lambda x: (x == 1).all()),
                        (TensorSupplyType.Integer,
                         lambda x: (x == np.round(x)).all() and abs(x).max() <= 2),
                        (TensorSupplyType.Uniform,
                         lambda x: (x >= -1).all() and (x <= 1).all() and (x < 0).any()),
                        (TensorSupplyType.Auto,
                         lambda x: (x >= -1).all() and (x <= 1).all() and (x != np.round(x)).any()),
                        (TensorSupplyType.Normal,
                         lambda x: -1.5 < x.astype(np.float64).mean() < -0.5),
                        (TensorSupplyType.Randn,
                         lambda x: -0.5 < x.astype(np.float64).mean() < 0.5)]:
        inputs = kernel.get_profiler(kind).supply_inputs()
        assert [x.shape for x in inputs] == [(16, 16), (16, 16)]
        assert all(x.dtype == np.float16 and check(x) for x in inputs)


def test_mismatch_ratio():
    """TileLang's default: up to 1% of the elements may be outside the
    tolerances; more fails, and max_mismatched_ratio=0 allows none."""
    profiler = matmul(40, 40, 24).get_profiler()
    inputs = profiler.supply_inputs()

    def off_by(count):
        def ref(a, b):
            c = reference(a, b)
            c.reshape(-1)[:count] += 1.0
            return c
        return ref
    profiler.assert_allclose(off_by(16), input_tensors=inputs)     # 1% of 1600
    with pytest.raises(AssertionError, match="17 of 1600"):
        profiler.assert_allclose(off_by(17), input_tensors=inputs)
    with pytest.raises(AssertionError, match="1 of 1600"):
        profiler.assert_allclose(off_by(1), input_tensors=inputs,
                                 max_mismatched_ratio=0)


def test_symbolic_sizes_need_shapes():
    kernel = matmul(T.symbolic("M"), 32, 16)
    with pytest.raises(ValueError, match="symbolic dimension M"):
        kernel.get_profiler().supply_inputs()
    inputs = kernel.get_profiler(shapes={"M": 5}).supply_inputs()
    assert inputs[0].shape == (5, 16)


def test_do_bench():
    # TileLang's meaning: _n_warmup / _n_repeat count runs ...
    calls = []
    ms = do_bench(lambda: calls.append(1), _n_warmup=3, _n_repeat=7)
    assert len(calls) == 10 and ms >= 0
    # ... warmup / rep are milliseconds of running time: a 2 ms function
    # runs about 10 times for rep=20 (after 5 estimating runs, ~2 warm-ups).
    calls.clear()

    def two_ms():
        calls.append(1)
        time.sleep(0.002)
    ms = do_bench(two_ms, warmup=4, rep=20)
    assert 2 <= ms < 50 and 5 + 1 + 3 <= len(calls) <= 5 + 2 + 10
    low, mid, high = do_bench(lambda: None, _n_warmup=1, _n_repeat=9,
                              quantiles=[0.1, 0.5, 0.9])
    assert 0 <= low <= mid <= high
    profiler = matmul(32, 32, 32).get_profiler()
    assert profiler.do_bench(warmup=1, rep=3) > 0
    assert profiler.do_bench(n_warmup=1, n_repeat=2, return_mode="min") > 0
    with pytest.raises(ValueError):
        do_bench(lambda: None, rep=0)
    with pytest.raises(ValueError, match="return_mode"):
        do_bench(lambda: None, return_mode="average")


def test_assert_allclose_helper():
    assert_allclose(np.array([1.0, np.nan]), np.array([1.0005, np.nan]),
                    rtol=1e-3, atol=0)
    with pytest.raises(AssertionError, match="1 of 4"):
        assert_allclose(np.zeros(4), np.array([0, 0, 0, 1.0]))
    assert_allclose(np.zeros(4), np.array([0, 0, 0, 1.0]),
                    max_mismatched_ratio=0.25)
    with pytest.raises(AssertionError, match="shape"):
        assert_allclose(np.zeros(3), np.zeros(4))
