"""Types of chapter parameters: what a chapter declares for each name (the spec types).

Every chapter has one ``parameters``-tagged cell of plain assignments (the defaults the book
renders with). Its declaration lives in :mod:`attnspec.book.chapters`: a type from this module,
an allowed range and one line of help per name. The cell right after the parameters cell calls::

    P = attnspec.book.check_parameters("03_single_head_theorem", globals())

which refuses unknown names (a misspelt papermill ``-p betta 2``), wrong types and
out-of-range values with one message that lists the chapter's parameters. ``attnspec rerun``
runs the same check on the command line before it starts a kernel.

The checks are those of the library's functions (``check_int``, ``check_float``, ...),
so a chapter parameter and a function argument accept the same values and raise the same
:class:`ParameterError`: an ``int`` parameter refuses ``3.0`` as ``check_int`` does (papermill
and ``attnspec rerun ell=3`` pass integers as integers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from attnspec._validation import (ParameterError, check_bool, check_choice, check_float,
                                  check_int, range_text)

__all__ = ["Int", "Float", "Bool", "Choice", "FloatList", "IntList", "ChoiceList", "ChapterSpec",
           "ParameterError", "DECIMAL"]

#: A number as the command line accepts it, in ASCII decimal digits without underscores
#: (``float``, ``int`` and Python literals also read "٣" or "1_0" as 3 and 10, and "0x10"
#: as 16).
DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(nan|inf)", re.I | re.A)


@dataclass(frozen=True)
class Int:
    """An integer parameter in ``[min, max]`` (checked by ``check_int``: 3.0 is refused)."""
    min: int | None = None
    max: int | None = None
    help: str = ""

    def kind(self):
        return f"int {range_text(self.min, self.max)}".strip()

    def check(self, name, value):
        return check_int(name, value, min=self.min, max=self.max)


@dataclass(frozen=True)
class Float:
    """A finite real parameter in ``[min, max]`` (``(min, max]`` when ``min_open``)."""
    min: float | None = None
    max: float | None = None
    min_open: bool = False
    help: str = ""

    def kind(self):
        return f"float {range_text(self.min, self.max, self.min_open)}".strip()

    def check(self, name, value):
        return check_float(name, value, min=self.min, max=self.max, min_open=self.min_open)


@dataclass(frozen=True)
class Bool:
    """A true/false switch."""
    help: str = ""

    def kind(self):
        return "bool"

    def check(self, name, value):
        return check_bool(name, value)


@dataclass(frozen=True)
class Choice:
    """One of a fixed set of strings."""
    options: tuple = ()
    help: str = ""

    def kind(self):
        return "one of " + ", ".join(repr(o) for o in self.options)

    def check(self, name, value):
        return check_choice(name, value, self.options)


@dataclass(frozen=True)
class _List:
    item: object = None
    min_len: int = 1
    max_len: int = 12
    help: str = ""

    def kind(self):
        return f"list of {self.min_len}-{self.max_len} × ({self.item.kind()})"

    def check(self, name, value):
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
            raise ParameterError(f"{name} must be a list ({self.kind()}); got {name}={value!r}")
        if not self.min_len <= len(value) <= self.max_len:
            raise ParameterError(f"{name} must have {self.min_len} to {self.max_len} entries; "
                                 f"got {len(value)} in {name}={value!r}")
        return [self.item.check(f"{name}[{i}]", v) for i, v in enumerate(value)]


def FloatList(min=None, max=None, *, min_open=False, min_len=1, max_len=12, help=""):
    """A list of floats, each in the given range."""
    return _List(Float(min, max, min_open), min_len, max_len, help)


def IntList(min=None, max=None, *, min_len=1, max_len=12, help=""):
    """A list of integers, each in the given range."""
    return _List(Int(min, max), min_len, max_len, help)


def ChoiceList(options, *, min_len=1, max_len=12, help=""):
    """A list of strings, each one of ``options``."""
    return _List(Choice(tuple(options)), min_len, max_len, help)


@dataclass(frozen=True)
class ChapterSpec:
    """A chapter's declared parameters and the small values the test suite runs it with."""
    parameters: dict
    quick: dict = field(default_factory=dict)
