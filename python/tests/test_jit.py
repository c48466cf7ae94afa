"""@jit: outputs, specialization, argument checking."""

import inspect
import os
import re

import numpy as np
import pytest

import tilelang_mlir
import tilelang_mlir.language as T

from kernels import matmul, matmul_func, tile_copy_func


def test_outputs_and_symbolic_sizes():
    rng = np.random.default_rng()
    kernel = matmul(T.symbolic("M"), 48, 40)
    for m in (1, 33, 64):
        a = rng.standard_normal((m, 40)).astype(np.float16)
        b = rng.standard_normal((40, 48)).astype(np.float16)
        c = kernel(a, b)
        assert c.shape == (m, 48) and c.dtype == np.float32
        np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32),
                                   rtol=1e-3, atol=1e-3)


def test_traced_once_per_arguments():
    assert matmul(64, 64, 32) is matmul(64, 64, 32)
    assert matmul(64, 64, 32) is not matmul(64, 64, 32, block_M=16)


def test_several_outputs_and_negative_out_idx():
    @tilelang_mlir.jit(out_idx=[-2, -1])
    def split(N):
        @T.prim_func
        def main(X: T.Tensor((N,), T.float32), Lo: T.Tensor((N,), T.float32),
                 Hi: T.Tensor((N,), T.float32)):
            with T.Kernel(T.ceildiv(N, 32), threads=32) as bx:
                for i in T.Parallel(32):
                    v = X[bx * 32 + i]
                    Lo[bx * 32 + i] = T.min(v, 0.0)
                    Hi[bx * 32 + i] = T.max(v, 0.0)
        return main

    x = np.random.default_rng().standard_normal(64).astype(np.float32)
    lo, hi = split(64)(x)
    np.testing.assert_array_equal(lo, np.minimum(x, 0))
    np.testing.assert_array_equal(hi, np.maximum(x, 0))


def test_bad_arguments():
    kernel = matmul(32, 32, 16)
    good = np.zeros((32, 16), np.float16)
    with pytest.raises(TypeError, match="takes 2 inputs"):
        kernel(good)
    with pytest.raises(tilelang_mlir.TileError, match="numpy array"):
        kernel(good, [[1.0]])
    with pytest.raises(tilelang_mlir.TileError, match="element type f16"):
        kernel(good, np.zeros((16, 32), np.float32))
    with pytest.raises(tilelang_mlir.TileError, match="expected shape 16x32"):
        kernel(good, np.zeros((17, 32), np.float16))


def test_out_idx_must_name_a_tensor():
    with pytest.raises(ValueError, match="out_idx 5"):
        tilelang_mlir.compile(matmul(32, 32, 16).func, out_idx=[5])


def test_kernel_source_has_python_locations():
    source = matmul(32, 32, 16).get_kernel_source()
    assert "tile.gemm" in source and "kernels.py" in source


def test_if_regions_are_located_at_the_users_line():
    @T.prim_func
    def guarded(A: T.Tensor((64,), T.float32)):
        with T.Kernel(1, threads=64) as bx:
            for i in T.Parallel(64):
                with T.If(i < 10):
                    A[i] = 1.0

    lines, first = inspect.getsourcelines(test_if_regions_are_located_at_the_users_line)
    line = first + next(n for n, l in enumerate(lines) if "with T.If(i < 10)" in l)
    closings = [l.strip() for l in guarded.script().splitlines()
                if l.strip().startswith("} loc(")]
    # Every region is located in this file (not in contextlib or the
    # package); the scf.if at its `with` line.
    assert closings and all("test_jit.py" in c for c in closings), closings
    assert any("test_jit.py\":%d:" % line in c for c in closings), (line, closings)


def test_size_arithmetic_in_shapes():
    M, K = T.symbolic("M"), T.symbolic("K")

    @tilelang_mlir.jit(out_idx=[1])
    def pair_sums(block=16):
        @T.prim_func
        def main(X: T.Tensor((M, K), T.float32),
                 Y: T.Tensor((M, K // 2), T.float32)):
            with T.Kernel(T.ceildiv(K // 2, block), M, threads=32) as (bx, by):
                sums = T.alloc_fragment((block,), T.float32)
                for j in T.Parallel(block):
                    col = bx * block + j
                    sums[j] = (X[by, T.min(2 * col, K - 1)] +
                               X[by, T.min(2 * col + 1, K - 1)])
                # Columns past K // 2 fall outside Y: the copy drops them.
                T.copy(sums, Y[by, bx * block])
        return main

    x = np.arange(5 * 70, dtype=np.float32).reshape(5, 70)
    y = pair_sums()(x)
    assert y.shape == (5, 35)
    np.testing.assert_array_equal(y, x[:, 0::2] + x[:, 1::2])


def test_kernel_source_at_each_stage():
    kernel = matmul(64, 64, 32, block_M=32, block_N=32, block_K=16)
    assert "tile.pipelined" in kernel.get_kernel_source()
    pipelined = kernel.get_kernel_source("pipelined", target="sm_90a")
    assert re.search(r"\{async, engine = #tile.copy_engine<(tma|cp_async)>\}",
                     pipelined)
    # The GPU stages are the compile's own pipeline stopped early: the
    # instructions and copy engines it selects, the layouts it infers.
    selected = kernel.get_kernel_source("selected", target="sm_90a")
    assert "instruction = #tile.gemm_instruction<" in selected
    assert "{engine = #tile.copy_engine<vector>}" in selected
    assert "{async" not in selected
    layouts = kernel.get_kernel_source("layouts", target="sm_90a")
    assert "#tile.fragment<" in layouts and "{async, engine" in layouts
    assert "#tile.gemm_instruction<mfma m16n16k16>" in kernel.get_kernel_source(
        "selected", target="gfx942")
    # The CPU compile selects no instructions and plans no pipelines: its
    # stages are its own.
    for stage in ("selected", "pipelined", "layouts"):
        with pytest.raises(ValueError,
                           match="selected, pipelined and layouts on GPU"):
            kernel.get_kernel_source(stage)
    loops = kernel.get_kernel_source("loops")
    assert not re.search(r"^\s*(%\S+ = )?tile\.", loops, re.M)  # no tile op
    assert "scf.for" in loops
    gpu = kernel.get_kernel_source("loops", target="sm_90a")
    assert "gpu.launch" in gpu and "nvgpu.mma.sync" in gpu
    assert "llvm.func @main" in kernel.get_kernel_source("llvm")
    ptx = kernel.get_kernel_source("ptx", target="sm_90a")
    assert ".target sm_90a" in ptx and "mma.sync.aligned.m16n8k16" in ptx
    assert "cp.async" in ptx and "ldmatrix" in ptx
    with pytest.raises(ValueError, match="stage is one of"):
        kernel.get_kernel_source("bitcode")
    with pytest.raises(ValueError, match="CUBIN exists for NVIDIA targets"):
        kernel.get_kernel_source("cubin", target="gfx942")
    with pytest.raises(ValueError, match="NVIDIA"):
        kernel.get_kernel_source("ptx", target="gfx942")


def _fake_tool(directory, name, lines):
    """An executable `name` in `directory` that prints its arguments, the
    first four bytes of its last argument in hex, then `lines`."""
    directory.mkdir(parents=True, exist_ok=True)
    tool = directory / name
    tool.write_text("#!/bin/sh\necho \"args: $*\"\n"
                    "for last; do :; done\n"
                    "head -c 4 \"$last\" | od -An -tx1\n"
                    + "".join("echo '%s'\n" % line for line in lines))
    tool.chmod(0o755)


def _assert_whole_cubin(cubin):
    """A CUDA ELF whose bytes are all there: its header tables end it."""
    def field(at, size):
        return int.from_bytes(cubin[at:at + size], "little")
    assert cubin[:4] == b"\x7fELF" and field(18, 2) == 190  # EM_CUDA
    ends = (field(32, 8) + field(54, 2) * field(56, 2),  # program headers
            field(40, 8) + field(58, 2) * field(60, 2))  # section headers
    assert max(ends) == len(cubin)


def test_cubin_and_its_sass(tmp_path, monkeypatch):
    from tilelang_mlir import device_code
    if device_code.find_cuda_tool("ptxas") is None:
        pytest.skip("no ptxas (CUDA toolkit) here")
    kernel = matmul(64, 64, 32, block_M=32, block_N=32, block_K=16)
    cubin = kernel.get_kernel_source("cubin", target="sm_90a")
    assert isinstance(cubin, bytes) and b"main_kernel" in cubin
    _assert_whole_cubin(cubin)
    # A larger kernel, whose cubin holds backslashes (escaped apart).
    with open(os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                           "gemm_relu.mlir")) as f:
        [big] = device_code.binaries(tilelang_mlir.lower(
            f.read(), "tile-to-nvvm{chip=sm_90a format=bin}"))
    assert b"\\" in big and b"gemm_relu_kernel" in big
    _assert_whole_cubin(big)
    # SASS through cuobjdump (here stand-ins that show what they were given).
    listing = [
        "        /*0000*/                   LDC R1, c[0x0][0x28] ;",
        "        /*0010*/              @!P0 UTMALDG.2D [UR8], [UR4] ;",
        "        /*0020*/                   HGMMA.64x32x16.F32 R24, gdesc[UR4], RZ ;",
        "        /*0030*/                   HGMMA.64x32x16.F32 R24, gdesc[UR8], R24 ;",
    ]
    _fake_tool(tmp_path / "bin", "cuobjdump", listing)
    monkeypatch.setenv("PATH", "%s:%s" % (tmp_path / "bin", os.environ["PATH"]))
    sass = kernel.get_kernel_source("sass", target="sm_90a")
    assert "args: -sass " in sass and "7f 45 4c 46" in sass
    assert device_code.opcodes(sass) == {"LDC": 1, "UTMALDG": 1, "HGMMA": 2}
    # Found in $CUDA_HOME/bin and the default root too; nvdisasm when there
    # is no cuobjdump; a clear error when neither is anywhere.
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "cuda"))
    monkeypatch.setattr(device_code, "DEFAULT_CUDA_HOME", str(tmp_path / "none"))
    with pytest.raises(RuntimeError, match="SASS needs cuobjdump or nvdisasm"):
        device_code.sass(cubin)
    _fake_tool(tmp_path / "none" / "bin", "nvdisasm", listing)
    assert "args: -c " in device_code.sass(cubin)
    _fake_tool(tmp_path / "cuda" / "bin", "cuobjdump", ["failing"])
    (tmp_path / "cuda" / "bin" / "cuobjdump").write_text(
        "#!/bin/sh\necho 'cuobjdump fatal' >&2\nexit 3\n")
    with pytest.raises(RuntimeError,
                       match=r"cuobjdump failed \(exit 3\): cuobjdump fatal"):
        device_code.sass(cubin)
    with pytest.raises(ValueError, match="not a cubin"):
        device_code.sass(b"\x7fELF" + bytes(60))


def test_device_code_strings_round_trip():
    from tilelang_mlir import device_code
    blob = bytes(range(256)) + b'">,\\'
    # As MLIR prints a string attribute (llvm::printEscapedString).
    escaped = "".join("\\\\" if b == 0x5C else
                      chr(b) if 32 <= b < 127 and b != 0x22 else
                      "\\%02X" % b for b in blob)
    text = ('gpu.binary @k [#gpu.object<#nvvm.target<chip = "sm_90a">, '
            'properties = {O = 3 : i32}, bin = "%s">, #gpu.object<'
            '#nvvm.target<chip = "sm_80">, bin = "\\00x">]' % escaped)
    assert device_code.binaries(text) == [blob, b"\x00x"]
    assert device_code.assembly('assembly = "a\\0Ab\\22"') == ['a\nb"']


def test_gpu_targets_compile_here_and_say_why_they_cannot_run():
    import ctypes
    try:
        ctypes.CDLL("libcuda.so.1")
        pytest.skip("a CUDA driver is installed")
    except OSError:
        pass
    kernel = tilelang_mlir.compile(matmul(32, 32, 16).func, out_idx=[-1],
                                   target="sm_90a")
    a = np.zeros((32, 16), np.float16)
    b = np.zeros((16, 32), np.float16)
    with pytest.raises(tilelang_mlir.TileError,
                       match="cannot run on cuda:sm_90a:.*: no CUDA driver"):
        kernel(a, b)
    assert ".target sm_90a" in kernel.get_kernel_source("ptx")


class DLPackTensor:
    """A tensor that only speaks DLPack (as torch or cupy tensors do to us),
    over a numpy array; `device` claims where it lives."""

    def __init__(self, array, device=(1, 0)):
        self.array = array
        self.shape = array.shape
        self.device = device
        self.exported = 0

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None):
        self.exported += 1
        return self.array.__dlpack__()


def test_dlpack_tensors_in_numpy_out():
    rng = np.random.default_rng()
    kernel = matmul(T.symbolic("M"), 48, 40)
    a = rng.standard_normal((33, 40)).astype(np.float16)
    b = rng.standard_normal((40, 48)).astype(np.float16)
    ta, tb = DLPackTensor(a), DLPackTensor(b)
    c = kernel(ta, tb)
    assert ta.exported == 1 and tb.exported == 1
    assert isinstance(c, np.ndarray) and c.shape == (33, 48)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32),
                               rtol=1e-3, atol=1e-3)
    # A DLPack output is written in place.
    out = np.full((33, 48), np.nan, np.float32)
    split = tilelang_mlir.compile(matmul(T.symbolic("M"), 48, 40).func)
    split(ta, tb, DLPackTensor(out))
    np.testing.assert_allclose(out, c, rtol=0, atol=0)


def test_dlpack_strides_are_checked():
    # The traced parameters are contiguous row-major buffers: a strided
    # view (every other column) is refused with the stride that is wrong,
    # not read as if it were contiguous.
    kernel = matmul(40, 48, 32)
    a = np.zeros((40, 64), np.float16)[:, ::2]
    b = np.zeros((32, 48), np.float16)
    with pytest.raises(tilelang_mlir.TileError,
                       match="contiguous and row-major; dimension 1 has "
                             "stride 2, expected 1"):
        kernel(DLPackTensor(a), DLPackTensor(b))


def test_dlpack_device_tensors_need_a_device_target():
    kernel = matmul(32, 32, 16)
    a = DLPackTensor(np.zeros((32, 16), np.float16), device=(2, 0))
    b = np.zeros((16, 32), np.float16)
    with pytest.raises(tilelang_mlir.TileError,
                       match="argument 0 .* lives on a CUDA device, but the "
                             "kernel's target is cpu"):
        kernel(a, b)
    # Tensors on two devices: refused by name before anything runs.
    with pytest.raises(tilelang_mlir.TileError,
                       match=r"argument 1 \('B'\) is on device 3, but argument 0 "
                             r"\('A'\) is on device 0: a kernel runs on one device"):
        kernel(a, DLPackTensor(np.zeros((16, 32), np.float16), device=(2, 3)))
    with pytest.raises(tilelang_mlir.TileError, match="DLPack device type 7"):
        kernel(DLPackTensor(np.zeros((32, 16), np.float16), device=(7, 0)), b)
    with pytest.raises(tilelang_mlir.TileError, match="unsupported DLPack "
                                                      "dtype"):
        kernel(DLPackTensor(np.zeros((32, 16), np.complex64)), b)
    # An unsigned tensor is a known dtype, refused by the signature.
    with pytest.raises(tilelang_mlir.TileError,
                       match="expected element type f16, got ui16"):
        kernel(DLPackTensor(np.zeros((32, 16), np.uint16)), b)


def test_torch_tensors_in_torch_out():
    torch = pytest.importorskip("torch")
    kernel = matmul(T.symbolic("M"), 48, 40)
    a = torch.randn(33, 40, dtype=torch.float16)
    b = torch.randn(40, 48, dtype=torch.float16)
    c = kernel(a, b)
    assert isinstance(c, torch.Tensor) and c.dtype == torch.float32
    torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-3, atol=1e-3)


def test_pass_configs_reach_the_compile():
    rng = np.random.default_rng()
    kernel = tilelang_mlir.compile(matmul(64, 48, 40).func, out_idx=[-1],
                                   pass_configs={"opt_level": 1,
                                                 "fp_contract": False})
    a = rng.standard_normal((64, 40)).astype(np.float16)
    b = rng.standard_normal((40, 48)).astype(np.float16)
    np.testing.assert_allclose(kernel(a, b),
                               a.astype(np.float32) @ b.astype(np.float32),
                               rtol=1e-3, atol=1e-3)
    report = kernel._kernel.prepare(a, b, np.empty((64, 48), np.float32))
    assert report["key_components"]["host-opt-level"] == "1"
    # The key holds the passes the pipeline runs.
    assert report["pipeline"] == "tile-to-cpu{emit-c-interface=true}"
    assert report["passes"].startswith("builtin.module(tile-verify-dims,")
    assert "convert-tile-to-scf" in report["passes"]


def test_every_compile_option_is_a_pass_config():
    """Every compile option is a pass_configs key that reaches the GPU
    pipeline's text (the compile's own, as get_kernel_source shows it)."""
    options = tilelang_mlir.compile_options()
    keys = [option["key"] for option in options]
    assert len(keys) == len(set(keys)) > 20
    assert {"wgmma", "tma_release", "warp_specialize", "ftz",
            "min_blocks_per_sm"} <= set(keys)
    default = tilelang_mlir.jit_pipeline("sm_90a")
    assert default == ("tile-to-nvvm{chip=sm_90a features=+ptx80 format=bin "
                       "emit-c-interface=true}")
    for option in options:
        assert option["flag"].replace("-", "_") == option["key"]
        assert option["type"] in ("bool", "int") and option["description"]
        value = (not option["default"] if option["type"] == "bool"
                 else option["default"] + 1)
        text = tilelang_mlir.jit_pipeline("sm_90a", {option["key"]: value})
        printed = str(value).lower() if option["type"] == "bool" else str(value)
        assert text == default[:-1] + " %s=%s}" % (option["flag"], printed)
        rocm = tilelang_mlir.jit_pipeline("gfx942", {option["key"]: value})
        # Options NVIDIA alone has leave the AMD pipeline as it is.
        assert (option["flag"] in rocm) == ("rocm" in option["targets"])


def test_kernel_source_follows_pass_configs():
    """A stage shown by get_kernel_source is the compile's pipeline with the
    kernel's pass_configs: without wgmma, the gemm is an mma.sync."""
    func = matmul_func(128, 128, 64, block_M=128, block_N=128, block_K=32,
                       threads=256)
    wgmma = tilelang_mlir.compile(func, target="sm_90a")
    plain = tilelang_mlir.compile(func, target="sm_90a",
                                  pass_configs={"wgmma": False})
    assert "gemm_instruction<wgmma" in wgmma.get_kernel_source("selected")
    selected = plain.get_kernel_source("selected")
    assert "gemm_instruction<wgmma" not in selected
    assert "gemm_instruction<mma_sync" in selected


def test_pass_configs_are_checked():
    func = matmul(32, 32, 16).func
    with pytest.raises(tilelang_mlir.TileError,
                       match="unknown pass_configs key 'warp_specialise' "
                             r"\(known: opt_level, .*warp_specialize"):
        tilelang_mlir.compile(func, pass_configs={"warp_specialise": True})
    with pytest.raises(tilelang_mlir.TileError,
                       match=r"pass_configs\['pingpong'\] is a bool"):
        tilelang_mlir.compile(func, pass_configs={"pingpong": 1})
    with pytest.raises(tilelang_mlir.TileError,
                       match=r"pass_configs\['tma_release_max_stages'\] is "
                             "an integer"):
        tilelang_mlir.compile(func, pass_configs={"tma_release_max_stages": True})
    with pytest.raises(tilelang_mlir.TileError,
                       match=r"pass_configs\['opt_level'\] is 0, 1, 2 or 3"):
        tilelang_mlir.compile(func, pass_configs={"opt_level": 7})


def test_staged_epilogue_is_a_tma_store():
    # C through a shared tile: layout inference swizzles it, and on sm_90a
    # the copy to C is a TMA store (tma_store=False: the threads' stores).
    main = matmul_func(200, 136, 72, block_M=128, block_N=64, block_K=64,
                       threads=128, stages=2, out_dtype=T.float16,
                       stage_epilogue=True)
    store = "cp.async.bulk.tensor.2d.global.shared::cta"
    tma = tilelang_mlir.compile(main, out_idx=[-1], target="sm_90a")
    plain = tilelang_mlir.compile(main, out_idx=[-1], target="sm_90a",
                                  pass_configs={"tma_store": False})
    assert store in tma.get_kernel_source("ptx")
    assert "cp.async.bulk.wait_group.read" in tma.get_kernel_source("ptx")
    assert store not in plain.get_kernel_source("ptx")
    # The same kernel on the CPU, edge tiles included.
    rng = np.random.default_rng()
    kernel = tilelang_mlir.compile(main, out_idx=[-1])
    a = rng.standard_normal((200, 72)).astype(np.float16)
    b = rng.standard_normal((72, 136)).astype(np.float16)
    np.testing.assert_allclose(
        kernel(a, b).astype(np.float32),
        a.astype(np.float32) @ b.astype(np.float32), rtol=2e-2, atol=2e-2)


def test_pass_configs_shape_the_ptx():
    # Two warpgroups, a 2-stage TMA pipeline: warp specialization applies
    # (by default on sm_90a).
    main = matmul_func(256, 256, 256, block_M=128, block_N=128, block_K=64,
                       threads=256, stages=2)
    plain = tilelang_mlir.compile(main, out_idx=[-1], target="sm_90a",
                                  pass_configs={"warp_specialize": False})
    special = tilelang_mlir.compile(main, out_idx=[-1], target="sm_90a")
    no_tma = tilelang_mlir.compile(main, out_idx=[-1], target="sm_90a",
                                   pass_configs={"tma": False})
    assert "setmaxnreg" not in plain.get_kernel_source("ptx")
    ptx = special.get_kernel_source("ptx")
    assert "setmaxnreg.dec.sync.aligned.u32 \t24;" in ptx
    assert ".maxntid 384, 1, 1" in ptx
    assert "cp.async.bulk.tensor" in plain.get_kernel_source("ptx")
    assert "cp.async.bulk.tensor" not in no_tma.get_kernel_source("ptx")
    # min_blocks_per_sm: ptxas's .minnctapersm on kernels without warp
    # specialization only.
    bounded = tilelang_mlir.compile(
        main, out_idx=[-1], target="sm_90a",
        pass_configs={"min_blocks_per_sm": 2, "warp_specialize": False})
    assert ".minnctapersm 2" in bounded.get_kernel_source("ptx")
    assert ".minnctapersm" not in plain.get_kernel_source("ptx")
    specialized = tilelang_mlir.compile(main, out_idx=[-1], target="sm_90a",
                                        pass_configs={"min_blocks_per_sm": 2})
    assert ".minnctapersm" not in specialized.get_kernel_source("ptx")


def test_zero_size_arrays_run():
    """An empty input (numpy gives it zero strides) is not refused as
    non-contiguous: the kernel runs over an empty grid and returns an empty
    output."""
    kernel = tilelang_mlir.compile(tile_copy_func(), out_idx=[1])
    for shape in ((0, 5), (5, 0), (0, 0)):
        out = kernel(np.zeros(shape, np.float32))
        assert out.shape == shape
    a = np.random.default_rng().standard_normal((3, 40)).astype(np.float32)
    np.testing.assert_array_equal(kernel(a), a)


@pytest.mark.parametrize("form,size", [("mul", 4), ("add", 15), ("muladd", 5), ("sub", 18)])
def test_symbol_solved_from_a_size_expression(form, size):
    # TileLang's T.Tensor((n * 4,)): n is only known through the size; it is
    # solved from the tensor's dimension, in the kernel and for outputs.
    n = T.symbolic("n")
    dim = {"mul": n * 4, "add": n + 1, "muladd": n * 3 + 1, "sub": n - 2}[form]

    @T.prim_func
    def kernel(A: T.Tensor((dim,), T.int32), B: T.Tensor((n,), T.int32)):
        with T.Kernel(1, threads=32):
            for i in range(dim):
                A[i] = 7
            for i in range(n):
                B[i] = n

    A = np.arange(16, dtype=np.int32)
    B = tilelang_mlir.compile(kernel, out_idx=[1], target="cpu")(A)
    np.testing.assert_array_equal(A, np.full(16, 7))
    np.testing.assert_array_equal(B, np.full(size, size))
