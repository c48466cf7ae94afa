"""``tilelang.cuda``: of TileLang's CUDA backend package, the shared-memory
layouts of ``tilelang.cuda.intrinsics`` that kernels annotate their tiles
with (``make_mma_swizzle_layout``, also as
``tilelang.cuda.intrinsics.layout.mma_layout``). Its code generators,
TVM passes and instruction emitters (``TensorCoreIntrinEmitter`` and the
other ``intrinsics.macro`` generators, which write mma/ldmatrix calls by
hand in TVM's IR) are not provided: importing one names the module that is
missing. The compiler chooses the tensor-core instructions and their
operand layouts itself (docs/python.md)."""

import sys

from . import language as _language

__path__ = []  # a package whose provided submodules are this module


def make_mma_swizzle_layout(shared_buf, is_smooth=False):
    """The swizzle that lets tensor-core operand loads (ldmatrix) of the
    shared tile `shared_buf` hit distinct banks: the compiler's own for
    rows of a multiple of 64 bytes (TileLang swizzles those), the plain
    row-major order for other rows or with ``is_smooth=True``. Only the
    placement of the tile's elements in shared memory changes, never what
    the kernel computes."""
    buffer = shared_buf
    if not isinstance(buffer, _language.TileBuffer) or buffer.space is None:
        raise _language.TileLangError(
            "make_mma_swizzle_layout takes a shared tile (T.alloc_shared), "
            "got %r" % (shared_buf,))
    dims = list(buffer.dims)
    bits = _language.dtype(buffer.dtype).bits
    row_bits = dims[-1] * bits if isinstance(dims[-1], int) else 0
    if not is_smooth and row_bits and row_bits % 512 == 0:
        from ._tilelang import ldmatrix_swizzle
        swizzle = ldmatrix_swizzle(dims, buffer.type)
        if swizzle is not None:
            return _language.Layout(swizzle)
    # No permutation (a swizzle of zero bits).
    return _language.Layout("#tile.swizzle<0, 3, 3>")


for _name in ("intrinsics", "intrinsics.layout", "intrinsics.layout.mma_layout",
              "intrinsics.layout.utils"):
    sys.modules.setdefault("%s.%s" % (__name__, _name), sys.modules[__name__])
