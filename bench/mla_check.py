#!/usr/bin/env python3
"""MLA decode in TileLang's Hopper configuration (2 stages, warp-specialized,
consumer warpgroups taking turns), one run against torch: small enough
for compute-sanitizer.

    PYTHONPATH=<package> compute-sanitizer --tool racecheck python3 bench/mla_check.py [SEQ]
"""
import sys, torch
sys.path.insert(0, "python/tests")
import tilelang_mlir
from attention_layouts import mla_decode
b, h, s, d, pe = 1, 128, int(sys.argv[1]) if len(sys.argv) > 1 else 256, 512, 64
k = tilelang_mlir.compile(mla_decode(b, h, 1, s, d, pe, block_N=64, block_H=64, threads=256,
                                     num_stages=2, full_col=True, probs_in_shared=True),
                          out_idx=[4], target="cuda")
torch.manual_seed(0)
q = torch.randn(b, h, d, device="cuda", dtype=torch.float16)
q_pe = torch.randn(b, h, pe, device="cuda", dtype=torch.float16)
kv = torch.randn(b, s, 1, d, device="cuda", dtype=torch.float16)
k_pe = torch.randn(b, s, 1, pe, device="cuda", dtype=torch.float16)
out = k(q, q_pe, kv, k_pe)
torch.cuda.synchronize()
keys = torch.cat([kv, k_pe], -1).float()[:, :, 0]
query = torch.cat([q, q_pe], -1).float()
scores = torch.einsum("bhd,bsd->bhs", query, keys) / (d + pe) ** 0.5
ref = torch.einsum("bhs,bsd->bhd", scores.softmax(-1), kv.float()[:, :, 0])
print("max err", (out.float() - ref).abs().max().item())
