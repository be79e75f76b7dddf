r"""The finite-ℓ outlier onset: where the largest squared entry of √ℓ A^⊥ clears the right edge
z₊² of ν∞ (A4 §5).

:func:`largest_entries` samples one draw at several β (the per-draw function of a sweep),
:func:`entry_onset` finds the crossings of the edge, :func:`onset_summary` averages draws into
an :class:`OnsetSummary`, whose :meth:`OnsetSummary.text` formats a crossing for the book, and
:func:`first_outliers_below` says how far below an onset a sweep's draws already have outliers.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from .._validation import ParameterTypeError, check_choice, check_float, check_int, check_rng
from ..hermite import total_variance
from ..sampling.softmax import gaussian_factors, scores
from .row_sums import log_row_sum_mean
from .tables import format_with_se

__all__ = ["largest_entries", "entry_onset", "onset_summary", "OnsetSummary",
           "first_outliers_below"]


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
            log_mean = log_row_sum_mean(beta, ell, d_qk)
            rel = np.exp(log_rows - log_mean)
            out["row_sum_rel_sd"].append(float(np.std(rel, ddof=1)))
        else:
            out["row_sum_rel_sd"].append(math.nan)
        del E, A, M2
    return out


def entry_onset(betas, max_entry2, edges):
    r"""Where the largest squared entry crosses the edge z₊²: first upward and last downward
    (A4 §5: for one draw a sufficient condition for an outlier; for a mean over draws, only
    where outliers become common, not a prediction of the first one).

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


_AT_START = " (above the edge at the grid's first β)"


@dataclass(frozen=True)
class OnsetSummary:
    r"""Means over draws of :func:`largest_entries` at one (ℓ, c), and the crossings of the edge
    (made by :func:`onset_summary`).

    Attributes
    ----------
    beta, edge : numpy.ndarray
        The grid of β and z₊² at each.
    ratio, ratio_se : numpy.ndarray
        Mean of max Mᵢⱼ²/z₊² over the draws, and its standard error (nan for one draw).
    cross_ratio : numpy.ndarray
        Mean of (max Mᵢⱼ² + 2s)/z₊², s = e^{β²} − 1: the cross estimate with a typical row
        and column.
    row_sum_rel_sd, row_sum_rel_sd_se, m1 : numpy.ndarray
        Means (and the standard error) of the draws' row-sum spread and m₁.
    onset, end : float
        Crossings of the mean ratio (:func:`entry_onset`); nan where there is none.
    onset_se : float
        Standard deviation of the per-draw onsets over √draws; nan unless every draw crosses
        from below inside the grid and there are at least two (a draw without an onset of its
        own, or above the edge from the first β, would bias the spread).
    onset_at_start, cross_onset_at_start : bool
        The mean ratio (resp. cross estimate) is above 1 at the first β: the onset is then
        ``beta[0]``, an upper bound.
    draws, onset_crossed, draws_at_start : int
        Draws; those whose own ratio exceeds 1 somewhere in the grid; those among them above 1
        at the first β.
    cross_onset : float
        The onset of the cross estimate.
    """

    beta: np.ndarray
    edge: np.ndarray
    ratio: np.ndarray
    ratio_se: np.ndarray
    cross_ratio: np.ndarray
    row_sum_rel_sd: np.ndarray
    row_sum_rel_sd_se: np.ndarray
    m1: np.ndarray
    onset: float
    end: float
    onset_se: float
    onset_at_start: bool
    draws: int
    onset_crossed: int
    draws_at_start: int
    cross_onset: float
    cross_onset_at_start: bool

    def text(self, crossing=True, *, key="onset", none="(none in the grid)"):
        """A crossing as text, with its standard error where it has one.

        Parameters
        ----------
        crossing : bool
            Append ``" (k of n draws cross)"`` when some draw has no onset of its own (a table
            that shows the count in a column of its own passes False).
        key : {"onset", "end", "cross_onset"}
            Which crossing: the onset (with its standard error), the end or the cross onset
            (the value alone).
        none : str
            The text when there is no such crossing in the grid.

        Returns
        -------
        str
            ``"1.09 ± 0.08"`` when every draw crosses (digits as
            :func:`~attnspec.experiments.tables.format_with_se` gives them);
            ``"1.27 ± n/a (2 of 3 draws cross)"``
            when some draw never crosses; ``"1.09 (one draw)"`` for a single draw;
            ``"≤ 1.25 (above the edge at the grid's first β)"`` when the mean is already above
            the edge at the first β; ``none`` when it never crosses. For ``key="end"`` or
            ``"cross_onset"``, the value alone (``"2.26"``).
        """
        if not isinstance(crossing, bool):
            raise ParameterTypeError(f"crossing must be a bool; got crossing={crossing!r}")
        key = check_choice("key", key, ("onset", "end", "cross_onset"))
        if not isinstance(none, str):
            raise ParameterTypeError(f"none must be a str; got none={none!r}")
        value, n = getattr(self, key), self.draws
        if not math.isfinite(value):
            return none
        if key != "end" and getattr(self, f"{key}_at_start"):
            return f"≤ {value:.3g}" + _AT_START
        text = f"{value:.3g}"
        if key != "onset":
            return text
        if n == 1:
            return text + (" (one draw)" if crossing else "")
        text = (format_with_se(value, self.onset_se) if math.isfinite(self.onset_se)
                else text + " ± n/a")
        if crossing and self.onset_crossed < n:
            text += f" ({self.onset_crossed} of {n} draws cross)"
        elif crossing and self.draws_at_start:
            text += f" ({self.draws_at_start} of {n} draws above the edge at the first β)"
        return text


def onset_summary(runs):
    r"""Means over draws of :func:`largest_entries`, and the crossings of the edge.

    Parameters
    ----------
    runs : list of dict
        Results of :func:`largest_entries` for independent draws at one (ℓ, c), all with the
        same ``betas``.

    Returns
    -------
    OnsetSummary

    Raises
    ------
    ValueError
        If ``runs`` is empty or the runs have different ``betas``.
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
    return OnsetSummary(
        beta=betas, edge=edge, ratio=mean_ratio, ratio_se=se(ratio), cross_ratio=mean_cross,
        row_sum_rel_sd=rows.mean(axis=0), row_sum_rel_sd_se=se(rows),
        m1=np.mean([run["m1"] for run in runs], axis=0), onset=onset, end=end,
        onset_se=onset_se, onset_at_start=bool(mean_ratio[0] > 1), draws=n,
        onset_crossed=crossed, draws_at_start=at_start,
        cross_onset=entry_onset(betas, mean_cross, ones)[0],
        cross_onset_at_start=bool(mean_cross[0] > 1))


def first_outliers_below(betas, counts, onset):
    r"""How far below an onset a sweep already finds outliers (A4 §5: outliers start earlier).

    Walks down the grid from the largest β below ``onset`` while some draw has an outlier:
    the run of grid points with outliers that reaches up to the onset. An isolated count
    further down (a bulk value fluctuating across the edge) does not extend the run.

    Parameters
    ----------
    betas : array_like
        Increasing inverse temperatures of the sweep.
    counts : array_like
        Shape (len(betas), draws): outliers per draw at each β.
    onset : float
        The onset to compare with (nan: none, and the answer is none).

    Returns
    -------
    tuple
        ``(index, draws_with_outliers)``: the index into ``betas`` of the run's lowest β and
        how many draws have an outlier there; ``(None, 0)`` when the grid point just below
        the onset has no outlier in any draw (or there is no onset, or no grid point below).
    """
    try:
        betas = np.asarray(betas, dtype=np.float64)
        counts = np.asarray(counts, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterTypeError("betas and counts must be numeric arrays; got "
                                 f"betas={betas!r}, counts={counts!r}") from None
    if betas.ndim != 1 or counts.ndim != 2 or counts.shape[0] != betas.size \
            or not np.all(np.diff(betas) > 0):
        raise ValueError("betas must be increasing and 1-d, counts of shape (len(betas), "
                         f"draws); got shapes {betas.shape} and {counts.shape}")
    first = None
    for i in reversed(np.flatnonzero(betas < onset)):   # empty when onset is nan
        if not counts[i].any():
            break
        first = int(i)
    return (None, 0) if first is None else (first, int(np.count_nonzero(counts[first])))
