#!/usr/bin/env python3
"""Writes FlashAttention forward (non-causal and causal) for one head
dimension as tile IR, from the T.* program in test/Python/kernels.py's
style: bench/kernels/flash_attention_d<dim>.mlir, which the GPU suite times
at the issue's shape (b8 h32 s4096 d128) and checks on small shapes. Pipe
through `tile-opt` to drop the Python locations (the committed file must
not depend on the checkout's path); test/Python/gen_attention.py checks that
the committed file is current.

  python3 bench/gen_attention.py --dim 128 --stages 3 | tile-opt > bench/kernels/flash_attention_d128.mlir
  python3 bench/gen_attention.py --dim 128 --split 64 | tile-opt > bench/kernels/flash_attention_d128_split.mlir
  python3 bench/gen_attention.py --dim 128 --block-m 128 --block-n 128 --stages 2 --threads 256 --overlap --stage-output | tile-opt > bench/kernels/flash_attention_d128_overlap.mlir
  python3 bench/gen_attention.py --dim 128 --block-m 128 --block-n 128 --stages 2 --threads 256 --overlap --stage-output --longest-first | tile-opt > bench/kernels/flash_attention_d128_overlap_lpt.mlir
"""

import argparse
import os
import re
import sys

import tilelang_mlir.language as T

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python", "examples"))
from flash_attention import flash_attention  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--block-m", type=int, default=64)
    parser.add_argument("--block-n", type=int, default=64)
    parser.add_argument("--stages", type=int, default=2)
    parser.add_argument("--threads", type=int, default=128)
    parser.add_argument("--split", type=int, default=None,
                        help="hold Q, K, V and the output as column tiles of "
                             "this width (64: every gemm on wgmma for d128)")
    parser.add_argument("--overlap", action="store_true",
                        help="softmax of each K tile under the previous "
                             "tile's P V (FlashAttention-3's overlap)")
    parser.add_argument("--peel", default="first,last",
                        help="with --overlap, which ends of the loop come "
                             "out of it (first: S_0 before it, last: the "
                             "last P V after it; comma-separated, or none; "
                             "both by default: no P V of a zero P, and K_0 "
                             "and the last V share a tile)")
    parser.add_argument("--causal-peel", default=None,
                        help="--peel for the causal kernel (default: "
                             "--peel)")
    parser.add_argument("--stage-output", action="store_true",
                        help="write the output through a shared tile (TMA "
                             "stores on sm_90)")
    parser.add_argument("--lazy-rescale", action="store_true",
                        help="rescale O and the row sums only when a row's "
                             "maximum grows by more than 2^8 "
                             "(FlashAttention-4's conditional rescale)")
    parser.add_argument("--longest-first", action="store_true",
                        help="causal kernel: each head's query tiles in "
                             "order of decreasing work (last first)")
    args = parser.parse_args()
    bodies = []
    sizes = (T.symbolic("B"), T.symbolic("H"), T.symbolic("S"))
    for name, causal in (("flash_attention", False),
                         ("flash_attention_causal", True)):
        peel = args.causal_peel if causal and args.causal_peel else args.peel
        peel = peel.split(",")
        text = flash_attention(*sizes, args.dim, causal, block_M=args.block_m,
                               block_N=args.block_n, num_stages=args.stages,
                               threads=args.threads, name=name,
                               split=args.split,
                               overlap=args.overlap,
                               peel_first="first" in peel,
                               peel_last="last" in peel,
                               stage_output=args.stage_output,
                               longest_first=args.longest_first,
                               lazy_rescale=args.lazy_rescale).script()
        # The function of each traced module, side by side in one module.
        bodies.append(re.search(r"^module \{\n(.*)\n\}(?: loc\([^\n]*\))?\n?$", text,
                                re.S).group(1))
    print("module {\n" + "\n".join(bodies) + "\n}")


if __name__ == "__main__":
    main()
