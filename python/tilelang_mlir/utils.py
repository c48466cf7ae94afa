"""``tilelang.utils``: of TileLang's utilities, ``utils.tensor``'s
(``torch_assert_close``, ``TensorSupplyType``, ``get_tensor_supply``), the
same objects as ``tilelang_mlir.testing``'s and the profiler's."""

import sys

import numpy as np

from .profiler import TensorSupplyType, _cuda_torch, _supply, _to_torch_cuda
from .testing import torch_assert_close

__path__ = []  # a package whose one submodule, .tensor, is this module
__all__ = ["TensorSupplyType", "get_tensor_supply", "torch_assert_close"]


def get_tensor_supply(supply_type=TensorSupplyType.Integer):
    """A function giving a fresh tensor for a kernel parameter (anything with
    a static ``shape`` and a ``dtype``, as ``T.Tensor``), filled as the
    profiler fills inputs of `supply_type`: a CUDA torch tensor when torch
    has a device, else a numpy array."""
    from . import language as T
    rng = np.random.default_rng()

    def supply(param):
        shape = tuple(getattr(param, "shape", ()) or ())
        if not shape or not all(isinstance(d, int) for d in shape):
            raise ValueError("get_tensor_supply: the parameter needs a static "
                             "shape, got %r" % (shape,))
        mlir_type = T._mlir_type(param.dtype)
        data = _supply(supply_type, mlir_type, shape, rng)
        torch = _cuda_torch()
        return data if torch is None else _to_torch_cuda(torch, data, mlir_type)

    return supply


sys.modules.setdefault(__name__ + ".tensor", sys.modules[__name__])
