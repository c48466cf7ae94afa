"""FP8 (e4m3) GEMM, C = A @ B^T with f32 accumulation and a bf16 output,
written once in TileLang's language and compiled by this package and by
real TileLang, against torch._scaled_mm (cuBLASLt) with unit scales.

    PYTHONPATH=<this package>:<real TileLang> python3 bench/fp8_gemm.py [--json FILE]

Kernel time from the profiler (timing.kernel_ms: CUPTI, every kernel a call
launches), sides interleaved, median of ROUNDS; each side is checked
against the f32 product of the same fp8 inputs first.
"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import import_timing  # noqa: E402

ROUNDS = 3
SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (4096, 14336, 4096)]
CONFIGS = [  # block_M, block_N, block_K, threads, stages
    (128, 128, 128, 256, 4),
    (128, 256, 128, 256, 3),
]


def fp8_gemm(T, M, N, K, BM, BN, BK, threads, stages):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float8_e4m3"), B: T.Tensor((N, K), "float8_e4m3"),
             C: T.Tensor((M, N), "bfloat16")):
        with T.Kernel(T.ceildiv(N, BN), T.ceildiv(M, BM), threads=threads) as (bx, by):
            a = T.alloc_shared((BM, BK), "float8_e4m3")
            b = T.alloc_shared((BN, BK), "float8_e4m3")
            c = T.alloc_fragment((BM, BN), "float32")
            T.clear(c)
            for k in T.Pipelined(T.ceildiv(K, BK), num_stages=stages):
                T.copy(A[by * BM, k * BK], a)
                T.copy(B[bx * BN, k * BK], b)
                T.gemm(a, b, c, transpose_B=True)
            T.copy(c, C[by * BM, bx * BN])
    return main


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--json")
    parser.add_argument("--variant", action="append", default=[],
                        help="another side: ours with compile options, "
                             "NAME:key=value,... (e.g. ws:tma_release_max_stages=0)")
    parser.add_argument("--shapes", default="",
                        help="only these shapes, MxNxK,... (default: all)")
    args = parser.parse_args()
    shapes = ([tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")]
              if args.shapes else SHAPES)
    import torch
    kernel_ms = import_timing().kernel_ms
    import tilelang_mlir
    import tilelang_mlir.language as TM
    try:
        import tilelang
        import tilelang.language as TL
    except Exception as error:  # noqa: BLE001 (reported; the rest goes on)
        print("real TileLang unavailable: %s" % error, file=sys.stderr)
        tilelang = None
    rows = []
    for M, N, K in shapes:
        a = (torch.randn(M, K, device="cuda") * 0.5).to(torch.float8_e4m3fn)
        b = (torch.randn(N, K, device="cuda") * 0.5).to(torch.float8_e4m3fn)
        expected = (a.float() @ b.float().T)
        one = torch.ones((), device="cuda")
        sides = {"cublas": lambda: torch._scaled_mm(a, b.T, one, one,
                                                    out_dtype=torch.bfloat16)}
        # The same program through each compiler.
        compilers = [("ours", tilelang_mlir, TM, "sm_90a", None)]
        for variant in args.variant:
            label, _, settings = variant.partition(":")
            configs = {}
            for item in filter(None, settings.split(",")):
                key, _, value = item.partition("=")
                configs[key] = (value.lower() in ("true", "on")
                                if value.lower() in ("true", "false", "on", "off")
                                else int(value))
            compilers.append(("ours " + label, tilelang_mlir, TM, "sm_90a", configs))
        if tilelang is not None:
            compilers.append(("tilelang", tilelang, TL, "cuda", None))
        for cfg in CONFIGS:
            for side, compiler, T, target, configs in compilers:
                name = "%s %dx%dx%d/%d/%d" % ((side,) + cfg)
                try:
                    options = {"pass_configs": configs} if configs else {}
                    k = compiler.compile(fp8_gemm(T, M, N, K, *cfg),
                                         out_idx=[-1], target=target, **options)
                    sides[name] = (lambda k: lambda: k(a, b))(k)
                except Exception as error:  # noqa: BLE001 (reported)
                    print("%s: %s" % (name, error), file=sys.stderr)
        for name, fn in list(sides.items()):
            out = fn()
            torch.cuda.synchronize()
            err = (out.float() - expected).abs().max().item()
            scale = expected.abs().max().item()
            if not err <= 1e-2 * scale:
                print("%s %s: wrong (max err %g of %g)" % (name, (M, N, K), err, scale),
                      file=sys.stderr)
                del sides[name]
        times = {name: [] for name in sides}
        for _ in range(ROUNDS):
            for name, fn in sides.items():
                times[name].append(kernel_ms(fn))
        base = statistics.median(times["cublas"])
        for name in sides:
            ms = statistics.median(times[name])
            tflops = 2 * M * N * K / ms / 1e9
            rows.append({"shape": [M, N, K], "side": name, "ms": ms,
                         "tflops": tflops, "vs_cublas": base / ms})
            print("%-28s %-20s %8.3f ms %7.0f TFLOP/s %6.3fx cuBLAS"
                  % (name, "%dx%dx%d" % (M, N, K), ms, tflops, base / ms))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"date": time.strftime("%Y-%m-%d"), "rounds": ROUNDS,
                       "device": torch.cuda.get_device_name(), "rows": rows},
                      f, indent=1)


if __name__ == "__main__":
    main()
