r"""Fluctuations of the softmax row sums, measured term by term (appendix A4 §5).

The row sum rᵢ = Σₖ e^{βSᵢₖ} of a query qᵢ is, given qᵢ, a sum of ℓ i.i.d. lognormals with
σ² = ‖qᵢ‖²/d_qk, so the conditional mean of rᵢ given qᵢ is ℓ exp(β²‖qᵢ‖²/(2d_qk)). Relative
to its mean ℓe^{β²/2} it fluctuates by two terms of the same order when ℓ ≍ d_qk:

- the keys: √((e^{β²} − 1)/ℓ) (variance of e^{βg} over ℓ terms);
- the query norm: β²/√(2d_qk) (‖qᵢ‖²/d_qk has standard deviation √(2/d_qk)).

At β = 1, ℓ = d_qk = 1000 they are 0.041 and 0.022. :func:`row_sum_fluctuation` gives both
and the exact ratio (the theory); :func:`measure_row_sum_fluctuation` measures both terms
separately on simulated queries and keys.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from .._validation import (ParameterError, check_beta, check_float, check_int, check_memory,
                           check_rng)
from ..sampling.softmax import gaussian_factors, project_rows, scores
from ..spectra import column_ipr

__all__ = ["row_sum_fluctuation", "RowSumFluctuation", "log_row_sum_mean", "RowSumTerms",
           "measure_row_sum_fluctuation", "row_factors", "top_vector_moves", "mean_shortfall",
           "mean_ratio_one_weight"]

#: Upper end of the β range of the simulation. Beyond it the row sums no longer obey the central
#: limit theorem at any ℓ a computer can hold (A4 §5: their central-limit scale √(log ℓ/2) is 3.2 at ℓ = 10⁹).
MEASURE_BETA_MAX = 3.0


@dataclass(frozen=True)
class RowSumFluctuation:
    r"""Relative standard deviation of a softmax row sum rᵢ = Σₖ e^{βSᵢₖ} (appendix A4 §5; this book's derivation).

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
        :func:`attnspec.experiments.outlier_onset.largest_entries` are divided by.
    """

    keys: float
    query: float
    total: float
    exact: float
    within_draw: float
    log_mean: float


def row_sum_fluctuation(beta, ell, d_qk):
    r"""Relative fluctuation of the softmax row sums, two-term form and exact (A4 §5).

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
                             log_row_sum_mean(beta, ell, d_qk))


def log_row_sum_mean(beta, ell, d_qk):
    """log E rᵢ = log ℓ + a₁, a₁ = −(d_qk/2) log(1 − β²/d_qk) (A4 §5; needs β² < d_qk)."""
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


@dataclass(frozen=True)
class RowSumTerms:
    """Relative fluctuation of the row sums rᵢ/(ℓe^{β²/2}), split into its two terms.

    Attributes
    ----------
    keys : float
        The part from the ℓ terms given the query, √((e^{β²} − 1)/ℓ) to leading order.
    query : float
        The part from the query norm, β²/√(2d_qk) to leading order.
    total : float
        √(keys² + query²).
    """

    keys: float
    query: float
    total: float


def measure_row_sum_fluctuation(ell, d_qk, beta, draws=1, rng=None):
    r"""Simulated relative standard deviation of the row sums, split into the two terms.

    For each draw, Q, K ∈ ℝ^{ℓ×d_qk} are i.i.d. N(0, 1) and the relative row sums
    rᵢ/(ℓe^{β²/2}) are computed twice: with the raw queries (``total``) and with each query
    rescaled to norm √d_qk (``keys``: the query-norm term removed). ``query`` is
    √(total² − keys²) (0 if negative). Standard deviations are over all ℓ·draws rows.

    Returns
    -------
    RowSumTerms
        Measured ``keys``, ``query``, ``total``, comparable with the leading-order terms of
        :func:`row_sum_fluctuation`;
        their relative sampling error is about 1/√(2ℓ·draws).
    """
    ell = check_int("ell", ell, min=2)
    d_qk = check_int("d_qk", d_qk, min=1)
    beta = check_float("beta", beta, min=0, max=MEASURE_BETA_MAX, min_open=True)
    draws = check_int("draws", draws, min=1)
    check_memory("ell", ell, 3 * ell * ell * 8)   # S, e^{βS} and the rescaled copy
    check_memory("d_qk", d_qk, 3 * ell * d_qk * 8)
    rng = check_rng(rng)
    total, keys = [], []
    scale = ell * math.exp(beta ** 2 / 2)
    for _ in range(draws):
        Q, K = gaussian_factors(ell, d_qk, rng)
        S = scores(Q, K)
        total.append(np.exp(beta * S).sum(axis=1) / scale)
        norms = np.sqrt((Q * Q).sum(axis=1) / d_qk)
        keys.append(np.exp(beta * S / norms[:, None]).sum(axis=1) / scale)
    total_sd = float(np.std(np.concatenate(total)))
    keys_sd = float(np.std(np.concatenate(keys)))
    query_sd = math.sqrt(max(total_sd ** 2 - keys_sd ** 2, 0.0))
    return RowSumTerms(keys_sd, query_sd, total_sd)


def row_factors(ell, d_qk, beta, rng=None):
    r"""The row factors Dᵢᵢ = ℓe^{β²/2}/rᵢ of one draw, with √ℓ A^⊥ = D Y (chapter 4, A4 §4).

    Q, K are drawn first, as in :func:`attnspec.stepwise_chain`, so the same ``rng`` state
    gives the row sums of that chain's draw (in :func:`attnspec.sweep` with the same seed,
    point by point). Each factor deviates from 1 by about the total of
    :func:`row_sum_fluctuation`.

    Returns
    -------
    numpy.ndarray
        The ℓ factors ℓe^{β²/2}/rᵢ, rᵢ = Σₖ e^{βSᵢₖ}.
    """
    ell = check_int("ell", ell, min=2)
    d_qk = check_int("d_qk", d_qk, min=1)
    beta = check_beta(beta)
    check_memory("ell", ell, 2 * ell * ell * 8)   # S and e^{βS}
    check_memory("d_qk", d_qk, 2 * ell * d_qk * 8)
    rng = check_rng(rng)
    Q, K = gaussian_factors(ell, d_qk, rng)
    sums = np.exp(beta * scores(Q, K)).sum(axis=1)
    return ell * math.exp(beta ** 2 / 2) / sums


def top_vector_moves(ell, d_qk, beta, rng=None, *, top=3):
    r"""Y's top left singular vectors, how localised they are, and how their singular values
    move under √ℓ A^⊥ = D Y (chapter 4, A4 §4–5).

    Q, K are drawn first, as in :func:`attnspec.stepwise_chain` and :func:`row_factors`, so
    the same ``rng`` state describes that chain's draw. For the top ``top`` left singular
    vectors u_k of Y (singular values σ_k) it returns their inverse participation ratio
    Σᵢ u_{k,i}⁴ (≈ 3/ℓ delocalised, 1 on one row), the first-order move
    σ_k Σᵢ (Dᵢᵢ − 1) u_{k,i}² (a heuristic of chapter 4) and the measured move
    σ_k(DY) − σ_k(Y), rank by rank.

    Returns
    -------
    dict
        ``"ipr"``, ``"predicted"``, ``"moved"``: arrays of length ``top``, largest σ first.
    """
    ell = check_int("ell", ell, min=2)
    d_qk = check_int("d_qk", d_qk, min=1)
    beta = check_beta(beta)
    top = check_int("top", top, min=1, max=ell)
    check_memory("ell", ell, 3 * ell * ell * 8)   # e^{βS}, Y and a Gram matrix
    check_memory("d_qk", d_qk, 2 * ell * d_qk * 8)
    rng = check_rng(rng)
    Q, K = gaussian_factors(ell, d_qk, rng)
    E = np.exp(beta * scores(Q, K) - beta ** 2 / 2)
    D = ell / E.sum(axis=1)                        # ℓe^{β²/2}/rᵢ
    Y = project_rows(E) / math.sqrt(ell)
    del E
    window = [ell - top, ell - 1]
    values, U = scipy.linalg.eigh(Y @ Y.T, subset_by_index=window)
    sigma, U = np.sqrt(np.maximum(values[::-1], 0.0)), U[:, ::-1]
    Y *= D[:, None]                                # √ℓ A^⊥
    moved = np.sqrt(np.maximum(scipy.linalg.eigh(
        Y @ Y.T, eigvals_only=True, subset_by_index=window)[::-1], 0.0)) - sigma
    predicted = sigma * ((D - 1)[:, None] * U ** 2).sum(axis=0)
    return {"ipr": column_ipr(U), "predicted": predicted, "moved": moved}


def mean_shortfall(beta, ell, d_qk):
    r"""Leading-order finite-ℓ shortfall s − E m₁ of √ℓ A^⊥ caused by the random row sums.

    m₁ + 1 = Σᵢ Vᵢ/rᵢ² with Vᵢ = Σⱼ e^{2βSᵢⱼ} and rᵢ = Σⱼ e^{βSᵢⱼ}. Expanding Vᵢ/rᵢ² to second
    order around the means (given qᵢ the terms are i.i.d. lognormals), and averaging
    e^{β²‖qᵢ‖²/d_qk} over the query norm, gives (this book's derivation, leading order in 1/ℓ
    and 1/d_qk, from the same two sources as the row-sum fluctuation of A4 §5)

    .. math:: s - \mathbb{E}\,m_1 \approx (s + 1)\Bigl(\frac{s(2s+1)}{\ell}
              - \frac{\beta^4}{d_{qk}}\Bigr), \qquad s = e^{\beta^2} - 1 .

    The keys term is 3 Var r/(E r)² − 2 Cov(V, r)/(E V E r); the query term is the convexity
    of e^{β²‖q‖²/d_qk}. A small-β, large-ℓ approximation: its relative size s(2s+1)/ℓ must be
    small (at ℓ = 1000 it is 0.8 % at β = 1 and 15 % at β = 1.5, where higher orders matter).
    """
    beta = check_beta(beta)
    ell = check_int("ell", ell, min=1)
    d_qk = check_int("d_qk", d_qk, min=1)
    s = math.expm1(beta * beta)
    return (s + 1) * (s * (2 * s + 1) / ell - beta ** 4 / d_qk)


def mean_ratio_one_weight(beta, ell):
    r"""E m₁/s of √ℓ A^⊥ when one weight may rival its row sum (heuristic; chapter 5).

    m₁ + 1 = (1/ℓ) Σᵢ Xᵢ with Xᵢ = ℓ Σⱼ Aᵢⱼ², rows i.i.d. given the keys, so m₁ averages over
    about ℓ² scores, not over one row. Holding the rest of row i at its mean (ℓ − 1)e^{β²/2},

    .. math:: \begin{gathered}
              \mathbb{E}\,m_1 + 1 \approx \ell^2\,\mathbb{E}\Bigl[\frac{e^{2\beta g}}
              {\bigl(e^{\beta g} + \bar r\bigr)^2}\Bigr],\\
              \bar r = (\ell - 1)e^{\beta^2/2}, \qquad g \sim N(0, 1),
              \end{gathered}

    by the trapezoid rule in log space. The mean falls short of s once the scores that carry
    E e^{2βg} (near g = 2β) make one weight comparable to the row sum: as ℓ → ∞, for β of
    order √(2 log ℓ/3) (this book's heuristic, not the papers'; chapter 5 compares it with the
    measured m₁/s). It ignores the fluctuation of the rest of the row, an error of order 1/ℓ:
    against Monte Carlo of softmax attention it lies 0.03-0.09 low at ℓ = 100 and up to
    about 0.04 low at ℓ = 1000 (β = 0.1 to 2; chapter 5 prints the comparison). Domain: ℓ ≥ 100 (below, the heuristic can even turn
    negative) and 0.1 ≤ β ≤ √(2 log ℓ), where row sums concentrate; outside, a ParameterError.
    """
    ell = check_int("ell", ell, min=100)
    beta = check_float("beta", beta, min=0.1, max=math.sqrt(2.0 * math.log(ell)))
    grid = np.linspace(-15.0, 2.0 * beta + 15.0, 40001)
    log_rest = math.log(ell - 1) + 0.5 * beta * beta
    log_term = (2.0 * beta * grid - 2.0 * np.logaddexp(beta * grid, log_rest)
                - 0.5 * grid * grid - 0.5 * math.log(2.0 * math.pi))
    expectation = np.trapezoid(np.exp(log_term), grid)
    return (ell * ell * expectation - 1.0) / math.expm1(beta * beta)
