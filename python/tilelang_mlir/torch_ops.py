"""Compiled kernels as torch operators (``torch.library``).

::

    kernel = matmul(1024, 1024, 1024, 128, 128, 32)      # a JITKernel
    op = kernel.torch_op("mylib::matmul")                 # torch.ops.mylib.matmul

    @torch.compile(fullgraph=True)
    def f(a, b):
        return torch.relu(op(a, b))

The operator's schema follows the kernel's parameters: the inputs in order
(tensors; ``int``, ``float`` or ``bool`` scalars), the outputs named by
out_idx as its results, and every other tensor the kernel writes marked as
mutated (``Tensor(a!)``), so torch.compile orders it correctly. Its fake
(meta) implementation sizes the outputs from the inputs' shapes without
running anything, which is what tracing needs. The implementation is the
kernel's own call: on the current stream, without waiting.
"""

import re

from . import language as T

__all__ = ["register"]

_SCALAR_SCHEMA = {"i1": "bool"}


def _scalar_schema(mlir_type):
    if mlir_type in _SCALAR_SCHEMA:
        return _SCALAR_SCHEMA[mlir_type]
    if mlir_type.startswith(("i", "index")):
        return "int"
    return "float"


def schema(kernel):
    """The operator schema of a JITKernel, without its name: "(Tensor A,
    Tensor B) -> Tensor"."""
    params = kernel.params
    arguments, aliases = [], iter("abcdefghijklmnopqrstuvwxyz")
    for i in kernel._inputs:
        name = params[i]["name"]
        if params[i]["is_buffer"]:
            if params[i]["written"]:
                alias = next(aliases, None)
                if alias is None:
                    raise ValueError("%s writes more than 26 of its inputs; "
                                     "torch schemas name each" % kernel.func.name)
                arguments.append("Tensor(%s!) %s" % (alias, name))
            else:
                arguments.append("Tensor %s" % name)
        else:
            arguments.append("%s %s" % (_scalar_schema(params[i]["dtype"]), name))
    results = ["Tensor"] * len(kernel.out_idx)
    returns = ("()" if not results else results[0] if len(results) == 1
               else "(%s)" % ", ".join(results))
    return "(%s) -> %s" % (", ".join(arguments), returns)


def register(kernel, name, dispatch_keys=None):
    """Registers `kernel` (a JITKernel) as the torch operator `name`
    ("namespace::op") and returns it (torch.ops.namespace.op).
    `dispatch_keys`: the backends it implements; by default "CUDA" for a
    CUDA target, "CPU" for the CPU target."""
    import torch

    namespace, sep, op = name.partition("::")
    if not sep or not re.fullmatch(r"[A-Za-z_]\w*", namespace) or \
            not re.fullmatch(r"[A-Za-z_]\w*", op):
        raise ValueError("a torch operator is named 'namespace::name' with "
                         "identifiers on both sides, got %r" % (name,))
    from .jit import _split_target, _torch_dtype
    if dispatch_keys is None:
        kind = _split_target(kernel.target)[0]
        dispatch_keys = ["CPU"] if kind == "cpu" else ["CUDA"]
    library = torch.library.Library(namespace, "FRAGMENT")
    library.define(op + schema(kernel))
    # Kept alive with the kernel: the registration lasts as long as both.
    kernel._torch_libraries = getattr(kernel, "_torch_libraries", []) + [library]

    def implementation(*args):
        result = kernel(*args)
        # (Several outputs come back as a list, TileLang's API; an
        # operator returns a tuple of them.)
        return tuple(result) if isinstance(result, list) else result

    for key in dispatch_keys:
        library.impl(op, implementation, key)

    params = kernel.func.params

    def fake(*args):
        outputs = []
        like = next((args[k] for k, _, _ in kernel._tensor_inputs), None)
        for index, plan in zip(kernel.out_idx, kernel._output_plans):
            if plan is not None:
                shape = [d if type(d) is int else args[d[0]].shape[d[1]]
                         for d in plan]
            else:
                shape = kernel._output_shape(
                    index, [(params[i], args[k])
                            for k, i in enumerate(kernel._inputs)])
            outputs.append(torch.empty(
                shape, dtype=_torch_dtype(torch, T._mlir_type(params[index][1].dtype)),
                device=like.device if like is not None else "cpu"))
        if not outputs:
            return None
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    torch.library.register_fake(name, fake, lib=library)
    return getattr(getattr(torch.ops, namespace), op)
