r"""Where linearising softmax attention fails: scales in β and finite-ℓ onsets (MATH.md §5).

Three kinds of object, kept apart on purpose:

- :func:`threshold_scales`: the ℓ → ∞ scales β = factor·√(log ℓ), each labelled
  *literature*, *derived* or *heuristic*, with its source;
- :func:`row_sum_fluctuation`: the relative size of the softmax row sums' fluctuations at finite
  ℓ and d_qk (MATH.md §5, Lemma 2), in its two-term form and exactly;
- :func:`largest_entries` and :func:`entry_onset`: the finite-ℓ predictor of outliers, the β at
  which the largest squared entry of √ℓ A^⊥ clears the right edge z₊² of ν_∞.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .._validation import (ParameterError, ParameterTypeError, check_beta, check_choice,
                           check_float, check_int, check_rng)
from ..hermite import total_variance
from ..sampling.softmax import gaussian_factors, scores
from .tables import format_with_se

__all__ = ["Scale", "ThresholdScales", "threshold_scales", "row_sum_fluctuation",
           "RowSumFluctuation", "largest_entries", "entry_onset", "onset_summary",
           "onset_text", "SCALE_LABELS"]

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
    "m1_lln": (
        math.sqrt(0.5), "derived", r"\sqrt{\log\ell/2}",
        "Σⱼ e^{2βSᵢⱼ}, hence m₁ = Σᵢⱼ Aᵢⱼ² − 1, obeys the law of large numbers below it",
        "this companion: the LLN scale of the literature applied to the exponent 2β"),
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

    Also readable as attributes: ``scales.m1_lln.value``.
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
    r"""The ℓ → ∞ scales of β at which softmax attention stops behaving linearly (MATH.md §5).

    For ℓ Gaussian scores g₁, …, g_ℓ, the sum Σₖ e^{γgₖ} obeys the law of large numbers iff
    γ < √(2 log ℓ) and the central limit theorem iff γ < √(log ℓ / 2) (between the two its
    fluctuations are α-stable with α = √(2 log ℓ)/γ) [literature]. Applied to softmax
    attention with L = log ℓ:

    ==================  ===================  ==========  =================================
    name                β =                  label       what changes
    ==================  ===================  ==========  =================================
    ``largest_entry``   (2 − √3)√L ≈ 0.27√L  heuristic   largest entry of √ℓA^⊥ stops → 0
    ``row_sum_clt``     √(L/2)               literature  row sums: Gaussian → stable
    ``m1_lln``          √(L/2)               derived     Σⱼe^{2βSᵢⱼ}, so m₁, stops → s
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
    ValueError
        If some ``ell`` is not a finite number > 1.
    """
    message = f"ell must be a finite number > 1 (or an array of them); got ell={ell!r}"
    if isinstance(ell, (str, bytes, bool, np.bool_)):
        raise ValueError(message)
    try:
        values = np.asarray(ell, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(message) from None
    if values.size == 0 or not np.all(np.isfinite(values)) or np.any(values <= 1):
        raise ValueError(message)
    root = np.sqrt(np.log(values))
    scales = {}
    for name, (factor, label, tex, meaning, source) in _SCALES.items():
        value = factor * root
        scales[name] = Scale(name, factor, float(value) if value.ndim == 0 else value,
                             label, tex, meaning, source)
    return ThresholdScales(float(values) if values.ndim == 0 else values, scales)


@dataclass(frozen=True)
class RowSumFluctuation:
    r"""Relative standard deviation of a softmax row sum rᵢ = Σₖ e^{βSᵢₖ} (MATH.md §5, Lemma 2).

    Attributes
    ----------
    keys : float
        √((e^{β²} − 1)/ℓ), from the ℓ terms given the query.
    query : float
        β²/√(2 d_qk), from the query norm: E[rᵢ | qᵢ] = ℓ exp(β²‖qᵢ‖²/(2d_qk)).
    total : float
        √(keys² + query²), the two-term (leading-order) form.
    exact : float
        sd(rᵢ)/E[rᵢ] computed exactly (χ² moment generating function); ``inf`` if
        4β² ≥ d_qk, where E rᵢ² diverges.
    within_draw : float
        The exact value of the same ratio for the rows of one matrix (which share the keys):
        √(exact² − Var(E[rᵢ | K])/E[rᵢ]²); ``inf`` if 4β² ≥ d_qk.
    log_mean : float
        log E rᵢ = log ℓ + a₁ = log ℓ − (d_qk/2) log(1 − β²/d_qk), the scale the row sums of
        :func:`largest_entries` are divided by.
    """

    keys: float
    query: float
    total: float
    exact: float
    within_draw: float
    log_mean: float


def row_sum_fluctuation(beta, ell, d_qk):
    r"""Relative fluctuation of the softmax row sums, two-term form and exact (MATH.md §5).

    With scores Sᵢₖ = qᵢ·kₖ/√d_qk (q, k i.i.d. standard Gaussian vectors), given qᵢ the ℓ terms
    e^{βSᵢₖ} are i.i.d. log-normal with σ² = ‖qᵢ‖²/d_qk, so with ‖qᵢ‖² ~ χ²(d_qk) and
    aₘ = −(d_qk/2) log(1 − mβ²/d_qk) = log E e^{mβ²σ²/2}:

        E rᵢ = ℓ e^{a₁},   Var rᵢ / (E rᵢ)² = (e^{a₄ − 2a₁} − e^{a₂ − 2a₁})/ℓ + (e^{a₂ − 2a₁} − 1),

    whose leading terms are (e^{β²} − 1)/ℓ (keys) and β⁴/(2 d_qk) (query norm). aₘ is finite
    iff mβ² < d_qk (E e^{t qₖkₖ} = (1 − t²)^{−1/2} per coordinate pair, for −1 < t < 1 only): the
    mean needs β² < d_qk, and the variance is infinite when 4β² ≥ d_qk, so ``exact`` and
    ``within_draw`` are then ``inf`` (E rᵢ² involves E e^{2βSᵢₖ} = e^{a₄}).

    Accuracy, relative to the exact value at the given float inputs (mpmath): within 4e-13
    for β from 1e-300 to 26, ℓ up to 1e12 and d_qk up to 1e15 while 4β² ≤ 0.9 d_qk (the
    exponent differences are formed in closed form, without cancellation, and carried in
    logarithms, so β² may underflow). Next to the divergence the ratio is ill-conditioned:
    a relative change ε of β moves it by about ε·2β²/(1 − 4β²/d_qk), and the rounding of
    β²/d_qk does the same, so the error bound is 4e-13 + 2.2e-16·2β²/(1 − 4β²/d_qk)
    (measured: at most 0.6 of it over d_qk from 1 to 1e9 and 1 − 4β²/d_qk from 0.5 to 1e-14;
    e.g. 1e-3 relative at d_qk = 100, 4β² = d_qk(1 − 1e-12)). Where the finite exact ratio
    exceeds the float64 range (1 − 4β²/d_qk below about e^{−2840/d_qk}, reachable in
    float64 only for d_qk ≳ 80) it is refused rather than returned as ``inf``, which would
    claim the divergence itself.

    Parameters
    ----------
    beta : float
        Inverse temperature 0 < β ≤ 26 (``BETA_MAX``), with β² < d_qk.
    ell, d_qk : int
        Tokens ℓ ≥ 1 and query/key width d_qk ≥ 1.

    Returns
    -------
    RowSumFluctuation

    Raises
    ------
    ParameterError
        (a ``ValueError``) If an argument is out of its range; if β² ≥ d_qk, where E rᵢ is
        infinite and the ratio sd(rᵢ)/E rᵢ has no value (named ``beta``); or if the finite
        exact ratio exceeds the float64 range (4β² just below d_qk, named ``beta``): ``inf``
        is reserved for 4β² ≥ d_qk, where the variance really is infinite.
    """
    beta = check_beta(beta)
    ell = check_int("ell", ell, min=1)
    d_qk = check_int("d_qk", d_qk, min=1)
    if beta * beta >= d_qk:
        raise ParameterError(f"beta**2 must be < d_qk (E r_i is infinite otherwise, so "
                         f"sd(r_i)/E r_i has no value); got beta={beta!r}, d_qk={d_qk!r}")
    log_b2, log_ell = 2 * math.log(beta), math.log(ell)
    keys = math.exp(0.5 * (_log_expm1_from_log(log_b2) - log_ell))
    query = math.exp(log_b2 - 0.5 * math.log(2 * d_qk))
    exact = within = math.inf                               # E rᵢ² = ∞ when 4β² ≥ d_qk
    if 4 * beta * beta < d_qk:
        # the differences of exponents in closed form, free of cancellation at small β:
        # with x = β²/d, y = x/(1−x) and w = 2x/(1−2x),
        #   u = a₂ − 2a₁ = −(d/2) log1p(−y²) = β⁴/(2d(1−x)²) · ρ(y²),
        #   v = a₄ − a₂ = −(d/2) log1p(−w)  = β²/(1−2x) · ρ(w),   ρ(z) = −log1p(−z)/z,
        # taken in logarithms from log β², which does not underflow
        x = beta * beta / d_qk
        y, w = x / (1 - x), 2 * x / (1 - 2 * x)
        log_u = (2 * log_b2 - math.log(2 * d_qk) - 2 * math.log1p(-x)
                 + math.log(_log1p_ratio(y * y)))
        log_v = log_b2 - math.log1p(-2 * x) + math.log(_log1p_ratio(w))
        # in logarithms, so that a ratio near the divergence does not overflow on the way
        log_query = _log_expm1_from_log(log_u)              # Var(E[r|q]) / (E r)²
        log_key = math.exp(log_u) + _log_expm1_from_log(log_v) - log_ell
        # rows of one matrix share K: subtract Var(E[r|K]) / (E r)² = query part / ℓ
        log_shared = log_query + math.log1p(-1 / ell) if ell > 1 else -math.inf
        try:
            exact = math.exp(0.5 * np.logaddexp(log_key, log_query))
            within = math.exp(0.5 * np.logaddexp(log_key, log_shared))
        except OverflowError:
            raise ParameterError(
                f"beta={beta!r} is too close to sqrt(d_qk)/2 for d_qk={d_qk!r}: the finite "
                f"sd(r_i)/E r_i exceeds the float64 range (4 beta**2 = {4 * beta * beta!r})"
            ) from None
    return RowSumFluctuation(keys, query, math.hypot(keys, query), exact, within,
                             _log_row_sum_mean(beta, ell, d_qk))


def _log_row_sum_mean(beta, ell, d_qk):
    """log E rᵢ = log ℓ + a₁, a₁ = −(d_qk/2) log(1 − β²/d_qk) (MATH.md §5; needs β² < d_qk)."""
    return math.log(ell) - 0.5 * d_qk * math.log1p(-beta * beta / d_qk)


def _log_expm1_from_log(log_v):
    """log(e^v − 1) from log v: no underflow for tiny v, no overflow for large v."""
    if log_v < -30.0:                       # v < 1e-13: log(expm1(v)/v) = v/2 + O(v²)
        return log_v + 0.5 * math.exp(log_v)
    v = math.exp(log_v)
    return v + math.log1p(-math.exp(-v)) if v > 30.0 else math.log(math.expm1(v))


def _log1p_ratio(z):
    """−log1p(−z)/z for 0 ≤ z < 1 (1 at z = 0)."""
    return -math.log1p(-z) / z if z > 0 else 1.0


@functools.lru_cache(maxsize=512)
def _edge(beta, c):
    from ..laws.attention import AttentionLaw
    return float(AttentionLaw(beta, c).support()[1])


def largest_entries(ell, betas, rng=None, *, c=1.0):
    r"""One draw of softmax attention at several β: largest entries of √ℓA^⊥ vs the edge of ν_∞.

    The per-draw function of the finite-ℓ outlier predictor (module level, picklable, its
    result cacheable by :func:`attnspec.sweep`). One pair Q, K is drawn and reused for every β
    (common random numbers), so the curves in β are smooth.

    Parameters
    ----------
    ell : int
        Tokens ℓ ≥ 2.
    betas : sequence of float
        Inverse temperatures, each in (0, 5].
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of randomness (Q, then K, each ℓ×d_qk standard Gaussian).
    c : float
        Ratio c = ℓ/d_qk > 0; d_qk = round(ℓ/c) (at least 1).

    Returns
    -------
    dict
        Lists over ``betas``: ``"beta"``; ``"edge"``: z₊² of ``AttentionLaw(beta, ℓ/d_qk)``;
        ``"max_entry2"``: maxᵢⱼ Mᵢⱼ² with M = √ℓ A^⊥; ``"entries_above"``: the number of
        entries with Mᵢⱼ² > z₊²; ``"row_sum_rel_sd"``: standard deviation of the row sums
        Σₖ e^{βSᵢₖ} over the rows divided by their exact mean ℓ E e^{β²‖q‖²/(2d_qk)} (nan if
        β² ≥ d_qk); ``"m1"``: mean squared singular value Σᵢⱼ Aᵢⱼ² − 1 (no SVD needed).

    Notes
    -----
    Cost: one ℓ×d_qk×ℓ product, then per β one ℓ×ℓ exponential and, the first time a β is
    seen, the edge of ν_∞ (cached); no singular value decomposition.
    """
    ell = check_int("ell", ell, min=2)
    c = check_float("c", c, min=0, min_open=True)
    if isinstance(betas, (str, bytes)) or not hasattr(betas, "__len__") or len(betas) == 0:
        raise ValueError(f"betas must be a non-empty sequence of numbers; got betas={betas!r}")
    betas = [check_float("betas", b, min=0, max=5, min_open=True) for b in betas]
    rng = check_rng(rng)
    d_qk = max(1, round(ell / c))
    S = scores(*gaussian_factors(ell, d_qk, rng))
    top = S.max(axis=1, keepdims=True)
    out = {"beta": betas, "edge": [], "max_entry2": [], "entries_above": [],
           "row_sum_rel_sd": [], "m1": []}
    for beta in betas:
        edge = _edge(beta, ell / d_qk)
        E = np.exp(beta * (S - top))
        rows = E.sum(axis=1)
        A = E / rows[:, None]
        M2 = ell * (A - 1.0 / ell) ** 2
        out["edge"].append(edge)
        out["max_entry2"].append(float(M2.max()))
        out["entries_above"].append(int(np.count_nonzero(M2 > edge)))
        out["m1"].append(float(np.sum(A * A) - 1.0))
        if beta * beta < d_qk:
            log_rows = np.log(rows) + beta * top[:, 0]
            log_mean = _log_row_sum_mean(beta, ell, d_qk)
            rel = np.exp(log_rows - log_mean)
            out["row_sum_rel_sd"].append(float(np.std(rel, ddof=1)))
        else:
            out["row_sum_rel_sd"].append(math.nan)
        del E, A, M2
    return out


def entry_onset(betas, max_entry2, edges):
    r"""Where the largest squared entry crosses the edge z₊²: first upward and last downward
    (MATH.md §5: predict the outlier onset from it).

    Parameters
    ----------
    betas : array_like
        Increasing inverse temperatures.
    max_entry2, edges : array_like
        The largest squared entry of √ℓA^⊥ (one draw, or a mean over draws) and z₊² at each β.

    Returns
    -------
    tuple of float
        ``(onset, end)``: the smallest β at which max_entry2/edge crosses 1 from below and the
        largest at which it crosses back below 1, both by linear interpolation of
        log(max_entry2/edge) in β. When the ratio is already above 1 at ``betas[0]`` the
        onset lies at or before the grid and ``onset`` is ``betas[0]``, an upper bound (tell
        the two cases apart with ``max_entry2[0] > edges[0]``; :func:`onset_summary` does).
        nan where there is no such crossing: ``onset`` when the ratio is never above 1,
        ``end`` when it is still above 1 at the largest β.
    """
    betas = np.asarray(betas, dtype=np.float64)
    top = np.asarray(max_entry2, dtype=np.float64)
    edges = np.asarray(edges, dtype=np.float64)
    if betas.ndim != 1 or betas.size < 2 or top.shape != betas.shape \
            or edges.shape != betas.shape:
        raise ValueError("betas, max_entry2 and edges must be 1-d of the same length >= 2; got "
                         f"shapes {betas.shape}, {top.shape} and {edges.shape}")
    ratio = top / edges
    if not np.all(np.diff(betas) > 0) or not np.all(ratio > 0) \
            or not np.all(np.isfinite(ratio)):
        raise ValueError("betas must be increasing and max_entry2, edges finite and positive; "
                         f"got betas={betas}, max_entry2={top}, edges={edges}")
    log_ratio = np.log(ratio)
    above = log_ratio > 0

    def crossing(k):
        x0, x1, y0, y1 = betas[k], betas[k + 1], log_ratio[k], log_ratio[k + 1]
        return float(x0 + (x1 - x0) * (0 - y0) / (y1 - y0))

    ups = np.flatnonzero(~above[:-1] & above[1:])
    downs = np.flatnonzero(above[:-1] & ~above[1:])
    onset = float(betas[0]) if above[0] else crossing(ups[0]) if ups.size else math.nan
    end = crossing(downs[-1]) if downs.size and not above[-1] else math.nan
    return onset, end


def onset_summary(runs):
    r"""Means over draws of :func:`largest_entries`, and the crossings of the edge.

    Parameters
    ----------
    runs : list of dict
        Results of :func:`largest_entries` for independent draws at one (ℓ, c), all with the
        same ``betas``.

    Returns
    -------
    dict
        Arrays over β: ``"beta"``, ``"edge"``, ``"ratio"`` (mean of max Mᵢⱼ²/z₊²) and
        ``"ratio_se"``, ``"cross_ratio"`` (mean of (max Mᵢⱼ² + 2s)/z₊², s = e^{β²} − 1, the
        cross estimate with a typical row and column), ``"row_sum_rel_sd"`` and
        ``"row_sum_rel_sd_se"``, ``"m1"``; floats ``"onset"``, ``"end"`` (crossings of the mean
        ratio, :func:`entry_onset`), ``"onset_se"`` and ``"cross_onset"``; bools
        ``"onset_at_start"`` and ``"cross_onset_at_start"``, true when the mean ratio is
        already above 1 at the grid's first β (the onset is then ``betas[0]``, an upper
        bound); ints ``"draws"``, ``"onset_crossed"``, the number of draws whose own ratio
        exceeds 1 somewhere in the grid (whose own largest entry clears the edge), and
        ``"draws_at_start"``, those among them already above 1 at the first β.
        ``"onset_se"`` is the standard deviation of the per-draw onsets over √draws, defined
        only when every draw crosses from below inside the grid and there are at least two: a
        draw whose largest entry never clears the edge has no onset, one above the edge from
        the first β only a bound, and leaving either out would bias the spread, so the
        standard error is nan then (:func:`onset_text` reports the counts instead).
    """
    if not runs:
        raise ValueError("runs must be a non-empty list of largest_entries results")
    betas = np.asarray(runs[0]["beta"], dtype=np.float64)
    for run in runs:
        if not np.array_equal(np.asarray(run["beta"], dtype=np.float64), betas):
            raise ValueError("every run must have the same betas")
    edge = np.asarray(runs[0]["edge"], dtype=np.float64)
    top = np.array([run["max_entry2"] for run in runs], dtype=np.float64)
    ratio = top / edge
    cross = (top + 2 * total_variance(betas)) / edge
    rows = np.array([run["row_sum_rel_sd"] for run in runs], dtype=np.float64)
    n = len(runs)

    def se(values):
        return values.std(axis=0, ddof=1) / math.sqrt(n) if n > 1 else np.full(betas.shape,
                                                                                np.nan)

    ones = np.ones_like(betas)
    mean_ratio, mean_cross = ratio.mean(axis=0), cross.mean(axis=0)
    onset, end = entry_onset(betas, mean_ratio, ones)
    per_draw = np.array([entry_onset(betas, r, ones)[0] for r in ratio])
    crossed = int(np.count_nonzero(np.any(ratio > 1, axis=1)))
    at_start = int(np.count_nonzero(ratio[:, 0] > 1))
    onset_se = float(np.std(per_draw, ddof=1) / math.sqrt(n)) \
        if 1 < n == crossed and at_start == 0 else math.nan
    return {"beta": betas, "edge": edge, "ratio": mean_ratio, "ratio_se": se(ratio),
            "cross_ratio": mean_cross, "row_sum_rel_sd": rows.mean(axis=0),
            "row_sum_rel_sd_se": se(rows),
            "m1": np.mean([run["m1"] for run in runs], axis=0), "onset": onset,
            "end": end, "onset_se": onset_se, "onset_at_start": bool(mean_ratio[0] > 1),
            "draws": n, "onset_crossed": crossed, "draws_at_start": at_start,
            "cross_onset": entry_onset(betas, mean_cross, ones)[0],
            "cross_onset_at_start": bool(mean_cross[0] > 1)}


_AT_START = " (above the edge at the grid's first β)"


def onset_text(summary, crossing=True, *, key="onset", none="(none in the grid)"):
    """A crossing of an :func:`onset_summary` as text, with its standard error where it has one.

    Parameters
    ----------
    summary : dict
        A result of :func:`onset_summary`.
    crossing : bool
        Append ``" (k of n draws cross)"`` when some draw has no onset of its own (a table
        that shows the count in a column of its own passes False).
    key : {"onset", "end", "cross_onset"}
        Which crossing: the onset (with its standard error), the end or the cross onset (the
        value alone).
    none : str
        The text when there is no such crossing in the grid.

    Returns
    -------
    str
        ``"1.09 ± 0.08"`` when every draw crosses (digits as
        :func:`~attnspec.experiments.tables.format_with_se` gives them);
        ``"1.27 ± n/a (2 of 3 draws cross)"`` when some draw never crosses (no standard error, see :func:`onset_summary`); ``"1.09"``
        followed by ``" (one draw)"`` for a single draw; ``"≤ 1.25 (above the edge at the
        grid's first β)"`` when the mean ratio is already above the edge at the first β
        (``summary["onset_at_start"]``, resp. ``"cross_onset_at_start"``); ``none`` when the
        mean ratio never crosses the edge. For ``key="end"`` or ``"cross_onset"``, the value
        alone (``"2.26"``).

    Raises
    ------
    ValueError
        If ``summary`` lacks a field, or has ``draws < 1`` or ``onset_crossed`` outside
        0..draws.

    Examples
    --------
    >>> onset_text({"onset": 1.2683, "onset_se": float("nan"), "draws": 3,
    ...             "onset_crossed": 2})
    '1.27 ± n/a (2 of 3 draws cross)'
    >>> onset_text({"onset": 1.25, "onset_se": float("nan"), "draws": 3,
    ...             "onset_crossed": 3, "onset_at_start": True})
    "≤ 1.25 (above the edge at the grid's first β)"
    """
    if not isinstance(crossing, bool):
        raise TypeError(f"crossing must be a bool; got crossing={crossing!r}")
    key = check_choice("key", key, ("onset", "end", "cross_onset"))
    if not isinstance(none, str):
        raise ParameterTypeError(f"none must be a str; got none={none!r}")
    try:
        value, se = float(summary[key]), float(summary["onset_se"])
        n, crossed = int(summary["draws"]), int(summary["onset_crossed"])
        at_start = bool(summary.get(f"{key}_at_start", False))
    except (AttributeError, KeyError, TypeError, ValueError):
        raise ValueError(f"summary must be a result of onset_summary (with {key}, onset_se, "
                         f"draws and onset_crossed); got summary={summary!r}") from None
    if n < 1:
        raise ParameterError(f"summary['draws'] must be >= 1; got draws={n}")
    if not 0 <= crossed <= n:
        raise ParameterError(f"summary['onset_crossed'] must be between 0 and draws={n}; "
                             f"got onset_crossed={crossed}")
    if not math.isfinite(value):
        return none
    if at_start:
        return f"≤ {value:.3g}" + _AT_START
    text = f"{value:.3g}"
    if key != "onset":
        return text
    if n == 1:
        return text + (" (one draw)" if crossing else "")
    text = format_with_se(value, se) if math.isfinite(se) else text + " ± n/a"
    if crossing and crossed < n:
        text += f" ({crossed} of {n} draws cross)"
    elif crossing and summary.get("draws_at_start", 0):
        text += f" ({summary['draws_at_start']} of {n} draws above the edge at the first β)"
    return text
