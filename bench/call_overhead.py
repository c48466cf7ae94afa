"""What a Python caller pays per kernel call, ours against torch, real
TileLang and Triton, in one process on the GPU machine.

    PYTHONPATH=<this package>:<real TileLang> python3 bench/call_overhead.py [--json FILE]

Sections (each side's numbers are the median of ROUNDS rounds, the sides
interleaved within a round):
- call: a 3-tensor kernel (C = A + B, 4096 float32) called back to back
  from Python: `issue` is the host time per call of a loop of CALLS calls
  (the stream keeps up: the kernel takes ~2 us), `sync` the same loop
  followed by a device synchronization, per call.
- pipeline: 100 such kernels in a chain on one stream (each reads the
  previous output), wall time from the first call to the end of a
  synchronization; then the same chain captured once into a CUDA graph and
  replayed.
- cpu: our CPU target's dispatch with numpy arrays (no GPU involved), at
  N elements and at 64 (`--cpu-only`: this section alone, on any machine).
The same TileLang program (add_program) is compiled by both compilers;
torch's peer is torch.add(a, b, out=c), Triton's a one-block-per-1024
add kernel.
"""

import argparse
import json
import os
import statistics
import sys
import time

ROUNDS = 5
CALLS = 2000
N = 4096
CHAIN = 100


def add_program(T, n=N, block=256):
    @T.prim_func
    def main(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32"),
             C: T.Tensor((n,), "float32")):
        with T.Kernel(T.ceildiv(n, block), threads=block) as bx:
            for i in T.Parallel(block):
                C[bx * block + i] = A[bx * block + i] + B[bx * block + i]
    return main


def per_call_us(torch, call, calls=CALLS, sync=False):
    for _ in range(50):
        call()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        call()
    if sync:
        torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    return elapsed / calls * 1e6


def chain_us(torch, add, a, b, bufs, graph=False):
    def run():
        x = a
        for y in bufs:
            add(x, b, y)
            x = y
    if not graph:
        run()
        torch.cuda.synchronize()
        start = time.perf_counter()
        run()
        torch.cuda.synchronize()
        return (time.perf_counter() - start) * 1e6
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        run()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        run()
    g.replay()
    torch.cuda.synchronize()
    start = time.perf_counter()
    g.replay()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) * 1e6


def triton_add():
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(a, b, c, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(c + offsets, tl.load(a + offsets, mask=mask) +
                 tl.load(b + offsets, mask=mask), mask=mask)

    def add(a, b, c):
        kernel[(triton.cdiv(a.numel(), 1024),)](a, b, c, a.numel(), BLOCK=1024)
    return add


def cpu_dispatch(tilelang_mlir, TM):
    """Our CPU target's call with numpy arrays, per call (median of
    ROUNDS): `call_us` at N elements (the kernel's work included), and
    `tiny_us` at 64 (nearly all of it the dispatch)."""
    import numpy as np
    result = {}
    for key, n in (("call_us", N), ("tiny_us", 64)):
        cpu = tilelang_mlir.compile(add_program(TM, n, min(n, 256)),
                                    target="cpu")
        an, bn, cn = (np.ones(n, np.float32) for _ in range(3))
        cpu(an, bn, cn)
        assert (cn == 2).all()
        rounds = []
        for _ in range(ROUNDS):
            for _ in range(200):
                cpu(an, bn, cn)
            start = time.perf_counter()
            for _ in range(CALLS):
                cpu(an, bn, cn)
            rounds.append((time.perf_counter() - start) / CALLS * 1e6)
        result[key] = statistics.median(rounds)
        result[key.replace("_us", "_raw_us")] = rounds
    return result


def print_cpu(cpu):
    print("ours, CPU target, numpy: %.2f us per call (%d elements), %.2f us "
          "(64 elements)" % (cpu["call_us"], N, cpu["tiny_us"]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--cpu-only", action="store_true",
                        help="only the CPU target's dispatch (no torch, no GPU)")
    args = parser.parse_args()
    import tilelang_mlir
    import tilelang_mlir.language as TM
    if args.cpu_only:
        cpu = cpu_dispatch(tilelang_mlir, TM)
        print_cpu(cpu)
        if args.json:
            import platform
            with open(args.json, "w") as f:
                json.dump({"date": time.strftime("%Y-%m-%d"), "n": N,
                           "calls": CALLS, "rounds": ROUNDS,
                           "ours_cpu_numpy": cpu,
                           "host": platform.processor() or platform.machine(),
                           "cpus": os.cpu_count()}, f, indent=1)
        return
    import torch

    sides = {}
    ours = tilelang_mlir.compile(add_program(TM), target="sm_90a")
    sides["ours"] = ours
    sides["torch"] = lambda a, b, c: torch.add(a, b, out=c)
    try:
        import tilelang
        import tilelang.language as TL
        sides["tilelang"] = tilelang.compile(add_program(TL), target="cuda")
    except Exception as error:  # noqa: BLE001 (reported, the rest goes on)
        print("real TileLang unavailable: %s" % error, file=sys.stderr)
    try:
        sides["triton"] = triton_add()
    except Exception as error:  # noqa: BLE001
        print("Triton unavailable: %s" % error, file=sys.stderr)

    a = torch.randn(N, device="cuda")
    b = torch.randn(N, device="cuda")
    bufs = [torch.empty(N, device="cuda") for _ in range(CHAIN)]
    for name, add in sides.items():  # Correct before timed.
        c = torch.full((N,), float("nan"), device="cuda")
        add(a, b, c)
        torch.cuda.synchronize()
        torch.testing.assert_close(c, a + b, msg=name)

    results = {name: {"issue_us": [], "sync_us": [], "chain_us": [],
                      "graph_us": []} for name in sides}
    for _ in range(ROUNDS):
        for name, add in sides.items():
            c = torch.empty(N, device="cuda")
            r = results[name]
            r["issue_us"].append(per_call_us(torch, lambda: add(a, b, c)))
            r["sync_us"].append(per_call_us(torch, lambda: add(a, b, c),
                                            sync=True))
            r["chain_us"].append(chain_us(torch, add, a, b, bufs))
            r["graph_us"].append(chain_us(torch, add, a, b, bufs, graph=True))
    # The chain's result is the same on every side.
    x = a
    for _ in range(CHAIN):
        x = x + b
    torch.testing.assert_close(bufs[-1], x, rtol=1e-4, atol=1e-4)

    cpu = cpu_dispatch(tilelang_mlir, TM)

    summary = {name: {k: statistics.median(v) for k, v in r.items()}
               for name, r in results.items()}
    summary["ours_cpu_numpy"] = cpu
    print("%-10s %10s %10s %14s %14s" % ("side", "issue us", "sync us",
                                         "chain-100 us", "graph-100 us"))
    for name, r in summary.items():
        if name == "ours_cpu_numpy":
            continue
        print("%-10s %10.2f %10.2f %14.1f %14.1f" % (
            name, r["issue_us"], r["sync_us"], r["chain_us"], r["graph_us"]))
    print_cpu(cpu)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"date": time.strftime("%Y-%m-%d"), "n": N,
                       "calls": CALLS, "rounds": ROUNDS, "chain": CHAIN,
                       "median": summary, "raw": results,
                       "device": torch.cuda.get_device_name()}, f, indent=1)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
