"""tilelang.carver.arch.driver: the device queries TileLang's persistent
kernels size their grids by (`driver.get_num_sms()`), from the CUDA driver
this package launches with. Without a driver (CI) each query raises
RuntimeError saying why; on a GPU machine the values are the device's (the
multiprocessor count checked against torch's). TileLang's search models
(carver.arch.CUDA, carver.roller) are ImportErrors that say so."""

import pytest

import tilelang_mlir as tilelang  # noqa: F401 (the package first)
from tilelang_mlir import _tilelang
from tilelang_mlir.carver.arch import driver


def _device():
    capability, why = _tilelang.cuda_compute_capability()
    return capability, why


QUERIES = [driver.get_num_sms, driver.get_shared_memory_per_block,
           driver.get_max_dynamic_shared_size_bytes, driver.get_registers_per_block,
           driver.get_persisting_l2_cache_max_size]


@pytest.mark.parametrize("query", QUERIES, ids=lambda q: q.__name__)
def test_queries_without_a_driver_say_why(query):
    capability, why = _device()
    if capability is not None:
        pytest.skip("a CUDA device is present")
    with pytest.raises(RuntimeError, match="cannot read attribute .* of CUDA device 0: " + why[:20]):
        query()


def test_queries_on_a_device():
    capability, _ = _device()
    if capability is None:
        pytest.skip("no CUDA device")
    sms = driver.get_num_sms()
    assert sms >= 1
    assert driver.get_registers_per_block() == 65536
    assert driver.get_shared_memory_per_block() == 48 * 1024
    assert driver.get_shared_memory_per_block(format="kb") == 48
    per_sm = driver.get_max_dynamic_shared_size_bytes()
    assert per_sm >= 64 * 1024 and driver.get_max_dynamic_shared_size_bytes(
        format="kb") == per_sm // 1024
    assert driver.get_persisting_l2_cache_max_size() >= 0
    assert driver.get_device_attribute(
        driver.cudaDeviceAttrNames.cudaDevAttrMaxThreadsPerBlock) == 1024
    torch = pytest.importorskip("torch")
    assert sms == torch.cuda.get_device_properties(0).multi_processor_count
    assert driver.get_device_name() == torch.cuda.get_device_name(0)
    with pytest.raises(RuntimeError, match="CUDA device 99 does not exist"):
        driver.get_num_sms(99)


def test_bad_formats_are_refused():
    for query in (driver.get_shared_memory_per_block,
                  driver.get_max_dynamic_shared_size_bytes):
        with pytest.raises(ValueError, match="format is one of bytes, kb, mb"):
            query(format="gb")


def test_search_models_are_import_errors_that_say_so():
    with pytest.raises(ImportError, match="architecture models"):
        from tilelang_mlir.carver.arch import CUDA  # noqa: F401
    with pytest.raises(ImportError, match="tile-configuration search"):
        from tilelang_mlir.carver import roller  # noqa: F401
    from tilelang_mlir.carver import arch
    assert arch.driver is driver


def test_properties_need_torch_and_a_device():
    try:
        import torch
        available = torch.cuda.is_available()
    except ImportError:
        available = False
    if not available:
        assert driver.get_cuda_device_properties() is None
        assert driver.get_device_name() is None
