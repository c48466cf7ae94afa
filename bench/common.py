"""What bench/measure.py and bench/experiments.py share, so that both time
and check the same way: where timing.py is, the output check, torch SDPA's
backends as peers, the interleaved rounds and the results file's header.

torch is imported inside the functions that need it, so that
experiments.py can list and compile its experiments on a machine without
torch (or a GPU)."""

import datetime
import importlib
import os
import platform
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = "sm_90a"


def import_timing():
    """timing.py's module (kernel_ms, bench_ms): from the import path, else
    from $TIMING_DIR, else from .peers/ in the repository (an ignored
    folder that the GPU machine's caller fills with a copy of it)."""
    places = [os.environ.get("TIMING_DIR"), os.path.join(ROOT, ".peers")]
    try:
        return importlib.import_module("timing")
    except ModuleNotFoundError as err:
        if err.name != "timing":
            raise
    for place in places:
        if place and os.path.isfile(os.path.join(place, "timing.py")):
            sys.path.insert(0, place)
            return importlib.import_module("timing")
    raise SystemExit("timing.py (the one timer for ours and the peers) is not on the "
                     "import path, in $TIMING_DIR (%s) or in %s: copy it there"
                     % (places[0] or "unset", places[1]))


def mismatch(got, want, atol, rtol):
    """None when `got` is close to `want`, else the largest absolute error
    (NaN where the kernel left the poison in place)."""
    import torch
    if torch.allclose(got.float(), want.float(), atol=atol, rtol=rtol):
        return None
    return (got.float() - want.float()).abs().max().item()


def check(name, got, want, atol, rtol):
    err = mismatch(got, want, atol, rtol)
    if err is not None:
        raise SystemExit("%s: wrong result (max abs error %g); not timed" % (name, err))


def sdpa(backend, q, k, v, causal):
    import torch.nn.functional as F
    from torch.nn.attention import sdpa_kernel

    def call():
        with sdpa_kernel(backend):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return call


def sdpa_peers(q, k, v, causal):
    """torch SDPA with the cuDNN and the flash backend, by peer name."""
    from torch.nn.attention import SDPBackend
    return {"cuDNN": sdpa(SDPBackend.CUDNN_ATTENTION, q, k, v, causal),
            "SDPA flash": sdpa(SDPBackend.FLASH_ATTENTION, q, k, v, causal)}


def interleave(timing, calls, rounds, iters):
    """Times every call (name -> function) once per round, in turn, for
    `rounds` rounds, with timing.py's kernel_ms (CUPTI kernel time, mean of
    `iters` calls) and bench_ms (what a caller sees). Returns both as
    name -> samples."""
    samples = {side: [] for side in calls}
    caller = {side: [] for side in calls}
    for _ in range(rounds):
        for side, call in calls.items():
            samples[side].append(timing.kernel_ms(call, iters=iters))
            caller[side].append(timing.bench_ms(call))
    return samples, caller


def record_header(iters, rounds):
    """The results file's header: when, where, which timers, which
    versions."""
    import torch

    import tilelang_mlir
    return {
        "date": datetime.date.today().isoformat(),
        "device": torch.cuda.get_device_name(),
        "timer": "kernel_ms (CUPTI kernel time through torch.profiler), "
                 "%d calls per sample, interleaved, %d rounds" % (iters, rounds),
        "caller_timer": "bench_ms (triton.testing.do_bench: CUDA events over back-to-back "
                        "Python calls, L2 flushed, median), once per side per round",
        "tilelang_mlir": "%s (%s)" % (tilelang_mlir.__version__, tilelang_mlir.__commit__),
        "torch": torch.__version__, "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(), "python": platform.python_version(),
    }


def write_record(path, iters, rounds, results, **fields):
    """Writes the results file: the header, `fields`, the results."""
    import json
    record = record_header(iters, rounds)
    record.update(fields)
    record["results"] = results
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(record, f, indent=1)
    print("wrote", path)
