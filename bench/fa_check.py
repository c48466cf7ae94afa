#!/usr/bin/env python3
"""FlashAttention in TileLang's Hopper configuration (128x128 tiles, 256
threads, 2 stages: warp-specialized, ping-pong, and the softmax under the
previous tile's P V from tile-overlap-gemm-chains), one small run against
torch: small enough for compute-sanitizer.

    PYTHONPATH=<package> compute-sanitizer --tool racecheck python3 bench/fa_check.py [SEQ] [causal] [plain]

(plain: without tile-overlap-gemm-chains)
"""
import sys, torch
sys.path.insert(0, "python/tests")
import tilelang_mlir
from attention_layouts import flash_attention
s = int(sys.argv[1]) if len(sys.argv) > 1 else 300
causal = "causal" in sys.argv[2:]
configs = {"overlap_gemm_chains": False} if "plain" in sys.argv[2:] else None
b, h, d = 1, 2, 128
k = tilelang_mlir.compile(flash_attention(b, h, s, d, causal, layout="bhsd", block_M=128,
                                          block_N=128, threads=256, num_stages=2),
                          out_idx=[3], target="cuda", pass_configs=configs)
torch.manual_seed(0)
q, kk, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.float16) for _ in range(3))
out = k(q, kk, v)
torch.cuda.synchronize()
# The reference on the CPU: only our kernel runs under the sanitizer.
ref = torch.nn.functional.scaled_dot_product_attention(q.cpu().float(), kk.cpu().float(),
                                                       v.cpu().float(), is_causal=causal)
print("max err", (out.cpu().float() - ref).abs().max().item())
