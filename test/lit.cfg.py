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

# A CUDA driver (libcuda.so.1) on this machine.
try:
    import ctypes
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass

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
