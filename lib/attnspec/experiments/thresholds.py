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

from .._validation import check_float, check_int, check_rng
from ..hermite import total_variance
from ..sampling.softmax import gaussian_factors, scores

__all__ = ["Scale", "ThresholdScales", "threshold_scales", "row_sum_fluctuation",
           "RowSumFluctuation", "largest_entries", "entry_onset", "onset_summary",
           "SCALE_LABELS"]

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
        sd(rᵢ)/E[rᵢ] computed exactly (χ² moment generating function), nan if 4β² ≥ d_qk.
    within_draw : float
        The exact value of the same ratio for the rows of one matrix (which share the keys):
        √(exact² − Var(E[rᵢ | K])/E[rᵢ]²), nan if 4β² ≥ d_qk.
    """

    keys: float
    query: float
    total: float
    exact: float
    within_draw: float


def row_sum_fluctuation(beta, ell, d_qk):
    r"""Relative fluctuation of the softmax row sums, two-term form and exact (MATH.md §5).

    With scores Sᵢₖ = qᵢ·kₖ/√d_qk (q, k i.i.d. standard Gaussian vectors), given qᵢ the ℓ terms
    e^{βSᵢₖ} are i.i.d. log-normal with σ² = ‖qᵢ‖²/d_qk, so with ‖qᵢ‖² ~ χ²(d_qk) and
    aₘ = −(d_qk/2) log(1 − mβ²/d_qk) = log E e^{mβ²σ²/2}:

        E rᵢ = ℓ e^{a₁},   Var rᵢ / (E rᵢ)² = (e^{a₄ − 2a₁} − e^{a₂ − 2a₁})/ℓ + (e^{a₂ − 2a₁} − 1),

    whose leading terms are (e^{β²} − 1)/ℓ (keys) and β⁴/(2 d_qk) (query norm).

    Parameters
    ----------
    beta : float
        Inverse temperature β > 0.
    ell, d_qk : int
        Tokens ℓ ≥ 1 and query/key width d_qk ≥ 1.

    Returns
    -------
    RowSumFluctuation
    """
    beta = check_float("beta", beta, min=0, min_open=True)
    ell = check_int("ell", ell, min=1)
    d_qk = check_int("d_qk", d_qk, min=1)
    keys = math.sqrt(total_variance(beta) / ell)
    query = beta * beta / math.sqrt(2 * d_qk)
    exact = within = math.nan
    if 4 * beta * beta < d_qk:
        def a(m):
            return -0.5 * d_qk * math.log1p(-m * beta * beta / d_qk)
        query_part = math.expm1(a(2) - 2 * a(1))          # Var(E[r|q]) / (E r)²
        key_part = (math.exp(a(4) - 2 * a(1)) - math.exp(a(2) - 2 * a(1))) / ell
        exact = math.sqrt(key_part + query_part)
        # rows of one matrix share K: subtract Var(E[r|K]) / (E r)² = query_part / ℓ
        within = math.sqrt(max(key_part + query_part * (1 - 1 / ell), 0.0))
    return RowSumFluctuation(keys, query, math.hypot(keys, query), exact, within)


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
    Cost: one ℓ×d_qk×ℓ product, then per β one ℓ×ℓ exponential (about 0.1 s at ℓ = 1000)
    and, the first time a β is seen, the edge of ν_∞ (about 0.05 s).
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
            log_mean = math.log(ell) - 0.5 * d_qk * math.log1p(-beta * beta / d_qk)
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
        log(max_entry2/edge) in β; nan where there is no such crossing (``end`` is nan while
        the ratio is still above 1 at the largest β).
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
    onset = crossing(ups[0]) if ups.size else math.nan
    end = crossing(downs[-1]) if downs.size and (not ups.size or downs[-1] > ups[0]) \
        else math.nan
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
        ratio, :func:`entry_onset`), ``"onset_se"`` (standard deviation of the per-draw onsets
        over √draws; nan with one draw or when a draw has no crossing) and ``"cross_onset"``.
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

    onset, end = entry_onset(betas, ratio.mean(axis=0), np.ones_like(betas))
    per_draw = [entry_onset(betas, r, np.ones_like(betas))[0] for r in ratio]
    onset_se = float(np.std(per_draw, ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    return {"beta": betas, "edge": edge, "ratio": ratio.mean(axis=0), "ratio_se": se(ratio),
            "cross_ratio": cross.mean(axis=0), "row_sum_rel_sd": rows.mean(axis=0),
            "row_sum_rel_sd_se": se(rows),
            "m1": np.mean([run["m1"] for run in runs], axis=0), "onset": onset,
            "end": end, "onset_se": onset_se,
            "cross_onset": entry_onset(betas, cross.mean(axis=0), np.ones_like(betas))[0]}
