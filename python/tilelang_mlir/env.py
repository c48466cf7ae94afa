"""TileLang's ``tilelang.env``: where this package keeps its files, for
programs that put their own next to them (TileLang's MInference example
builds a torch extension under ``tilelang.env.TILELANG_CACHE_DIR``).

* ``TILELANG_CACHE_DIR``: the JIT's cache directory (``TILE_CACHE_DIR``, else
  ``$XDG_CACHE_HOME/tilelang-mlir`` or ``~/.cache/tilelang-mlir``: the C++
  cache's own reading of the environment).
* ``TILELANG_TMP_DIR``: ``tmp`` under it, created on first use.
* ``CUDA_HOME``: ``$CUDA_HOME``, ``$CUDA_PATH`` or ``/usr/local/cuda`` where
  it exists, else None.
* ``is_cache_enabled()``: whether the JIT caches compiled kernels
  (``TILE_DISABLE_CACHE``).

TileLang's other settings configure its TVM passes and code generator; they
are not here (AttributeError naming them)."""

import os as _os

from . import _tilelang

__all__ = ["TILELANG_CACHE_DIR", "TILELANG_TMP_DIR", "CUDA_HOME",
           "is_cache_enabled"]


def is_cache_enabled():
    return bool(_tilelang.cache_settings()["enabled"])


def _cuda_home():
    for candidate in (_os.environ.get("CUDA_HOME"), _os.environ.get("CUDA_PATH"),
                      "/usr/local/cuda"):
        if candidate and _os.path.isdir(candidate):
            return candidate
    return None


def __getattr__(name):
    if name == "TILELANG_CACHE_DIR":
        return _tilelang.cache_settings()["directory"]
    if name == "TILELANG_TMP_DIR":
        path = _os.path.join(_tilelang.cache_settings()["directory"], "tmp")
        _os.makedirs(path, exist_ok=True)
        return path
    if name == "CUDA_HOME":
        return _cuda_home()
    raise AttributeError(
        "tilelang.env has no %r: this package's settings are TILE_CACHE_DIR, "
        "TILE_DISABLE_CACHE and TILE_TARGET (see tilelang_mlir.env); TileLang's "
        "others configure its TVM code generator" % (name,))
