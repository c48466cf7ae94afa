"""``tilelang.carver.arch.driver``: CUDA device queries, as TileLang names
them (what persistent kernels size their grids by, what shared-memory plans
check against). Attributes come from the CUDA driver this package launches
with (cuDeviceGetAttribute; their numbers are those of CUDA's
cudaDeviceAttr); `get_cuda_device_properties` and `get_device_name` are
torch's, as in TileLang. Without a driver or a device, or for a device
that does not exist, the queries raise RuntimeError saying why."""

from ... import _tilelang

__all__ = ["get_cuda_device_properties", "get_device_name",
           "get_shared_memory_per_block", "get_device_attribute",
           "get_max_dynamic_shared_size_bytes",
           "get_persisting_l2_cache_max_size", "get_num_sms",
           "get_registers_per_block"]


class cudaDeviceAttrNames:  # noqa: N801 (TileLang's name)
    """The cudaDeviceAttr numbers the queries below use."""

    cudaDevAttrMaxThreadsPerBlock = 1
    cudaDevAttrMaxSharedMemoryPerBlock = 8
    cudaDevAttrMaxRegistersPerBlock = 12
    cudaDevAttrMultiProcessorCount = 16
    cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81
    cudaDevAttrMaxPersistingL2CacheSize = 108


def get_device_attribute(attr, device_id=0):
    """The value of cudaDeviceAttr `attr` of CUDA device `device_id`."""
    value, why = _tilelang.cuda_device_attribute(int(attr), int(device_id))
    if value is None:
        raise RuntimeError("cannot read attribute %d of CUDA device %d: %s"
                           % (attr, device_id, why))
    return value


def _bytes_in(format, attr, device_id):
    units = {"bytes": 1, "kb": 1024, "mb": 1024 * 1024}
    if format not in units:
        raise ValueError("format is one of bytes, kb, mb, got %r" % (format,))
    return get_device_attribute(attr, device_id) // units[format]


def get_num_sms(device_id=0):
    """The device's streaming multiprocessors (132 on an H100 SXM or H200)."""
    return get_device_attribute(cudaDeviceAttrNames.cudaDevAttrMultiProcessorCount,
                                device_id)


def get_shared_memory_per_block(device_id=0, format="bytes"):
    """Shared memory a block may have without opting in (48 KiB)."""
    return _bytes_in(format, cudaDeviceAttrNames.cudaDevAttrMaxSharedMemoryPerBlock,
                     device_id)


def get_max_dynamic_shared_size_bytes(device_id=0, format="bytes"):
    """Shared memory of one multiprocessor (TileLang's number for the
    dynamic shared memory bound: 228 KiB on Hopper)."""
    return _bytes_in(format,
                     cudaDeviceAttrNames.cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                     device_id)


def get_registers_per_block(device_id=0):
    """32-bit registers a block may use (65536)."""
    return get_device_attribute(cudaDeviceAttrNames.cudaDevAttrMaxRegistersPerBlock,
                                device_id)


def get_persisting_l2_cache_max_size(device_id=0):
    """Bytes of L2 a persisting access-policy window may hold."""
    return get_device_attribute(
        cudaDeviceAttrNames.cudaDevAttrMaxPersistingL2CacheSize, device_id)


def get_cuda_device_properties(device_id=0):
    """torch's properties of the device, or None without torch or CUDA."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    return torch.cuda.get_device_properties(torch.device("cuda", device_id))


def get_device_name(device_id=0):
    """torch's name of the device, or None without torch or CUDA."""
    properties = get_cuda_device_properties(device_id)
    return properties.name if properties is not None else None
