"""Moment tables of the multi-head studies: rows, comparisons and their text formatting.

:class:`Comparison` holds the spectra, laws and :class:`MomentRow` summaries of a study
(:mod:`attnspec.experiments.multihead`) and prints them as Markdown or aligned text;
:func:`significant` and :func:`format_with_se` are the number formats of every table in the book.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._validation import ParameterError, ParameterTypeError, check_bool, check_choice, check_int

__all__ = ["significant", "format_with_se", "MomentRow", "Comparison"]


def significant(x, digits):
    """``x`` rounded to ``digits`` significant digits, as text with trailing zeros kept.

    >>> significant(7.14310799, 4), significant(0.0034567, 2), significant(36.0, 3)
    ('7.143', '0.0035', '36.0')
    """
    digits = check_int("digits", digits, min=1)
    if x is None or not np.isfinite(x):
        return "nan"
    text = f"{float(x):#.{digits}g}"
    return text[:-1] if text.endswith(".") else text


@dataclass(frozen=True)
class MomentRow:
    """One row of a comparison table (NaN where a value was not computed).

    Attributes
    ----------
    key : int or str
        H (head-count comparison) or the tie name.
    label, kind : str
        Human-readable name and where the tie acts (:data:`attnspec.sampling.ties.TIE_LABELS`, :data:`~attnspec.sampling.ties.TIE_KINDS`).
    m1_theory, m2_theory : float
        Closed-form limits (A4 §6 (a)–(c)).
    m1, m1_se, m2, m2_se : float
        Softmax attention: mean over draws of the empirical moments and its standard error.
    m2_equivalent, m2_equivalent_se : float
        The same for the Gaussian-equivalent model (same weights, draw by draw).
    ks_equivalent : float
        KS distance between the pooled softmax and Gaussian-equivalent spectra.
    ks_law : float
        KS distance between the pooled softmax spectrum and the limiting law (MultiHeadLaw).
    ks_reference : float
        KS distance between the pooled softmax spectrum and that of independent heads.
    """

    key: object
    label: str
    kind: str
    m1_theory: float
    m2_theory: float
    m1: float
    m1_se: float
    m2: float
    m2_se: float
    m2_equivalent: float = math.nan
    m2_equivalent_se: float = math.nan
    ks_equivalent: float = math.nan
    ks_law: float = math.nan
    ks_reference: float = math.nan


_COLUMNS = {  # name -> (markdown header, text header, formatter)
    "key": ("", "", lambda r: str(r.key)),
    "label": ("", "", lambda r: r.label),
    "kind": ("kind", "kind", lambda r: r.kind),
    "m1_theory": ("m₁ exact", "m1 exact", lambda r: significant(r.m1_theory, 4)),
    "m1": ("m₁ {sample}", "m1 {sample}", lambda r: format_with_se(r.m1, r.m1_se)),
    "m2_theory": ("m₂ exact", "m2 exact", lambda r: significant(r.m2_theory, 4)),
    "m2": ("m₂ {sample}", "m2 {sample}", lambda r: format_with_se(r.m2, r.m2_se)),
    "m2_equivalent": ("m₂ GE", "m2 GE",
                      lambda r: format_with_se(r.m2_equivalent, r.m2_equivalent_se)),
    "ks_equivalent": ("KS(softmax, GE)", "KS(GE)", lambda r: significant(r.ks_equivalent, 2)),
    "ks_law": ("KS({sample}, law)", "KS(law)", lambda r: significant(r.ks_law, 2)),
    "ks_reference": (None, None, lambda r: significant(r.ks_reference, 2)),
}


_REFERENCE_NAMES = ("KS to independent heads", "KS(indep)")  # default header of ks_reference


def format_with_se(value, se, *, nonbreaking=False):
    """``value ± se`` as text, with the value's digits matched to its standard error.

    The error keeps one significant digit (two when that digit is 1: ``0.013``, not ``0.01``)
    and the value is rounded to the same decimal place, but never to tens or coarser
    (``177 ± 30``, not ``180 ± 30``, which would look exact to the unit). A number of
    magnitude 1e6 or more, or where both are below 1e-4, shares a power of ten:
    ``(1.235 ± 0.005)e+12``. An error that is NaN (one draw), zero (an exact value) or below
    1e-15 of the value (double precision's rounding) gives the value alone to 3 significant
    digits; an infinite one gives ``"2.00 ± inf"``; a NaN value gives ``"nan"`` (tables show
    "—"). ``nonbreaking`` puts no-break spaces around "±", so that a table cell never splits
    the pair across lines.

    >>> format_with_se(177.4, 34.0), format_with_se(1.6812, 0.0134), format_with_se(0.28321, 7.1e-4)
    ('177 ± 30', '1.681 ± 0.013', '0.2832 ± 0.0007')
    >>> format_with_se(2.0, float("nan")), format_with_se(1.2346e12, 4.6e9)
    ('2.00', '(1.235 ± 0.005)e+12')

    Raises
    ------
    ValueError
        If ``se`` is negative (a standard error is ≥ 0).
    """
    check_bool("nonbreaking", nonbreaking)
    try:
        value, se = float(value), float(se)
    except (TypeError, ValueError):
        raise ParameterTypeError(f"value and se must be real numbers; got value={value!r}, "
                                 f"se={se!r}") from None
    if se < 0:
        raise ParameterError(f"se must be a standard error >= 0 (or NaN); got se={se!r}")
    text = _with_se(value, se)
    return text.replace(" ± ", "\u00a0±\u00a0") if nonbreaking else text


def _with_se(value, se):
    if not math.isfinite(value):
        return "nan" if math.isnan(value) else f"{value}"
    if math.isnan(se) or se <= 1e-15 * abs(value):
        return significant(value, 3)
    if math.isinf(se):
        return f"{significant(value, 3)} ± inf"
    top = max(abs(value), se)
    exponent = math.floor(math.log10(top))
    if top >= 1e6 or top < 1e-4:
        scale = 10.0 ** exponent
        return f"({_with_se(value / scale, se / scale)})e{exponent:+03d}"
    digits = 2 if f"{se:.1e}"[0] == "1" else 1
    rounded = float(f"{se:.{digits - 1}e}")
    decimals = max(0, digits - 1 - math.floor(math.log10(rounded)))
    shown = f"{value:.{decimals}f}"
    if float(shown) == 0:
        shown = shown.lstrip("-")
    return f"{shown} ± {rounded:.{decimals}f}"


@dataclass
class Comparison:
    """Spectra and their summary for several configurations (head counts or ties).

    Attributes
    ----------
    rows : dict
        key → :class:`MomentRow`, in the order computed.
    softmax, equivalent : dict
        key → list of per-draw spectra (softmax attention; Gaussian equivalent, or empty).
    laws : dict
        key → :class:`attnspec.MultiHeadLaw` of the configuration.
    noise_floor : float
        KS distance between two independent batches of independent-heads softmax spectra of
        the same size: the level below which a KS distance means "same law" (NaN if not
        computed).
    settings : dict
        The arguments of the comparison (ℓ, d, β, draws, ...).
    seeds : dict
        key → the int seed of its draws (softmax and Gaussian equivalent share it).
    """

    rows: dict = field(default_factory=dict)
    softmax: dict = field(default_factory=dict)
    equivalent: dict = field(default_factory=dict)
    laws: dict = field(default_factory=dict)
    noise_floor: float = math.nan
    settings: dict = field(default_factory=dict)
    seeds: dict = field(default_factory=dict)

    def pooled(self, key, model="softmax"):
        """All draws of ``key`` concatenated (``model`` "softmax" or "equivalent")."""
        check_choice("model", model, ("softmax", "equivalent"))
        return np.concatenate(getattr(self, model)[key])

    def _header(self, column, markdown):
        text = _COLUMNS[column][0 if markdown else 1]
        if not text:
            return self._name(column, markdown)
        return text.format(sample=self.settings.get("sample_name", "softmax"))

    def _name(self, column, markdown):
        if column == "ks_reference":
            return self.settings.get("reference_name", _REFERENCE_NAMES)[0 if markdown else 1]
        return self.settings.get("key_name" if column == "key" else "label_name", column)

    def table(self, columns=None, format="markdown"):
        """The rows as a table.

        Parameters
        ----------
        columns : sequence of str, optional
            Fields of :class:`MomentRow` to show (default: all that were computed).
        format : {"markdown", "text"}
            A Markdown table (for ``IPython.display.Markdown``) or aligned plain text (for
            printed, nbval-checked cells). Exact values have 4 significant digits, simulated
            moments ± one standard error over draws as :func:`format_with_se` writes them,
            KS distances 2; a value that was not
            computed (such as the KS distance of independent heads to themselves) is "—".
        """
        check_choice("format", format, ("markdown", "text"))
        if columns is None:
            columns = [c for c in _COLUMNS if c in ("key", "label", "kind")
                       or any(np.isfinite(getattr(r, c)) for r in self.rows.values())]
        for c in columns:
            check_choice("columns", c, tuple(_COLUMNS))
        cells = [[_COLUMNS[c][2](r) for c in columns] for r in self.rows.values()]
        cells = [["—" if x == "nan" else x for x in row] for row in cells]
        if format == "markdown":
            # no line break inside "value ± error" (non-breaking spaces)
            cells = [[x.replace(" ± ", "\u00a0±\u00a0") for x in row] for row in cells]
            head = [self._header(c, True) for c in columns]
            lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(columns)]
            lines += ["| " + " | ".join(row) + " |" for row in cells]
            return "\n".join(lines)
        head = [self._header(c, False) for c in columns]
        widths = [max(len(x) for x in col) for col in zip(head, *cells)]
        return "\n".join("  ".join(x.ljust(w) for x, w in zip(line, widths)).rstrip()
                         for line in [head, *cells])
