#!/usr/bin/env python3
"""MLA decode (python/tests/attention_layouts.mla_decode) under variants of
TileLang's Hopper configuration, each in its own process with a time
limit, on the GPU: which variant compiles, runs to completion (a kernel
that deadlocks on a barrier never returns) and matches torch.

    PYTHONPATH=<package>:python/tests python3 bench/mla_probe.py [--timeout 60]

Prints one line per variant: its settings, the outcome (ok, mismatch and
the largest error, timeout, error and its last line) and the seconds of
the compile and of the first run."""

import argparse
import itertools
import json
import subprocess
import sys
import time

CHILD = r"""
import json, sys, time
import torch
import tilelang_mlir
from attention_layouts import mla_decode
cfg = json.loads(sys.argv[1])
b, h, s, d, pe = 3, 128, cfg.pop("seq"), 512, 64
configs = cfg.pop("pass_configs", None)
t0 = time.time()
kernel = tilelang_mlir.compile(mla_decode(b, h, 1, s, d, pe, **cfg), out_idx=[4],
                               target="cuda", pass_configs=configs)
t1 = time.time()
torch.manual_seed(0)
q = torch.randn(b, h, d, device="cuda", dtype=torch.float16)
q_pe = torch.randn(b, h, pe, device="cuda", dtype=torch.float16)
kv = torch.randn(b, s, 1, d, device="cuda", dtype=torch.float16)
k_pe = torch.randn(b, s, 1, pe, device="cuda", dtype=torch.float16)
print("compiled %.1f" % (t1 - t0), flush=True)
out = kernel(q, q_pe, kv, k_pe)
torch.cuda.synchronize()
t2 = time.time()
keys = torch.cat([kv, k_pe], -1).float()[:, :, 0]
query = torch.cat([q, q_pe], -1).float()
scores = torch.einsum("bhd,bsd->bhs", query, keys) / (d + pe) ** 0.5
ref = torch.einsum("bhs,bsd->bhd", scores.softmax(-1), kv.float()[:, :, 0])
err = (out.float() - ref).abs().max().item()
print(json.dumps({"compile_s": round(t1 - t0, 2), "run_s": round(t2 - t1, 2),
                  "max_err": err}))
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--seq", type=int, default=1000)
    parser.add_argument("--all", action="store_true",
                        help="every combination of the three choices")
    args = parser.parse_args()
    base = dict(block_N=64, block_H=64, threads=256)
    # TileLang's config first, then each of its three choices changed.
    variants = [dict(base, num_stages=2, full_col=True, probs_in_shared=True),
                dict(base, num_stages=1, full_col=True, probs_in_shared=True),
                dict(base, num_stages=2, full_col=False, probs_in_shared=True),
                dict(base, num_stages=2, full_col=True, probs_in_shared=False),
                # TileLang's config without warp specialization (the
                # 1-stage kernel has none).
                dict(base, num_stages=2, full_col=True, probs_in_shared=True,
                     pass_configs={"tl.disable_warp_specialized": True})]
    if args.all:
        variants = [dict(base, num_stages=st, full_col=fc, probs_in_shared=ps)
                    for st, fc, ps in itertools.product(
                        (2, 1), (True, False), (True, False))]
    variants.append(dict(block_N=32, block_H=16, threads=128))  # the default
    for cfg in variants:
        cfg = dict(cfg, seq=args.seq)
        start = time.time()
        try:
            done = subprocess.run([sys.executable, "-c", CHILD, json.dumps(cfg)],
                                  capture_output=True, text=True,
                                  timeout=args.timeout)
        except subprocess.TimeoutExpired as expired:
            out = expired.stdout or b""
            out = out.decode() if isinstance(out, bytes) else out
            print("%s  timeout after %.0f s (%s)" % (
                cfg, time.time() - start,
                "compiled, run did not return" if "compiled" in out
                else "in the compile"), flush=True)
            continue
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["?"])[-1]
            print("%s  error: %s" % (cfg, last[:300]), flush=True)
            continue
        result = json.loads(done.stdout.strip().splitlines()[-1])
        outcome = "ok" if result["max_err"] < 1e-2 else "mismatch"
        print("%s  %s %s" % (cfg, outcome, result), flush=True)


if __name__ == "__main__":
    main()
