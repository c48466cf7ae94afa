# -*- Python -*-
# lit configuration of the TileLang regression tests.

import os
import shutil
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TILE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tile_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%tile_src", config.tile_src_root))
config.substitutions.append(("%tile_obj", config.tile_obj_root))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%tile_refs", os.path.join(config.tile_src_root, "test", "Integration", "references")))
config.substitutions.append(("%tile_examples", os.path.join(config.tile_src_root, "examples")))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# An AddressSanitizer build (scripts/asan-check.sh) keeps the caller's stack
# (see runOnLargeStack): the tests of very deep nesting do not apply.
if config.tile_asan.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("asan")

llvm_config.with_environment("PATH", config.tile_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.tile_tools_dir, config.llvm_tools_dir]
tools = ["tile-opt", "tile-run"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Kernels compiled by the tests go to a cache inside the build tree.
config.environment["TILE_CACHE_DIR"] = os.path.join(config.tile_obj_root, "test-cache")
config.environment.pop("TILE_DISABLE_CACHE", None)

# ptxas (CUDA toolkit) for the tests that build cubins.
for cuda_bin in [os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"]:
    if cuda_bin and os.path.exists(os.path.join(cuda_bin, "bin", "ptxas")):
        llvm_config.with_environment("PATH", os.path.join(cuda_bin, "bin"), append_path=True)
        break
if shutil.which("ptxas", path=config.environment["PATH"]):
    config.available_features.add("ptxas")

# A CUDA driver (libcuda.so.1) on this machine, and its first GPU: the
# GPU tests (test/Integration/GPU) need `cuda-gpu` (any GPU the driver
# initializes) and `cuda-sm90` (Hopper: wgmma, TMA, clusters), and compile
# for `%cuda_chip` (sm_90a on Hopper, sm_XY otherwise).
def find_cuda_gpu():
    """(major, minor) of device 0's compute capability, or None."""
    import ctypes
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    config.available_features.add("cuda-driver")
    count, device = ctypes.c_int(0), ctypes.c_int(0)
    major, minor = ctypes.c_int(0), ctypes.c_int(0)
    if (cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0
            or count.value == 0 or cuda.cuDeviceGet(ctypes.byref(device), 0) != 0):
        return None
    # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR.
    if (cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, device) != 0 or
            cuda.cuDeviceGetAttribute(ctypes.byref(minor), 76, device) != 0):
        return None
    return major.value, minor.value


capability = find_cuda_gpu()
if capability:
    config.available_features.add("cuda-gpu")
    if capability[0] == 9:
        config.available_features.add("cuda-sm90")
    chip = "sm_%d%d%s" % (capability[0], capability[1],
                          "a" if capability[0] == 9 else "")
    config.substitutions.append(("%cuda_chip", chip))
    lit_config.note("CUDA GPU: compute capability %d.%d, tests compile for %s"
                    % (capability + (chip,)))
    # torch on that GPU, for the tests that take it as a reference.
    import subprocess
    if subprocess.run([sys.executable, "-c",
                       "import torch; assert torch.cuda.is_available()"],
                      capture_output=True).returncode == 0:
        config.available_features.add("torch-cuda")
if shutil.which("compute-sanitizer", path=config.environment["PATH"]):
    config.available_features.add("compute-sanitizer")

# Fresh random inputs for the tests that draw them (tile-run --seed):
# one seed per lit run, shown in the RUN lines of a failure.
import random
config.substitutions.append(("%random_seed", str(random.randrange(1, 2**32))))

# The Python package (build/python), run by the Python the bindings were
# built for.
if config.tile_python_enabled.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("python-bindings")
    config.substitutions.append(("%tile_python", "env PYTHONPATH=%s %s" % (
        os.path.join(config.tile_obj_root, "python"),
        config.tile_python_executable)))

# The ROCm toolkit folder (device libraries + ld.lld) for AMD code objects.
config.substitutions.append(("%rocm_path", config.tile_rocm_toolkit))
if os.path.isdir(os.path.join(config.tile_rocm_toolkit, "amdgcn", "bitcode")):
    config.available_features.add("rocm-device-libs")
