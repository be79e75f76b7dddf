"""Book tooling: chapter parameters (spec types and the per-chapter registry, with
:func:`check_parameters`, which every chapter calls as ``attnspec.book.check_parameters``),
papermill reruns and the ``attnspec`` command line."""

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes as _lazy_attributes

if TYPE_CHECKING:   # for type checkers and IDEs; at run time loaded on first use
    from .chapters import check_parameters

__all__ = ["check_parameters"]

# check_parameters, and attnspec.book.<module> without importing it first
__getattr__, __dir__ = _lazy_attributes(__name__, {"check_parameters": "chapters"})
