"""Lazy attributes of a package: its submodules and the names it re-exports, imported on first
use (so that ``import attnspec`` stays cheap). Type checkers and IDEs read the names from the
package's stub (``__init__.pyi``) or its ``TYPE_CHECKING`` imports instead."""

from __future__ import annotations

import pkgutil
from importlib import import_module

__all__ = ["lazy_attributes"]


def lazy_attributes(package, exports=(), submodules=None):
    """``(__getattr__, __dir__)`` for the package named ``package``: ``exports`` maps a public
    name to the submodule (relative, dotted) that defines it; ``submodules`` (default: every
    module of the package) are reachable as attributes, e.g. ``attnspec.experiments.thresholds``,
    without importing them first."""
    exports = dict(exports)

    def names():
        if submodules is not None:
            return frozenset(submodules)
        path = import_module(package).__path__
        return frozenset(info.name for info in pkgutil.iter_modules(path))

    def __getattr__(name):
        if name in exports:
            return getattr(import_module(f"{package}.{exports[name]}"), name)
        if not name.startswith("_") and name in names():
            return import_module(f"{package}.{name}")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(exports) | names() | set(vars(import_module(package))))

    return __getattr__, __dir__
