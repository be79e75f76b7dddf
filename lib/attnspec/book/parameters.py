"""Chapter parameters: declared once, checked before any computation (papermill included).

Every chapter has one ``parameters``-tagged cell of plain assignments (the defaults the book
renders with). Its declaration lives in :mod:`attnspec.book.chapters`: a type, an allowed
range and one line of help per name. The cell right after the parameters cell calls::

    P = attnspec.check_parameters("03_single_head_theorem", globals())

which refuses unknown names (a misspelt papermill ``-p betta 2``), wrong types and
out-of-range values with one message that lists the chapter's parameters. ``attnspec rerun``
runs the same check on the command line before it starts a kernel.
"""

from __future__ import annotations

import ast
import math
import numbers
import types
from dataclasses import dataclass, field

from attnspec._validation import _range_text

__all__ = ["Int", "Float", "Bool", "Choice", "FloatList", "IntList", "ChoiceList", "ParameterError",
           "check_parameters", "check_values", "parse_assignments", "describe"]


class ParameterError(ValueError):
    """A chapter parameter is unknown, missing, of the wrong type or out of range."""


def _bound_text(min, max, min_open=False):
    return _range_text(min, max, min_open, False)


@dataclass(frozen=True)
class Int:
    """An integer parameter in ``[min, max]``."""
    min: int | None = None
    max: int | None = None
    help: str = ""

    def kind(self):
        bounds = _bound_text(self.min, self.max)
        return f"int {bounds}".strip()

    def check(self, name, value):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            else:
                raise ParameterError(f"{name} must be an integer; got {name}={value!r}")
        value = int(value)
        if (self.min is not None and value < self.min) or (self.max is not None and value > self.max):
            raise ParameterError(f"{name} must be an {self.kind()}; got {name}={value}")
        return value


@dataclass(frozen=True)
class Float:
    """A finite real parameter in ``[min, max]`` (``(min, max]`` when ``min_open``)."""
    min: float | None = None
    max: float | None = None
    min_open: bool = False
    help: str = ""

    def kind(self):
        return f"float {_bound_text(self.min, self.max, self.min_open)}".strip()

    def check(self, name, value):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ParameterError(f"{name} must be a number; got {name}={value!r}")
        value = float(value)
        low_bad = self.min is not None and (value <= self.min if self.min_open else value < self.min)
        high_bad = self.max is not None and value > self.max
        if not math.isfinite(value) or low_bad or high_bad:
            raise ParameterError(f"{name} must be a finite {self.kind()}; got {name}={value!r}")
        return value


@dataclass(frozen=True)
class Bool:
    """A true/false switch."""
    help: str = ""

    def kind(self):
        return "bool"

    def check(self, name, value):
        if not isinstance(value, bool):
            raise ParameterError(f"{name} must be True or False; got {name}={value!r}")
        return value


@dataclass(frozen=True)
class Choice:
    """One of a fixed set of strings."""
    options: tuple = ()
    help: str = ""

    def kind(self):
        return "one of " + ", ".join(repr(o) for o in self.options)

    def check(self, name, value):
        if value not in self.options:
            raise ParameterError(f"{name} must be {self.kind()}; got {name}={value!r}")
        return value


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


def describe(chapter):
    """Return the chapter's parameter list as text: ``name (type and range): help``."""
    spec = _spec(chapter)
    return "\n".join(f"  {name} ({p.kind()}): {p.help}" for name, p in spec.items())


def _spec(chapter):
    from attnspec.book.chapters import CHAPTERS
    if chapter not in CHAPTERS:
        raise ParameterError(f"chapter must be one of {', '.join(sorted(CHAPTERS))}; "
                             f"got chapter={chapter!r}")
    return CHAPTERS[chapter].parameters


def check_values(chapter, values, *, require_all=False):
    """Check a mapping of parameter values for ``chapter``; return the converted values.

    Unknown names, wrong types and out-of-range values raise :class:`ParameterError` whose
    message ends with the chapter's parameter list.
    """
    spec = _spec(chapter)
    problems, checked = [], {}
    unknown = sorted(set(values) - set(spec))
    if unknown:
        problems.append(f"unknown parameter(s) {', '.join(unknown)}")
    missing = sorted(set(spec) - set(values)) if require_all else []
    if missing:
        problems.append(f"missing parameter(s) {', '.join(missing)}")
    for name in spec:
        if name in values:
            try:
                checked[name] = spec[name].check(name, values[name])
            except ParameterError as exc:
                problems.append(str(exc))
    if problems:
        raise ParameterError(f"chapter {chapter}: " + "; ".join(problems)
                             + f".\nIts parameters are:\n{describe(chapter)}")
    return checked


_IPYTHON_NAMES = {"In", "Out", "exit", "quit", "get_ipython", "open"}


def _looks_like_parameter(name, value):
    if name.startswith("_") or name in _IPYTHON_NAMES:
        return False
    if isinstance(value, (types.ModuleType, type)) or callable(value):
        return False
    return isinstance(value, (bool, numbers.Number, str, list, tuple, dict, type(None)))


def check_parameters(chapter, namespace):
    """Check a chapter's parameters from its namespace (call with ``globals()``).

    Returns a :class:`types.SimpleNamespace` of the checked values (ints converted to floats
    where a float is declared). Raises :class:`ParameterError` for unknown, missing, mistyped or
    out-of-range parameters, listing the chapter's parameters, before any computation.
    """
    candidates = {k: v for k, v in namespace.items() if _looks_like_parameter(k, v)}
    checked = check_values(chapter, candidates, require_all=True)
    namespace.update(checked)
    return types.SimpleNamespace(**checked)


def parse_assignments(chapter, assignments):
    """Parse ``["beta=1.5", "ell=500"]`` into checked values for ``chapter``.

    Values are Python literals (``1.5``, ``[0.5, 1]``, ``True``, ``'mqa'``); a bare word that is
    not a literal is taken as a string, so ``tie=mqa`` and ``ties=[mqa,kv]`` work (the shell
    strips quotes before they reach us).
    """
    values = {}
    for item in assignments:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier():
            raise ParameterError(f"parameters must look like name=value; got {item!r}.\n"
                                 f"Chapter {chapter} takes:\n{describe(chapter)}")
        if name in values:
            raise ParameterError(f"parameter {name} is given twice ({name}={values[name]!r} and "
                                 f"{item!r}); give each parameter once")
        values[name] = _literal(text.strip())
    return check_values(chapter, values)


def _literal(text):
    """A Python literal, else a bare word as a string; ``[a, b]`` item by item."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        if text.startswith("[") and text.endswith("]"):
            return [_literal(item.strip()) for item in text[1:-1].split(",") if item.strip()]
        return text


@dataclass(frozen=True)
class ChapterSpec:
    """A chapter's declared parameters and the small values the test suite runs it with."""
    parameters: dict
    quick: dict = field(default_factory=dict)
