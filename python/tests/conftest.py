"""pytest setup: the tests import tilelang_mlir from the build tree
(PYTHONPATH=build/python, as scripts/run_tests.py sets it) and keep the
JIT's and the autotuner's caches in a temporary directory. Kernels compiled
without a target run on the CPU (TILE_TARGET=cpu: what target="auto"
resolves to), on every machine; the GPU tests name their target."""

import os

import pytest

# For module-scoped fixtures too (they run outside the autouse fixture).
os.environ["TILE_TARGET"] = "cpu"


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TILE_DISABLE_CACHE", raising=False)



@pytest.fixture
def cuda_torch():
    """torch, on a machine with a CUDA device (the test is skipped
    elsewhere)."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    return torch
