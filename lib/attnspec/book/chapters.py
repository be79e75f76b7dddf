"""The parameters each chapter accepts (the registry), and the checks that read it.

The registry is data: ``chapters.toml`` beside this module, one entry per notebook in
``chapters/``; ``tests/test_chapters.py`` fails when an entry and the
notebook's ``parameters`` cell disagree. ``quick`` holds the small sizes the test suite reruns
each chapter with (through papermill), so every chapter is exercised off its defaults too.
:func:`attnspec.book.check_parameters` (the notebooks' check cell),
:func:`check_values`, :func:`parse_assignments` and :func:`describe` look chapters up here; the
spec types live in :mod:`attnspec.book.parameters`, which does not import this module.
"""

from __future__ import annotations

import ast
import difflib
import numbers
import tomllib
import types
from pathlib import Path

from attnspec.book.parameters import (DECIMAL, Bool, ChapterSpec, Choice, ChoiceList, Float,
                                      FloatList, Int, IntList, ParameterError)
from attnspec.pretrained.passages import PASSAGE_NAMES
from attnspec.sampling.ties import TIES

__all__ = ["CHAPTERS", "SEED", "check_parameters", "check_values", "parse_assignments",
           "split_assignments", "describe"]

#: The spec of a ``kind = "seed"`` parameter in ``chapters.toml``, an integer in [0, 2³² − 1].
SEED = Int(0, 2**32 - 1, help="seed of numpy.random.default_rng; same seed, same figures")

#: The named sets of strings a choice parameter of ``chapters.toml`` may take its options from.
OPTION_SETS = {"ties": TIES, "passages": PASSAGE_NAMES,
               # ℓ ≤ d = 384, as MultiHeadLaw needs: every passage but the longest
               "passages up to 384 tokens": PASSAGE_NAMES[:-1]}

_KINDS = {"int": Int, "float": Float, "bool": Bool, "choice": Choice, "int list": IntList,
          "float list": FloatList, "choice list": ChoiceList}

_REGISTRY = Path(__file__).resolve().with_name("chapters.toml")


def _parameter(entry):
    """One ``chapters.toml`` entry (an inline table) as its spec type."""
    entry = dict(entry)
    kind = entry.pop("kind")
    if kind == "seed":
        return SEED
    if "options" in entry:
        options = entry.pop("options")
        options = tuple(OPTION_SETS[options] if isinstance(options, str) else options)
        if kind == "choice list":
            entry.setdefault("max_len", len(options))
        return _KINDS[kind](options, **entry)
    return _KINDS[kind](**entry)


def _checked_parameter(path, chapter, name, entry):
    """:func:`_parameter`, with a malformed entry reported by file, chapter and name."""
    where = f"{path.name}: [{chapter}.parameters] {name}"
    try:
        parameter = _parameter(entry)
    except (KeyError, TypeError, ValueError) as exc:
        raise ParameterError(f"{where} = {entry!r} is not a valid entry ({exc!r}); allowed "
                             f"kinds: seed, {', '.join(_KINDS)}; option sets: "
                             f"{', '.join(OPTION_SETS)}") from None
    low, high = entry.get("min"), entry.get("max")
    if low is not None and high is not None and low > high:
        raise ParameterError(f"{where}: min={low!r} is above max={high!r}")
    return parameter


def _read_registry(path):
    """``chapters.toml`` as ``{chapter: ChapterSpec}``, in the file's order."""
    with open(path, "rb") as file:
        table = tomllib.load(file)
    registry = {}
    for chapter, declared in table.items():
        if not isinstance(declared, dict) or "parameters" not in declared:
            raise ParameterError(f"{path.name}: [{chapter}] needs a [{chapter}.parameters] "
                                 "table")
        registry[chapter] = ChapterSpec(
            parameters={name: _checked_parameter(path, chapter, name, entry)
                        for name, entry in declared["parameters"].items()},
            quick=declared.get("quick", {}))
    return registry


#: One :class:`ChapterSpec` per notebook, read from ``chapters.toml`` (data, one line per
#: parameter: type, range and help).
CHAPTERS = _read_registry(_REGISTRY)


def describe(chapter):
    """Return the chapter's parameter list as text: ``name (type and range): help``."""
    spec = _spec(chapter)
    return "\n".join(f"  {name} ({p.kind()}): {p.help}" for name, p in spec.items())


def _spec(chapter):
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
        problems.append(f"unknown parameter(s) {', '.join(map(_with_suggestion(spec), unknown))}")
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


def _with_suggestion(spec):
    """``name`` → ``"betaz (did you mean betas?)"`` when a declared name is close (difflib)."""
    def named(name):
        close = difflib.get_close_matches(name, list(spec), n=1, cutoff=0.6)
        return f"{name} (did you mean {close[0]}?)" if close else name
    return named


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
        for number in _number_literals(text.strip()):
            if not DECIMAL.fullmatch(number):
                raise ParameterError(f"{name} must be written with ASCII decimal digits and no "
                                     f"underscores; got {number!r} in {item!r}")
    return check_values(chapter, values)


def _number_literals(text):
    """The source text of every number in the Python literal ``text`` (none if it is not one)."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return []
    return [ast.get_source_segment(text, node) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, (int, float))
            and not isinstance(node.value, bool)]


_CLOSING = {"[": "]", "(": ")", "{": "}"}


def split_assignments(text):
    """Split ``"ell=500 betas=[0.5, 1] tie='a b'"`` at white space outside brackets and quotes:
    ``["ell=500", "betas=[0.5, 1]", "tie='a b'"]`` (quotes are kept: values are literals).

    Nothing is evaluated; unbalanced brackets or quotes raise :class:`ParameterError`.
    """
    items, current, expected, quote = [], "", [], None
    for char in str(text):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in _CLOSING:
            expected.append(_CLOSING[char])
        elif char in _CLOSING.values():
            if not expected or expected.pop() != char:
                raise ParameterError(f"parameters have an unmatched {char!r}; got {text!r}")
        elif char.isspace() and not expected:
            items, current = items + [current] if current else items, ""
            continue
        current += char
    if quote or expected:
        missing = quote or expected[-1]
        raise ParameterError(f"parameters have an unclosed bracket or quote (missing "
                             f"{missing!r}); got {text!r}")
    return items + [current] if current else items


def _literal(text):
    """A Python literal, else a bare word as a string; ``[a, b]`` item by item."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        if text.startswith("[") and text.endswith("]"):
            return [_literal(item.strip()) for item in text[1:-1].split(",") if item.strip()]
        return text
