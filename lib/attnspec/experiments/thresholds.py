r"""Where linearising softmax attention fails as ℓ → ∞: the registry of scales (A4 §5).

:func:`threshold_scales` gives the scales β = factor·√(log ℓ), each labelled *literature*,
*derived* or *heuristic*, with its source. The finite-ℓ quantities live elsewhere: the row sums'
fluctuation in :mod:`attnspec.experiments.row_sums`, the outlier onset in
:mod:`attnspec.experiments.outlier_onset`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .._validation import ParameterError, as_float_array, given

__all__ = ["Scale", "ThresholdScales", "threshold_scales", "SCALE_LABELS"]

#: The three provenance labels a scale can carry.
SCALE_LABELS = ("literature", "derived", "heuristic")

_BBM = ("Ben Arous, Bogachev & Molchanov (2005), sums of random exponentials; "
        "Bovier, Kurkova & Löwe (2002) for Gaussian terms")

# name: (factor of √(log ℓ), label, LaTeX, meaning, source)
_SCALES = {
    "largest_entry": (
        2 - math.sqrt(3), "heuristic", r"(2-\sqrt{3})\sqrt{\log\ell}",
        "the largest entry of √ℓA^⊥ vanishes as ℓ → ∞ below it",
        "this companion: max of ℓ² scores ≈ 2√(log ℓ), entry ≈ e^{βS−β²/2}/√ℓ"),
    "row_sum_clt": (
        math.sqrt(0.5), "literature", r"\sqrt{\log\ell/2}",
        "the row sums have Gaussian fluctuations below it, α-stable ones above "
        "(index √(2 log ℓ)/β)", _BBM),
    "mean_shortfall": (
        math.sqrt(2.0 / 3.0), "heuristic", r"\sqrt{2\log\ell/3}",
        "the mean m₁ of the squared singular values of √ℓA^⊥ falls short of s = e^{β²} − 1 "
        "past it: one weight rivals its row sum",
        "this companion: m₁ + 1 pools about ℓ² scores over rows independent given the keys; "
        "E e^{2βg} is carried by g ≈ 2β, where a weight saturates once 2β² > log ℓ + β²/2 "
        "(the one-weight heuristic, row_sums.mean_ratio_one_weight)"),
    "mean_bound": (
        1.0, "derived", r"\sqrt{\log\ell}",
        "above it the limit mean s = e^{β²} − 1 exceeds the exact bound m₁ ≤ ℓ − 1",
        "this companion: exact, from Σⱼ Aᵢⱼ² ≤ 1 for every row"),
    "row_sum_lln": (
        math.sqrt(2.0), "literature", r"\sqrt{2\log\ell}",
        "the row sums obey the law of large numbers below it; above it attention "
        "freezes onto a few keys", _BBM),
}


@dataclass(frozen=True)
class Scale:
    r"""One threshold scale β = factor·√(log ℓ) and where it comes from.

    Attributes
    ----------
    name : str
        Key in :func:`threshold_scales`.
    factor : float
        The scale is ``factor * sqrt(log(ell))``.
    value : float or numpy.ndarray
        Its value at the ℓ it was evaluated at.
    label : str
        ``"literature"``, ``"derived"`` (this companion, from a stated argument) or
        ``"heuristic"`` (this companion, an order-of-magnitude argument).
    tex : str
        LaTeX of the formula, e.g. ``r"\sqrt{2\log\ell}"``.
    meaning, source : str
        What happens on either side of it, and the reference or argument.
    """

    name: str
    factor: float
    value: float | np.ndarray
    label: str
    tex: str
    meaning: str
    source: str


class ThresholdScales(Mapping):
    """The scales of :func:`threshold_scales`, by name (a read-only mapping of :class:`Scale`).

    Also readable as attributes: ``scales.mean_shortfall.value``.
    """

    def __init__(self, ell, scales):
        self._scales = dict(scales)
        self.ell = ell

    def __getitem__(self, name):
        return self._scales[name]

    def __iter__(self):
        return iter(self._scales)

    def __len__(self):
        return len(self._scales)

    def __getattr__(self, name):
        try:
            return self.__dict__["_scales"][name]
        except KeyError:
            raise AttributeError(f"no scale named {name!r}; known: {', '.join(_SCALES)}") \
                from None

    def __repr__(self):
        body = ", ".join(f"{k}={np.round(v.value, 4).tolist()!r}"
                         for k, v in self._scales.items())
        return f"ThresholdScales(ell={self.ell!r}: {body})"


def threshold_scales(ell):
    r"""The ℓ → ∞ scales of β at which softmax attention stops behaving linearly (A4 §5).

    For ℓ Gaussian scores g₁, …, g_ℓ, the sum Σₖ e^{γgₖ} obeys the law of large numbers iff
    γ < √(2 log ℓ) and the central limit theorem iff γ < √(log ℓ / 2) (between the two its
    fluctuations are α-stable with α = √(2 log ℓ)/γ) [literature]. Applied to softmax
    attention with L = log ℓ (the mean m₁ averages over ℓ rows independent given the keys,
    so its scale is not the law of large numbers of one row's Σⱼ e^{2βSᵢⱼ}, which fails
    at √(L/2), but where the scores that carry E e^{2βg} make one weight rival its row sum):

    ==================  ===================  ==========  =================================
    name                β =                  label       what changes
    ==================  ===================  ==========  =================================
    ``largest_entry``   (2 − √3)√L ≈ 0.27√L  heuristic   largest entry of √ℓA^⊥ stops → 0
    ``row_sum_clt``     √(L/2)               literature  row sums: Gaussian → stable
    ``mean_shortfall``  √(2L/3) ≈ 0.82√L     heuristic   the mean m₁ stops → s
    ``mean_bound``      √L                   derived     s = e^{β²} − 1 > ℓ − 1 ≥ m₁ (exact)
    ``row_sum_lln``     √(2L)                literature  row sums stop concentrating
    ==================  ===================  ==========  =================================

    Parameters
    ----------
    ell : float or array_like
        Tokens ℓ > 1 (finite).

    Returns
    -------
    ThresholdScales
        Mapping name → :class:`Scale`, in increasing order of the factor; each ``value`` is a
        float for a scalar ``ell``, else an array of its shape.

    Raises
    ------
    ParameterError
        (a ``ValueError``) if some ``ell`` is not a finite number > 1.
    """
    message = f"ell must be a finite number > 1 (or an array of them); got {given('ell', ell)}"
    if isinstance(ell, (str, bytes, bool, np.bool_)):
        raise ParameterError(message)
    try:
        values = as_float_array(ell, "ell")   # refuses complex, dates, huge integers
    except (TypeError, ValueError):
        raise ParameterError(message) from None
    if values.size == 0 or not np.all(np.isfinite(values)) or np.any(values <= 1):
        raise ParameterError(message)
    root = np.sqrt(np.log(values))
    scales = {}
    for name, (factor, label, tex, meaning, source) in _SCALES.items():
        value = factor * root
        scales[name] = Scale(name, factor, float(value) if value.ndim == 0 else value,
                             label, tex, meaning, source)
    return ThresholdScales(float(values) if values.ndim == 0 else values, scales)
