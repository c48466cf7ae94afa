"""``tilelang.layout``: the layouts a kernel may annotate
(``T.annotate_layout``); the same objects as ``tilelang.language``'s."""

from .language import Fragment, Layout, make_swizzled_layout  # noqa: F401


def make_gemm_fragment_8x8():
    """The 8x8 tile of the tensor cores' warp-level fragments (ldmatrix,
    mma, stmatrix): lane 4 * i + j // 2 holds elements (i, j) and (i, j + 1)
    of row i."""
    return Fragment((8, 8), lambda i, j: i * 4 + j // 2, lambda i, j: j % 2,
                    threads=32)


def make_gemm_fragment_8x8_transposed():
    """make_gemm_fragment_8x8 with rows and columns exchanged: lane
    4 * j + i // 2 holds elements (i, j) and (i + 1, j)."""
    return Fragment((8, 8), lambda i, j: j * 4 + i // 2, lambda i, j: i % 2,
                    threads=32)


__all__ = ["Fragment", "Layout", "make_swizzled_layout",
           "make_gemm_fragment_8x8", "make_gemm_fragment_8x8_transposed"]
