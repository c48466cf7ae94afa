"""``tilelang.layout``: the layouts a kernel may annotate
(``T.annotate_layout``); the same objects as ``tilelang.language``'s."""

from .language import Fragment, Layout, make_swizzled_layout  # noqa: F401

__all__ = ["Fragment", "Layout", "make_swizzled_layout"]
