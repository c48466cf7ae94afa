"""``tilelang.contrib``: of TileLang's helpers, ``contrib.nvcc``'s queries
of the CUDA installation and device (``get_target_compute_version``,
``get_cuda_version``). Its compilers and code generators are TVM's and are
not provided."""

import os
import re
import shutil
import subprocess
import sys

from . import _tilelang

__path__ = []  # a package whose one submodule, .nvcc, is this module


def get_target_compute_version(target=None):
    """CUDA device 0's compute capability as "major.minor" ("9.0" on an
    H200); a RuntimeError saying why when there is no device."""
    capability, why = _tilelang.cuda_compute_capability()
    if capability is None:
        raise RuntimeError("no CUDA device: %s" % why)
    return "%d.%d" % (capability // 10, capability % 10)


def _nvcc():
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    candidate = os.path.join(home, "bin", "nvcc")
    return candidate if os.path.exists(candidate) else shutil.which("nvcc")


def get_cuda_version(cuda_path=None):
    """The CUDA toolkit's (major, minor), from ``nvcc --version``
    ($CUDA_HOME, /usr/local/cuda or PATH); a RuntimeError without one."""
    nvcc = os.path.join(cuda_path, "bin", "nvcc") if cuda_path else _nvcc()
    if not nvcc or not os.path.exists(nvcc):
        raise RuntimeError("no nvcc: set CUDA_HOME to the CUDA toolkit")
    output = subprocess.run([nvcc, "--version"], capture_output=True,
                            text=True, check=False).stdout
    match = re.search(r"release (\d+)\.(\d+)", output)
    if not match:
        raise RuntimeError("cannot read the CUDA version from %s --version" % nvcc)
    return int(match.group(1)), int(match.group(2))


sys.modules.setdefault(__name__ + ".nvcc", sys.modules[__name__])
