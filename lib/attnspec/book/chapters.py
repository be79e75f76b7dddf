"""The parameters each chapter accepts (the registry), and the checks that read it.

One entry per notebook in ``chapters/``; ``tests/test_chapters.py`` fails when an entry and the
notebook's ``parameters`` cell disagree. ``quick`` holds the small sizes the test suite reruns
each chapter with (through papermill), so every chapter is exercised off its defaults too.
:func:`attnspec.check_parameters` (the notebooks' check cell),
:func:`check_values`, :func:`parse_assignments` and :func:`describe` look chapters up here; the
spec types live in :mod:`attnspec.book.parameters`, which does not import this module.
"""

from __future__ import annotations

import ast
import numbers
import types

from attnspec.book.parameters import (ChapterSpec, Choice, ChoiceList, Float, FloatList, Int,
                                      IntList, ParameterError)
from attnspec.pretrained.passages import PASSAGE_NAMES
from attnspec.sampling.ties import TIES

__all__ = ["CHAPTERS", "SEED", "check_parameters", "check_values", "parse_assignments",
           "describe"]

SEED = Int(0, 2**32 - 1, help="seed of numpy.random.default_rng; same seed, same figures")

# Every β of a chapter lies in [0.01, a few]: the chapters study β of order one, and a value
# such as 1e-300 must be refused here, before a kernel starts, not by a law in the middle of a
# run (the laws reach β = 1e-72; see attnspec.AttentionLaw). Aspect ratios c start at 0.01 too,
# the lower end of AttentionLaw's documented range.

CHAPTERS = {
    "01_attention_as_a_random_matrix": ChapterSpec(
        parameters={
            "ell": Int(2, 6000, help="tokens ℓ (rows of the attention matrix)"),
            "d_qk": Int(1, 20000, help="query/key width d_qk"),
            "beta": Float(0.01, 5, help="inverse temperature β"),
            "draws": Int(1, 100, help="independent attention matrices pooled in the figure"),
            "seed": SEED,
        },
        quick={"ell": 120, "d_qk": 120, "draws": 1},
    ),
    # --- 02_background ---
    "02_background": ChapterSpec(
        parameters={
            "n": Int(20, 2000, help="size n of the random matrices of the illustrations"),
            "ratio": Float(0.1, 1, help="aspect ratio λ = n/p of the Gram and kernel matrices"),
            "beta": Float(0.01, 2.5,
                          help="inverse temperature β of the exponential nonlinearity"),
            "seed": SEED,
        },
        quick={"n": 150},
    ),
    # --- 03_single_head_theorem ---
    "03_single_head_theorem": ChapterSpec(
        parameters={
            "ell": Int(20, 4000, help="tokens ℓ (each grid cell uses d_qk = round(ℓ/c))"),
            "betas": FloatList(0.01, 3, max_len=6,
                               help="inverse temperatures β compared (rows of the grid)"),
            "cs": FloatList(0.01, 16, max_len=6,
                            help="ratios c = ℓ/d_qk compared (columns of the grid)"),
            "draws": Int(1, 100, help="independent draws per (β, c); ≥ 2 for standard errors"),
            "drop_top": Int(0, 50, help="largest values removed from softmax bulk statistics"),
            "seed": SEED,
        },
        quick={"ell": 150, "draws": 2},
    ),
    # --- 04_stepwise_equivalence ---
    "04_stepwise_equivalence": ChapterSpec(
        parameters={
            "ell": Int(2, 6000, help="tokens ℓ = d = d_qk"),
            "beta": Float(0.01, 5, help="inverse temperature β"),
            "draws": Int(1, 100, help="independent draws pooled"),
            "drop_top": Int(0, 50, help="top singular values removed before comparing bulks"),
            "degree": Int(1, 12, help="Hermite truncation degree Q of Y^Q"),
            "seed": SEED,
        },
        quick={"ell": 150, "draws": 1},
    ),
    # --- 05_outliers_and_threshold ---
    "05_outliers_and_threshold": ChapterSpec(
        parameters={
            "ell": Int(2, 6000, help="tokens ℓ = d_qk of the outlier study"),
            "beta": Float(0.01, 5, help="inverse temperature β of the outlier study"),
            "ells": IntList(2, 6000, help="sizes ℓ = d_qk of the (β, ℓ) sweep"),
            "betas": FloatList(0.01, 5, help="inverse temperatures β of the sweep"),
            "draws": Int(1, 100, help="draws per sweep point and in the outlier study"),
            "onset_step": Float(0.01, 1, help="β step of the finite-ℓ outlier predictor, "
                                "from min(betas) to max(betas)"),
            "executor": Choice(("processes", "threads", "serial"),
                               help="where attnspec.sweep runs the points"),
            "seed": SEED,
        },
        quick={"ell": 150, "ells": [60, 120], "betas": [0.5, 1.0], "draws": 1,
               "onset_step": 0.25},
    ),
    # --- 06_multihead_equivalence ---
    "06_multihead_equivalence": ChapterSpec(
        parameters={
            "ell": Int(2, 4000, help="tokens ℓ (at most d)"),
            "d": Int(1, 8000, help="embedding width d"),
            "heads_list": IntList(1, 64, max_len=6, help="head counts H compared, with the "
                                  "standard allocation d_h = d_v = d/H (rounded)"),
            "beta": Float(0.01, 5, help="inverse temperature β"),
            "draws": Int(1, 100, help="draws pooled per head count (>= 2 for standard errors)"),
            "allocation_heads": IntList(1, 1000, max_len=8, help="head counts of the "
                                        "head-allocation figure (law + two GE draws each)"),
            "value_ratios": FloatList(0, 16, min_open=True, max_len=6, help="ratios ℓ/d_v of "
                                      "the projection-width figure"),
            "output_ratios": FloatList(0, 1, min_open=True, max_len=6, help="ratios ℓ/d of the "
                                       "projection-width figure (d = ℓ/ratio)"),
            "width_heads": Int(1, 64, help="heads H of the projection-width figure"),
            "seed": SEED,
        },
        quick={"ell": 64, "d": 128, "heads_list": [1, 2], "draws": 2,
               "allocation_heads": [1, 4, 16], "value_ratios": [0.5, 2.0],
               "output_ratios": [0.5, 1.0]},
    ),
    # --- 07_key_dependent_projections ---
    "07_key_dependent_projections": ChapterSpec(
        parameters={
            "ell": Int(2, 4000, help="tokens ℓ (at most d)"),
            "d": Int(1, 8000, help="embedding width d (divisible by heads)"),
            "heads": Int(1, 64, help="heads H, with d_h = d_v = d/H"),
            "groups": Int(1, 64, help="key/value groups of grouped-query attention (divides H)"),
            "ties": ChoiceList(TIES, max_len=8,
                               help="weight ties compared with independent heads ('none' is "
                                    "always computed)"),
            "beta": Float(0.01, 5, help="inverse temperature β"),
            "draws": Int(1, 100, help="draws per tie (>= 2 for standard errors)"),
            "seed": SEED,
        },
        quick={"ell": 64, "d": 128, "draws": 2},
    ),
    # --- 09_realistic_random_attention ---
    "09_realistic_random_attention": ChapterSpec(
        parameters={
            "ells": IntList(16, 4000, max_len=6,
                            help="sizes ℓ of the causal-mask and correlated-token studies"),
            "head_ells": IntList(16, 4000, max_len=6,
                                 help="sizes ℓ of the head-width study (c = ℓ/d_h)"),
            "d_h": Int(1, 1024, help="head width d_h of the head-width study"),
            "beta": Float(0.01, 3, help="inverse temperature β"),
            "gamma": Float(1, 16, help="tokens per embedding width ℓ/d of the token studies"),
            "shared": Float(0, 0.95, help="weight ρ of the shared mean direction of the tokens"),
            "draws": Int(1, 20, help="coupled draws pooled per size"),
            "drop_top": Int(0, 3, help="largest values removed from every bulk statistic"),
            "cells": Int(8, 150, help="grid cells per axis of the vector Dyson solver"),
            "passage": Choice(PASSAGE_NAMES, help="passage whose all-MiniLM-L6-v2 token "
                              "embeddings feed the embedding study"),
            "embedding_ells": IntList(16, 512, max_len=6, help="sizes ℓ of the embedding "
                                      "study (first ℓ tokens; cut at the passage's length)"),
            "seed": SEED,
        },
        quick={"ells": [64, 128], "head_ells": [64, 128], "d_h": 16, "draws": 1,
               "cells": 24, "passage": "abstract2", "embedding_ells": [32, 64]},
    ),
    # --- 10_trained_transformer ---
    "10_trained_transformer": ChapterSpec(
        parameters={
            "passages": ChoiceList(PASSAGE_NAMES, max_len=len(PASSAGE_NAMES),
                                   help="shipped passages read by the model (results are "
                                        "pooled over them)"),
            "max_words": Int(5, 400, help="first words of each passage read (400: whole "
                                          "passages, up to 470 tokens)"),
            "beta_random": Float(0.01, 3,
                                 help="inverse temperature β of the random rungs 1-2"),
            "draws": Int(1, 20, help="random heads per random rung and passage"),
            "multihead_passage": Choice(PASSAGE_NAMES[:-1], help="passage of the multi-head "
                                        "comparison (ℓ <= d = 384, as MultiHeadLaw needs)"),
            "multihead_layer": Int(0, 5, help="layer drawn in the multi-head figure"),
            "seed": SEED,
        },
        quick={"passages": ["abstract2", "dickens"], "max_words": 30,
               "draws": 1},
    ),
}


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
