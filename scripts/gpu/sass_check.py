#!/usr/bin/env python3
"""Checks the SASS of the benchmarked sm_90a kernels for the instructions
the Hopper lowering is meant to produce: HGMMA (wgmma), UTMALDG / UTMASTG
(TMA loads and stores), SYNCS (mbarriers), USETMAXREG (setmaxnreg), FENCE
(the proxy fences), and no LDGSTS (cp.async) where TMA carries the copies.
Prints each kernel's counts of those opcodes and of LDL / STL (spills),
writes each listing to --out, and exits 1 when a kernel lacks what it must
have or has what it must not.

Needs the Python package (PYTHONPATH) and the CUDA toolkit (ptxas;
cuobjdump or nvdisasm):
    PYTHONPATH=<package dir> python3 scripts/gpu/sass_check.py --out DIR
"""

import argparse
import os
import subprocess
import sys

from tilelang_mlir import device_code, lower

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN_GEMM = os.path.join(ROOT, "test", "Integration", "Inputs", "gen_gemm.py")
SHOWN = ("HGMMA", "UTMALDG", "UTMASTG", "SYNCS", "USETMAXREG", "FENCE",
         "LDGSTS", "LDSM", "STSM", "LDL", "STL")
GEMM_TN = ["--dtype", "f16", "--acc", "f32", "--out", "f16", "--tb",
           "--block", "128x256x64", "--threads", "256", "--stages", "4",
           "--policy", "full_row", "--raster", "8", "--stage-epilogue"]

# name, source (a file or gen_gemm.py's arguments), opcodes it must have,
# opcodes it must not have.
KERNELS = [
    ("gemm TN 128x256x64 (the benchmark's)", GEMM_TN,
     {"HGMMA", "UTMALDG", "UTMASTG", "SYNCS", "FENCE"}, {"LDGSTS"}),
    ("gemm NN 128x256x64 panels", [a for a in GEMM_TN if a != "--tb"],
     {"HGMMA", "UTMALDG", "UTMASTG", "SYNCS"}, {"LDGSTS"}),
    ("example gemm_relu", "examples/gemm_relu.mlir",
     {"HGMMA", "UTMALDG", "SYNCS"}, {"LDGSTS"}),
    ("attention d128 (the benchmark's)",
     "bench/kernels/flash_attention_d128_overlap.mlir",
     {"HGMMA", "UTMALDG", "UTMASTG", "SYNCS", "USETMAXREG"}, {"LDGSTS"}),
]


def source_of(spec):
    if isinstance(spec, list):
        return subprocess.run([sys.executable, GEN_GEMM] + spec, check=True,
                              capture_output=True, text=True).stdout
    with open(os.path.join(ROOT, spec)) as f:
        return f.read()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chip", default="sm_90a")
    parser.add_argument("--out", help="directory for the SASS listings")
    args = parser.parse_args()
    pipeline = "tile-to-nvvm{chip=%s features=+ptx80 format=bin}" % args.chip
    failed = 0
    for name, spec, required, forbidden in KERNELS:
        try:
            cubins = device_code.binaries(lower(source_of(spec), pipeline))
            listing = "\n".join(device_code.sass(c) for c in cubins)
        except Exception as error:  # noqa: BLE001 (reported)
            print("FAIL %s: %s" % (name, error))
            failed += 1
            continue
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            path = os.path.join(args.out, "sass-%s.txt" % name.split(" (")[0]
                                .replace(" ", "-"))
            with open(path, "w") as f:
                f.write(listing)
        counts = device_code.opcodes(listing)
        missing = sorted(op for op in required if not counts.get(op))
        present = sorted(op for op in forbidden if counts.get(op))
        ok = cubins and not missing and not present
        failed += not ok
        print("%s %s: %s%s%s" % (
            "PASS" if ok else "FAIL", name,
            ", ".join("%s %d" % (op, counts.get(op, 0)) for op in SHOWN),
            "; missing " + " ".join(missing) if missing else "",
            "; unexpected " + " ".join(present) if present else ""))
    print("sass: %d passed, %d failed" % (len(KERNELS) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
