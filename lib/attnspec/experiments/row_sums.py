r"""Fluctuations of the softmax row sums, measured term by term (appendix A4 §5).

The row sum rᵢ = Σₖ e^{βSᵢₖ} of a query qᵢ is, given qᵢ, a sum of ℓ i.i.d. lognormals with
σ² = ‖qᵢ‖²/d_qk, so the conditional mean of rᵢ given qᵢ is ℓ exp(β²‖qᵢ‖²/(2d_qk)). Relative
to its mean ℓe^{β²/2} it fluctuates by two terms of the same order when ℓ ≍ d_qk:

- the keys: √((e^{β²} − 1)/ℓ) (variance of e^{βg} over ℓ terms);
- the query norm: β²/√(2d_qk) (‖qᵢ‖²/d_qk has standard deviation √(2/d_qk)).

At β = 1, ℓ = d_qk = 1000 they are 0.041 and 0.022. The theory is
:func:`attnspec.experiments.thresholds.row_sum_fluctuation`; this module measures both terms
separately on simulated queries and keys.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attnspec._validation import check_float, check_int, check_memory, check_rng
from attnspec.sampling.softmax import gaussian_factors, scores

__all__ = ["RowSumTerms", "measure_row_sum_fluctuation"]

#: β range of the simulation: beyond it the row sums no longer obey the central limit theorem
#: at any ℓ a computer can hold (MATH.md §5: β < √(log ℓ)).
MEASURE_BETA_MAX = 3.0


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
        :func:`attnspec.experiments.thresholds.row_sum_fluctuation`;
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
