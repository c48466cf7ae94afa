"""The differential fuzzer of whole programs (program_fuzz.py) on the CPU
backend: a fixed seed, a fresh one each run, and checks that the fuzzer
itself can fail (a model or a kernel that is wrong is reported)."""

import os

import numpy as np

import tilelang_mlir.language as T

import program_fuzz


def test_fixed_seed():
    failures, refused, ran = program_fuzz.fuzz(seed=20261202, count=300)
    assert ran == 300 and not failures, failures[:5]
    assert not refused, refused[:5]


def test_fresh_seed():
    seed = int(os.environ.get("TILE_FUZZ_SEED",
                              np.random.default_rng().integers(1 << 31)))
    failures, refused, _ = program_fuzz.fuzz(seed=seed, count=300, budget=45)
    assert not failures, "seed %d: %s" % (seed, failures[:5])
    assert not refused, "seed %d: %s" % (seed, refused[:5])


def test_every_kind_is_drawn():
    rng = np.random.default_rng(3)
    kinds = {program_fuzz.Case(rng, i).kind for i in range(100)}
    assert kinds == set(program_fuzz.KINDS)


def test_reports_a_model_that_ignores_the_zero_padding(monkeypatch):
    """With edge tiles padded by ones instead of zeros in the model, the
    kernels' reductions, prefix sums and loops disagree with it."""
    def ones(a, rows, cols):
        out = np.ones((rows, cols), a.dtype)
        out[:a.shape[0], :a.shape[1]] = a
        return out

    monkeypatch.setattr(program_fuzz, "pad", ones)
    failures, _, ran = program_fuzz.fuzz(seed=3, count=60, out=open(os.devnull, "w"),
                                         kinds=["reduce", "cumsum", "loop"])
    assert ran > 0 and len(failures) > ran // 3, (len(failures), ran)
    assert "elements wrong" in failures[0][1]


def test_reports_a_kernel_that_misses_stores(monkeypatch):
    """A kernel that skips its last column of blocks leaves poison behind."""
    real = program_fuzz.Case._store

    def partial(case, tile, dst, by, bx):
        with T.If(bx < case.grid[0] - 1):
            real(case, tile, dst, by, bx)

    monkeypatch.setattr(program_fuzz.Case, "_store", partial)
    failures, _, ran = program_fuzz.fuzz(seed=4, count=40, out=open(os.devnull, "w"),
                                         kinds=["map", "gemm"])
    multi = [f for f in failures if "nan" in f[1]]
    assert ran > 0 and multi, failures[:3]
