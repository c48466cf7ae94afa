"""Differential test against TileLang itself: every program of
differential_programs.py is built from the same source with real TileLang's
`T` and with this package's, compiled by each for the GPU, and run on the
same fresh inputs (outputs poisoned with NaN first). Each side is checked
against the program's torch reference, and the two sides against each other.

Needs a CUDA GPU, torch, and real TileLang importable as `tilelang` (the
PyPI wheel: ../shared/peers/tilelang_site.sh packs it for the GPU machine);
skips otherwise. Run on the H200 by scripts/gpu/differential.sh.
"""

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from differential_programs import PROGRAMS  # noqa: E402

import tilelang_mlir  # noqa: E402
import tilelang_mlir.language as ours_T  # noqa: E402


def _torch():
    try:
        import torch
    except ImportError:
        pytest.skip("torch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    return torch


def _tilelang():
    try:
        import tilelang
        import tilelang.language
    except Exception as error:  # noqa: BLE001 - any failure to import it
        pytest.skip("real TileLang is not importable: %s" % (error,))
    if tilelang.__name__ == tilelang_mlir.__name__ or \
            getattr(tilelang, "__file__", "").startswith(os.path.dirname(tilelang_mlir.__file__)):
        pytest.skip("`tilelang` resolves to this package, not TileLang")
    return tilelang


def _run(kernel, inputs, out_idx, torch):
    outputs = kernel(*[x.clone() if hasattr(x, "clone") else x for x in inputs])
    if not isinstance(outputs, (list, tuple)):
        outputs = [outputs]
    torch.cuda.synchronize()
    return list(outputs)


def _close(torch, got, want, rtol, atol, mismatch):
    """None when `got` matches `want` (up to a `mismatch` ratio of the
    elements outside the tolerances), else what differs."""
    if tuple(got.shape) != tuple(want.shape):
        return "shape %s, expected %s" % (tuple(got.shape), tuple(want.shape))
    if got.dtype != want.dtype:
        return "dtype %s, expected %s" % (got.dtype, want.dtype)
    g, w = got.double(), want.double()
    ok = torch.isclose(g, w, rtol=rtol, atol=atol) | (torch.isnan(g) & torch.isnan(w))
    bad = int((~ok).sum())
    if bad > mismatch * ok.numel():
        where = tuple(int(i) for i in (~ok).nonzero()[0])
        return "%d of %d elements differ; first at %s: %r vs %r" % (
            bad, ok.numel(), where, g[where].item(), w[where].item())
    return None


def _scalars(name):
    """Scalar arguments a program takes after its tensors."""
    return {"scalar_parameters": [2.5, -1.0],
            "parallel_run_time_extent": [200]}.get(name, [])


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_program_same_result(name):
    torch = _torch()
    tilelang = _tilelang()
    spec = PROGRAMS[name]
    g = torch.Generator(device="cuda")
    g.manual_seed(sum(map(ord, name)))
    inputs = spec["inputs"](torch, g)
    expected = spec["reference"](torch, *inputs)
    expected = list(expected) if isinstance(expected, (list, tuple)) else [expected]
    if len(expected) == 1 and len(spec["out_idx"]) == 1:
        pass
    rtol, atol = spec["tol"]
    scalars = _scalars(name)
    args = inputs + scalars

    ours = tilelang_mlir.compile(spec["build"](ours_T), out_idx=spec["out_idx"],
                                 target="cuda")
    ours_out = _run(ours, args, spec["out_idx"], torch)

    theirs_out, theirs_error = None, None
    try:
        theirs = tilelang.compile(spec["build"](tilelang.language),
                                  out_idx=spec["out_idx"], target="cuda")
        theirs_out = _run(theirs, args, spec["out_idx"], torch)
    except Exception as error:  # noqa: BLE001 - reported, not raised
        theirs_error = "%s: %s" % (type(error).__name__, str(error).splitlines()[0] if str(error) else "")

    problems = []
    for i, want in enumerate(expected):
        diff = _close(torch, ours_out[i], want, rtol, atol, spec["mismatch"])
        if diff:
            problems.append("ours vs reference, output %d: %s" % (i, diff))
        if theirs_out is not None:
            diff = _close(torch, theirs_out[i], want, rtol, atol, spec["mismatch"])
            if diff:
                print("TileLang vs reference, output %d: %s" % (i, diff))
            diff = _close(torch, ours_out[i], theirs_out[i], 2 * rtol, 2 * atol,
                          spec["mismatch"])
            if diff and not problems:
                print("ours vs TileLang, output %d: %s" % (i, diff))
    if theirs_error:
        print("TileLang refuses the program: %s" % theirs_error)
    record = os.environ.get("DIFFERENTIAL_RESULTS")
    if record:
        import json
        with open(record, "a") as f:
            f.write(json.dumps({"program": name, "ours": problems or "matches",
                                "tilelang": theirs_error or (
                                    "matches" if theirs_out is not None and all(
                                        _close(torch, t, w, rtol, atol, spec["mismatch"]) is None
                                        for t, w in zip(theirs_out, expected))
                                    else "differs from the reference")}) + "\n")
    assert not problems, "; ".join(problems)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_compiles_for_sm90a_here(name, tmp_path, monkeypatch):
    """Every program traces and compiles to PTX with this package on any
    machine, so the GPU run finds no program broken on our side."""
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))
    spec = PROGRAMS[name]
    kernel = tilelang_mlir.compile(spec["build"](ours_T), out_idx=spec["out_idx"],
                                   target="cuda -arch=sm_90a")
    assert ".entry" in kernel.get_kernel_source("ptx")
