"""Real TileLang's CUDA source and ptxas report for a bench program, on a
machine without a GPU (this one): TileLang compiles through TVM and nvcc
and only fails when it loads the kernel, so its generated .cu is kept and
compiled again here with `ptxas -v`.

    bash ../shared/peers/tilelang_site.sh /tmp/tlsite.tar.xz   (or the carried copy)
    mkdir -p /tmp/tlsite && tar xJf /tmp/tlsite.tar.xz -C /tmp/tlsite
    ~/.pyenv/versions/3.12.1/bin/python3.12 -m pip install numpy ml_dtypes cloudpickle psutil tqdm
    PYTHONPATH=/tmp/tlsite ~/.pyenv/versions/3.12.1/bin/python3.12 \\
        bench/tilelang_source.py --case "attention bhsd d128 full example" --out /tmp/tl

TileLang imports torch: a stub module (written to a temporary folder and put
first on sys.path) stands in for it when torch is missing. Writes OUT/NAME.cu
and prints ptxas's registers and spills for it.
"""

import argparse
import glob
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

STUB = '''
import types
class _DType:
    def __init__(self, name): self.name = name
    def __repr__(self): return "torch." + self.name
for _n in ("float16 float32 float64 bfloat16 int8 int16 int32 int64 uint8 uint16 "
           "uint32 uint64 bool float8_e4m3fn float8_e5m2 float8_e4m3fnuz "
           "float8_e5m2fnuz float8_e8m0fnu float4_e2m1fn_x2 complex64 complex128 "
           "half float double int long short").split():
    globals()[_n] = _DType(_n)
dtype = _DType
class Tensor: pass
class device:
    def __init__(self, *args, **kwargs): pass
class _Cuda:
    def is_available(self): return False
    def device_count(self): return 0
cuda = _Cuda()
class _Function:
    @staticmethod
    def apply(*args): raise RuntimeError("torch is a stub here")
autograd = types.SimpleNamespace(Function=_Function)
version = types.SimpleNamespace(hip=None, cuda="13.0", __version__="2.11.0")
__version__ = "2.11.0"
'''


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", required=True,
                        help="a bench/tilelang_peer.py case name (a substring)")
    parser.add_argument("--out", default="/tmp/tilelang-source")
    parser.add_argument("--arch", default="sm_90a")
    args = parser.parse_args()
    try:
        import torch  # noqa: F401
    except ImportError:
        stub = tempfile.mkdtemp()
        os.makedirs(os.path.join(stub, "torch"))
        with open(os.path.join(stub, "torch", "__init__.py"), "w") as f:
            f.write(STUB)
        sys.path.insert(0, stub)
    os.environ.setdefault("CUDA_HOME", "/usr/local/cuda")
    sys.path.insert(0, HERE)
    import tilelang
    import tilelang.language as T
    from tvm.target import Target
    import tilelang_peer
    cases = [c for group in tilelang_peer.GROUPS.values() for c in group()
             if args.case in c.name]
    if not cases:
        sys.exit("no case matches %r" % args.case)
    os.makedirs(args.out, exist_ok=True)
    site = os.path.dirname(os.path.dirname(tilelang.__file__))
    includes = ["-I" + os.path.join(site, "tilelang", "src"),
                "-I" + os.path.join(site, "tilelang", "3rdparty", "cutlass", "include")]
    for case in cases:
        before = set(glob.glob(os.path.join(tempfile.gettempdir(), "*.cu")))
        try:
            tilelang.compile(case.build(T), out_idx=case.out_idx,
                             target=Target({"kind": "cuda", "arch": args.arch}),
                             execution_backend="cython")
        except Exception as error:  # noqa: BLE001 (loading fails without a GPU)
            reason = str(error).splitlines()[0][:120] if str(error) else type(error).__name__
            print("(%s: %s)" % (case.name, reason))
        new = sorted(set(glob.glob(os.path.join(tempfile.gettempdir(), "*.cu"))) - before,
                     key=os.path.getmtime)
        if not new:
            print("%s: TileLang wrote no CUDA source" % case.name)
            continue
        name = "".join(ch if ch.isalnum() else "_" for ch in case.name)
        path = os.path.join(args.out, name + ".cu")
        with open(new[-1]) as src, open(path, "w") as dst:
            dst.write(src.read())
        report = subprocess.run(
            ["/usr/local/cuda/bin/nvcc", "-arch=" + args.arch, "-std=c++17", "-O3",
             "--use_fast_math", "-cubin", "-Xptxas", "-v", *includes, path,
             "-o", os.devnull], capture_output=True, text=True)
        lines = [l.strip() for l in report.stderr.splitlines()
                 if "spill" in l or "Used" in l or "error" in l]
        print("%s -> %s\n  %s" % (case.name, path, "\n  ".join(lines)))


if __name__ == "__main__":
    main()
