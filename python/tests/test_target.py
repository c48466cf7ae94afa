"""Targets as TileLang names them (tilelang_mlir.target), TileLang's
pass_configs keys (PassConfigKey) and tilelang_mlir.testing."""

import warnings

import numpy as np
import pytest

import tilelang_mlir
import tilelang_mlir.language as T
from tilelang_mlir import PassConfigKey, _tilelang, determine_target
from tilelang_mlir import target as target_module
from tilelang_mlir import testing as tl_testing
from tilelang_mlir.pass_config import normalize_pass_configs


@pytest.fixture
def device(monkeypatch):
    """Pretends CUDA device 0 has the capability the test sets (None: no
    driver, with a reason), and forgets the one-time 'auto' warning."""
    state = {"capability": None}

    def query():
        if state["capability"] is None:
            return None, "no CUDA driver (libcuda.so.1: not found)"
        return state["capability"], None

    monkeypatch.setattr(_tilelang, "cuda_compute_capability", query)
    monkeypatch.setattr(target_module, "_warned_auto", False)
    monkeypatch.delenv("TILE_TARGET", raising=False)
    return state


def test_real_query_says_why_or_gives_a_capability():
    capability, why = _tilelang.cuda_compute_capability()
    assert (capability is None) != (why is None)
    if capability is None:
        assert isinstance(why, str) and why
    else:
        assert capability >= 10


@pytest.mark.parametrize("given, chip", [
    ("cpu", "cpu"), ("llvm", "cpu"), ("c", "cpu"), ("llvm -mcpu=skylake", "cpu"),
    ("cuda -arch=sm_80", "sm_80"), ("cuda -arch=sm_90", "sm_90a"),
    ("cuda -arch=sm_90a", "sm_90a"), ("cuda -arch=sm_86 -max_num_threads=1024", "sm_86"),
    ({"kind": "cuda", "arch": "sm_80"}, "sm_80"), ({"kind": "hip", "mcpu": "gfx942"}, "gfx942"),
    ("hip -mcpu=gfx1100", "gfx1100"), ("hip -mcpu=gfx942:sramecc+:xnack-", "gfx942"),
    ("sm_90a", "sm_90a"), ("cuda:sm_80:+ptx80", "cuda:sm_80:+ptx80"), ("gfx942", "gfx942"),
    (" sm_80 ", "sm_80"),
])
def test_named_targets(device, given, chip):
    assert determine_target(given) == chip


@pytest.mark.parametrize("capability, chip", [(90, "sm_90a"), (80, "sm_80"), (86, "sm_86"),
                                              (100, "sm_100a")])
def test_auto_and_cuda_take_the_device(device, capability, chip):
    device["capability"] = capability
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert determine_target("auto") == chip
        assert determine_target(None) == chip
        assert determine_target("cuda") == chip
        assert determine_target({"kind": "cuda"}) == chip


def test_auto_without_a_device_warns_once_and_runs_on_the_cpu(device):
    with pytest.warns(RuntimeWarning, match="no CUDA device .*libcuda.*CPU"):
        assert determine_target("auto") == "cpu"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert determine_target("auto") == "cpu"


def test_auto_follows_tile_target(device, monkeypatch):
    device["capability"] = 90
    monkeypatch.setenv("TILE_TARGET", "cuda -arch=sm_80")
    assert determine_target("auto") == "sm_80"
    monkeypatch.setenv("TILE_TARGET", "nonsense")
    with pytest.raises(ValueError, match="'nonsense'"):
        determine_target("auto")


@pytest.mark.parametrize("given, message", [
    ("cuda", "chip of CUDA device 0, and there is none here .*libcuda"),
    ("hip", "ROCm devices are not queried"),
    ("metal", "metal is a TileLang backend this compiler does not have"),
    ("webgpu", "does not have"), ("cutedsl", "does not have"),
    ("gpu", "unknown target"), ("sm90", "unknown target"), ("auto2", "unknown target"),
    ("", "empty"), ("cuda -arch=ampere", "not a CUDA chip"),
    ("hip -mcpu=sm_80", "not an AMD chip"), ("cuda arch=sm_80", "not a -key=value"),
    ("vulkan -x=1", "does not have"), ("tpu -x=1", "unknown kind"),
    ({"arch": "sm_80"}, "needs a 'kind'"), ({"kind": "tpu"}, "unknown kind"),
    (42, "not a target here"),
])
def test_refused_targets_say_why(device, given, message):
    with pytest.raises(ValueError, match=message):
        determine_target(given)


def add_one(n):
    @T.prim_func
    def main(A: T.Tensor((n,), T.float32), B: T.Tensor((n,), T.float32)):
        with T.Kernel(n // 32, threads=32) as bx:
            for i in T.Parallel(32):
                B[bx * 32 + i] = A[bx * 32 + i] + 1.0
    return main


def test_compile_defaults_to_auto(device):
    """Without a device, the default target is the CPU (after the warning)
    and the kernel computes; a misspelled target never runs anywhere."""
    with pytest.warns(RuntimeWarning, match="CPU"):
        kernel = tilelang_mlir.compile(add_one(128), out_idx=[1])
    assert kernel.target == "cpu"
    a = np.random.default_rng().standard_normal(128).astype(np.float32)
    np.testing.assert_array_equal(kernel(a), a + np.float32(1))
    with pytest.raises(ValueError, match="'gpu'"):
        tilelang_mlir.compile(add_one(128), out_idx=[1], target="gpu")
    # A named chip compiles for it, device or not.
    kernel = tilelang_mlir.compile(add_one(128), out_idx=[1], target="cuda -arch=sm_90")
    assert kernel.target == "sm_90a"
    assert "gpu.launch" in kernel.get_kernel_source("loops")
    assert "gpu.launch" in tilelang_mlir.compile(add_one(128), out_idx=[1]).get_kernel_source(
        "loops", target="cuda -arch=sm_80")


def test_pass_config_keys_map_onto_compile_options():
    assert normalize_pass_configs({PassConfigKey.TL_DISABLE_WARP_SPECIALIZED: True}) == {
        "warp_specialize": False}
    assert normalize_pass_configs({"tl.disable_tma_lower": True}) == {
        "tma": False, "tma_store": False}
    assert normalize_pass_configs({PassConfigKey.TL_DISABLE_WGMMA: False}) == {"wgmma": True}
    assert normalize_pass_configs({PassConfigKey.TL_ENABLE_FAST_MATH: False}) == {"ftz": False}
    assert normalize_pass_configs({PassConfigKey.TL_DISABLE_SHARED_MEMORY_REUSE: True}) == {
        "reuse_shared_memory": False}
    # The compiler's own key wins over a TileLang key that sets the same option.
    assert normalize_pass_configs({"warp_specialize": True,
                                   PassConfigKey.TL_DISABLE_WARP_SPECIALIZED: True}) == {
        "warp_specialize": True}
    assert normalize_pass_configs(None) == {}


def test_pass_config_keys_ignored_warn_once_refused_say_why(monkeypatch):
    from tilelang_mlir import pass_config
    monkeypatch.setattr(pass_config, "_warned", set())
    with pytest.warns(RuntimeWarning, match=r"\[TL_ENABLE_DUMP_IR\] is accepted and ignored"):
        assert normalize_pass_configs({PassConfigKey.TL_ENABLE_DUMP_IR: True}) == {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert normalize_pass_configs({"tl.enable_dump_ir": True}) == {}
    with pytest.raises(ValueError, match=r"TIR_ADD_LOWER_PASS\] is not supported: .*TVM"):
        normalize_pass_configs({PassConfigKey.TIR_ADD_LOWER_PASS: []})
    with pytest.raises(ValueError, match="'tl.no_such_key' is not one of TileLang's"):
        normalize_pass_configs({"tl.no_such_key": 1})
    with pytest.raises(TypeError, match="strings or PassConfigKey"):
        normalize_pass_configs({3: 1})


def test_pass_config_keys_reach_the_pipeline():
    """TileLang's key changes the pipeline the kernel compiles with exactly
    as the compiler's own key does."""
    kernel = tilelang_mlir.compile(add_one(64), out_idx=[1], target="sm_90a",
                                   pass_configs={PassConfigKey.TL_DISABLE_WGMMA: True})
    own = tilelang_mlir.compile(add_one(64), out_idx=[1], target="sm_90a",
                                pass_configs={"wgmma": False})
    default = tilelang_mlir.compile(add_one(64), out_idx=[1], target="sm_90a")
    assert kernel.pass_configs == own.pass_configs == {"wgmma": False}
    text = tilelang_mlir.jit_pipeline("sm_90a", kernel.pass_configs)
    assert "wgmma=false" in text
    assert text != tilelang_mlir.jit_pipeline("sm_90a", default.pass_configs)
    with pytest.raises(tilelang_mlir.TileError, match="unknown pass_configs key 'warp_specialise'"):
        tilelang_mlir.compile(add_one(64), out_idx=[1], pass_configs={"warp_specialise": False})


def test_torch_assert_close_tolerates_a_ratio_of_mismatches():
    rng = np.random.default_rng()
    a = rng.standard_normal(10000)
    b = a.copy()
    b[:5] += 1.0
    tl_testing.torch_assert_close(b, a, rtol=1e-2, atol=1e-2, max_mismatched_ratio=0.001)
    b[:20] += 1.0
    with pytest.raises(AssertionError, match="20 of 10000 elements differ .*at most 10 allowed"):
        tl_testing.torch_assert_close(b, a, rtol=1e-2, atol=1e-2, max_mismatched_ratio=0.001)
    with pytest.raises(AssertionError, match="shape"):
        tl_testing.torch_assert_close(a[:10], a[:11])
    nan = np.array([np.nan, 1.0])
    tl_testing.torch_assert_close(nan, nan, max_mismatched_ratio=0)
    with pytest.raises(AssertionError):
        tl_testing.torch_assert_close(nan, nan, max_mismatched_ratio=0, equal_nan=False)


def test_requires_cuda_skips_with_the_reason(device):
    def probe():
        pass
    marked = tl_testing.requires_cuda(probe)
    mark = marked.pytestmark[0]
    assert mark.args[0] is True and "libcuda" in mark.kwargs["reason"]
    device["capability"] = 90
    for decorator, skipped in [(tl_testing.requires_cuda_compute_version_ge(9, 0), False),
                               (tl_testing.requires_cuda_compute_version_ge(10, 0), True),
                               (tl_testing.requires_cuda_compute_version_eq(9, 0), False),
                               (tl_testing.requires_cuda_compute_version_lt(9, 0), True),
                               (tl_testing.requires_cuda_compute_version(8, 6, "gt"), False)]:
        def probe():
            pass
        assert decorator(probe).pytestmark[-1].args[0] is skipped
    with pytest.raises(ValueError, match="mode is one of"):
        tl_testing.requires_cuda_compute_version(9, 0, "ne")


def test_set_random_seed_repeats_draws():
    tl_testing.set_random_seed(7)
    first = np.random.rand(3)
    tl_testing.set_random_seed(7)
    np.testing.assert_array_equal(first, np.random.rand(3))
