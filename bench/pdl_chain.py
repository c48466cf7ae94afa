#!/usr/bin/env python3
"""Programmatic dependent launch, measured: one prim_func of eight
dependent memory-bound kernels (X <- X * 0.5 + 1, ping-ponging between two
buffers), written in TileLang's language with and without T.pdl_trigger /
T.pdl_sync, through this package and through real TileLang, in one process,
interleaved. What PDL can save is the gap between consecutive kernels (the
next kernel's launch and prologue under the previous one's tail), so the
timer is the stream's: CUDA events around `calls` back-to-back calls, per
call, eagerly and replayed from a CUDA graph of the same calls; and the
kernels' own time from the profiler (timing.kernel_ms), which PDL does not
shorten (a waiting kernel's time includes its wait).

    PYTHONPATH=<this package>:<real TileLang>:.peers python3 bench/pdl_chain.py \\
        [--n 1048576] [--rounds 5] [--json FILE]
"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import import_timing  # noqa: E402


def chain(T, N, pdl, block=256):
    """DEPTH kernels; each reads one buffer and writes the other. With
    `pdl` "first", each kernel lets its dependent launch as soon as it
    starts; with "last", once it has stored its part (TileLang's tests place
    it so); each dependent waits before touching memory. None: no PDL."""
    @T.macro
    def step(src, dst, first, last):
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            if pdl and not first:
                T.pdl_sync()
            if pdl == "first" and not last:
                T.pdl_trigger()
            for i in T.Parallel(block):
                if bx * block + i < N:
                    dst[bx * block + i] = src[bx * block + i] * 0.5 + 1.0
            if pdl == "last" and not last:
                T.pdl_trigger()

    @T.prim_func
    def main(X: T.Tensor((N,), T.float32), Y: T.Tensor((N,), T.float32)):
        step(X, Y, True, False)
        step(Y, X, False, False)
        step(X, Y, False, False)
        step(Y, X, False, False)
        step(X, Y, False, False)
        step(Y, X, False, False)
        step(X, Y, False, False)
        step(Y, X, False, True)
    return main


DEPTH = 8  # the kernels of `chain`; the result lands in X


def stream_us(torch, fn, calls):
    """Microseconds per call over `calls` back-to-back calls on the stream."""
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(calls):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1e3 / calls


def graph_us(torch, fn, calls):
    """Microseconds per call replaying a CUDA graph of `calls` calls."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        fn()  # loads the modules before capture
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    return stream_us(torch, graph.replay, 1) / calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1 << 20)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-tilelang", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    import torch
    timing = import_timing()
    import tilelang_mlir
    import tilelang_mlir.language as TM
    compilers = [("ours", tilelang_mlir, TM, "sm_90a")]
    if not args.no_tilelang:
        try:
            import tilelang
            import tilelang.language as TL
            compilers.append(("TileLang", tilelang, TL, "cuda"))
        except Exception as error:  # noqa: BLE001 (reported; ours goes on)
            print("real TileLang unavailable: %s" % error, file=sys.stderr)

    x0 = torch.randn(args.n, device="cuda")
    want = x0.clone()
    for _ in range(DEPTH):
        want = want * 0.5 + 1.0
    sides, errors = {}, {}
    for name, compiler, T, target in compilers:
        for pdl in (None, "first", "last"):
            side = "%s%s" % (name, " pdl-" + pdl if pdl else "")
            try:
                kernel = compiler.compile(chain(T, args.n, pdl), target=target)
                x, y = x0.clone(), torch.full_like(x0, float("nan"))
                kernel(x, y)
                torch.cuda.synchronize()
                torch.testing.assert_close(x, want)
            except Exception as error:  # noqa: BLE001 (reported, not timed)
                errors[side] = "%s: %s" % (type(error).__name__, str(error)[:300])
                print("%-14s %s" % (side, errors[side]))
                continue
            x, y = x0.clone(), x0.clone()
            sides[side] = (lambda k, x, y: lambda: k(x, y))(kernel, x, y)

    samples = {side: {"stream_us": [], "graph_us": [], "kernel_us": []} for side in sides}
    for _ in range(args.rounds):
        for side, call in sides.items():
            s = samples[side]
            s["stream_us"].append(stream_us(torch, call, args.calls))
            try:
                s["graph_us"].append(graph_us(torch, call, args.calls))
            except Exception as error:  # noqa: BLE001 (reported)
                errors.setdefault(side + " graph", "%s: %s" % (type(error).__name__,
                                                                str(error)[:300]))
            s["kernel_us"].append(timing.kernel_ms(call) * 1e3)
    rows = {}
    for side, s in samples.items():
        rows[side] = {k: statistics.median(v) for k, v in s.items() if v}
        print("%-14s " % side + "  ".join("%s %.2f" % kv for kv in rows[side].items()))
    for side, error in errors.items():
        print("%-14s %s" % (side, error))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"date": time.strftime("%Y-%m-%d"),
                       "device": torch.cuda.get_device_name(),
                       "n": args.n, "depth": DEPTH, "calls": args.calls,
                       "timer": "CUDA events around back-to-back calls (stream_us), "
                                "graph replay (graph_us), CUPTI kernel time "
                                "(kernel_us); medians of %d interleaved rounds"
                                % args.rounds,
                       "rows": rows, "errors": errors}, f, indent=1)


if __name__ == "__main__":
    main()
