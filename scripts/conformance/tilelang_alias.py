"""A pytest plugin (``-p tilelang_alias``) that makes ``import tilelang``
resolve to ``tilelang_mlir``, so that TileLang's own test files run
unchanged against this package (scripts/conformance/run.py loads it).

Every module of the package is entered in ``sys.modules`` under TileLang's
name too (``tilelang.language`` is ``tilelang_mlir.language``, the same
module object); any other ``tilelang.*`` module is imported from the package on demand
by a finder placed first on ``sys.meta_path`` (so an installed TileLang is
never loaded instead), and one the package lacks is a ModuleNotFoundError
naming it."""

import importlib
import importlib.abc
import importlib.util
import pkgutil
import sys

import tilelang_mlir


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``tilelang.X`` is ``tilelang_mlir.X`` (the module object itself)."""

    def find_spec(self, name, path=None, target=None):
        if name != "tilelang" and not name.startswith("tilelang."):
            return None
        ours = "tilelang_mlir" + name[len("tilelang"):]
        try:
            module = importlib.import_module(ours)
        except ModuleNotFoundError as error:
            if error.name != ours:
                raise
            raise ModuleNotFoundError(
                "%s: tilelang_mlir has no module %s" % (name, ours),
                name=name) from None
        return importlib.util.spec_from_loader(
            name, self, origin=getattr(module, "__file__", None))

    def create_module(self, spec):
        module = sys.modules["tilelang_mlir" + spec.name[len("tilelang"):]]
        self._own_spec = module.__spec__
        return module

    def exec_module(self, module):
        # The import system set __spec__ to the alias's: give it back.
        module.__spec__ = self._own_spec


def _alias():
    sys.modules["tilelang"] = tilelang_mlir
    for info in pkgutil.iter_modules(tilelang_mlir.__path__):
        full = "tilelang_mlir." + info.name
        if info.name.startswith("_"):
            continue
        try:
            module = importlib.import_module(full)
        except ImportError:
            continue  # imported on demand, where it says why it is missing
        sys.modules["tilelang." + info.name] = module
    sys.meta_path.insert(0, _Alias())


_alias()
