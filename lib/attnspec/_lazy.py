"""Lazy attributes of a package: its submodules and the names it re-exports, imported on first
use (so that ``import attnspec`` stays cheap). Type checkers and IDEs read the names from the
package's stub (``__init__.pyi``) or its ``TYPE_CHECKING`` imports instead."""

from __future__ import annotations

from importlib import import_module

__all__ = ["lazy_attributes"]


def lazy_attributes(package, exports=(), submodules=()):
    """``(__getattr__, __dir__)`` for the package named ``package``: ``exports`` maps a public
    name to the submodule (relative, dotted) that defines it; ``submodules`` are reachable as
    attributes (``attnspec.experiments.thresholds``) without importing them first."""
    exports, submodules = dict(exports), frozenset(submodules)

    def __getattr__(name):
        if name in submodules:
            return import_module(f"{package}.{name}")
        if name in exports:
            return getattr(import_module(f"{package}.{exports[name]}"), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(exports) | submodules | set(vars(import_module(package))))

    return __getattr__, __dir__
