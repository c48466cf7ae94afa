"""The autotuner: every configuration tried, failures skipped, the fastest
kept, the result remembered across processes."""

import numpy as np
import pytest

import tilelang_mlir
from tilelang_mlir import autotune

from kernels import matmul_func

CONFIGS = [{"block_M": 16, "block_N": 16}, {"block_M": 32, "block_N": 32},
           {"block_M": 64, "block_N": 64}]


def reference(a, b):
    return a.astype(np.float32) @ b.astype(np.float32)


def make_tuned(configs=CONFIGS):
    return autotune(configs=configs, warmup=1, rep=3, ref_prog=reference,
                    rtol=1e-3, atol=1e-3)(
        tilelang_mlir.jit(out_idx=[-1])(matmul_func))


def test_tunes_and_remembers(capsys):
    tuned = make_tuned()
    kernel = tuned(64, 64, 32)
    assert kernel.config in CONFIGS
    latencies = [lat for _, lat, err in kernel.autotune_result.entries]
    assert len(latencies) == 3 and all(lat is not None for lat in latencies)
    assert kernel.latency == min(latencies)
    err = capsys.readouterr().err
    assert "[1/3]" in err and "[3/3]" in err and "best" in err
    # A new decorator (as in a new process) starts from the cache: no tuning.
    again = make_tuned()(64, 64, 32)
    assert again.config == kernel.config and again.autotune_result is None
    assert "[1/3]" not in capsys.readouterr().err
    a = np.ones((64, 32), np.float16)
    b = np.ones((32, 64), np.float16)
    np.testing.assert_array_equal(again(a, b), np.full((64, 64), 32.0))


def test_failing_configurations_are_skipped(capsys):
    # A block of 2000 threads is refused by the kernel verifier.
    configs = [{"block_M": 16, "block_N": 16, "threads": 2000},
               {"block_M": 16, "block_N": 16}]
    kernel = make_tuned(configs)(32, 32, 16)
    assert kernel.config == configs[1]
    assert "failed" in capsys.readouterr().err


def test_every_configuration_failing_is_an_error():
    with pytest.raises(RuntimeError, match="every configuration failed"):
        make_tuned([{"threads": 2000}])(32, 32, 16)


def test_corrupt_cache_entry_retunes(tmp_path, capsys):
    make_tuned()(32, 32, 16)
    for path in (tmp_path / "cache" / "autotune").iterdir():
        path.write_text("{not json")
    kernel = make_tuned()(32, 32, 16)
    assert kernel.autotune_result is not None
    assert "[1/3]" in capsys.readouterr().err


def test_set_autotune_inputs_checks_and_times_on_the_given_arguments():
    from tilelang_mlir.autotuner import get_autotune_inputs, set_autotune_inputs
    rng = np.random.default_rng()
    a = rng.standard_normal((48, 32)).astype(np.float16)
    b = rng.standard_normal((32, 48)).astype(np.float16)
    seen = []

    def checking_reference(x, y):
        seen.append((x.copy(), y.copy()))
        return reference(x, y)

    tuned = autotune(configs=CONFIGS[:2], warmup=1, rep=2, ref_prog=checking_reference,
                     rtol=1e-2, atol=1e-2, cache=False)(
        tilelang_mlir.jit(out_idx=[-1])(matmul_func))
    with set_autotune_inputs(a, b):
        assert get_autotune_inputs() == [a, b]
        kernel = tuned(48, 48, 32)
    assert get_autotune_inputs() is None
    assert len(seen) == 2 and all(np.array_equal(x, a) and np.array_equal(y, b)
                                  for x, y in seen)
    np.testing.assert_allclose(kernel(a, b), reference(a, b), rtol=1e-2, atol=1e-2)
    with set_autotune_inputs([a]):  # a list, as TileLang takes it too
        assert get_autotune_inputs() == [a]


@pytest.mark.parametrize("how", ["keyword", "position"])
def test_given_tunable_parameters_skip_tuning(capsys, how):
    # TileLang's rule (its FlashAttention examples call the tuned function
    # with block_M=64, ...): a call that sets a tunable parameter compiles
    # that kernel directly, untuned, instead of passing it twice.
    tuned = make_tuned()
    if how == "keyword":
        kernel = tuned(32, 32, 16, block_M=16, block_N=32)
    else:
        kernel = tuned(32, 32, 16, 16, 32)
    assert kernel.autotune_result is None and kernel.config is None
    assert "[1/3]" not in capsys.readouterr().err
    rng = np.random.default_rng()
    a = rng.standard_normal((32, 16)).astype(np.float16)
    b = rng.standard_normal((16, 32)).astype(np.float16)
    np.testing.assert_allclose(kernel(a, b), reference(a, b), rtol=1e-3, atol=1e-3)
