"""Free cumulants ↔ moments: the moment–cumulant recursion (MATH.md §3).

``free_cumulant_moments(cumulants, n)`` returns the moments ``m_0..m_n`` of a law from its
free cumulants, by the generating-function identity M(x) = 1 + Σ_j κ_j x^j M(x)^j.
"""

from __future__ import annotations

import numpy as np

__all__ = ["free_cumulant_moments"]


def free_cumulant_moments(cumulants, n):
    r"""Moments ``m_0..m_n`` of a law from its free cumulants (moment–cumulant recursion).

    Parameters
    ----------
    cumulants : callable or sequence
        ``cumulants(j)`` returns the free cumulant κ_j (j ≥ 1); or the sequence
        ``[κ_1, κ_2, …, κ_n]``.
    n : int
        Highest order.

    Returns
    -------
    list of float
        ``[m_0, ..., m_n]`` with ``m_0 = 1``.

    Notes
    -----
    The generating functions satisfy :math:`M(x) = 1 + \sum_j \kappa_j x^j M(x)^j`, so
    :math:`m_n = \sum_{j=1}^{n} \kappa_j [x^{n-j}] M(x)^j`, which only needs
    :math:`m_0, …, m_{n-1}` (the sum over non-crossing partitions, MATH.md §3). Exact up to
    rounding; O(n³) operations.

    Examples
    --------
    >>> free_cumulant_moments(lambda j: 1.0 if j == 2 else 0.0, 6)  # semicircle: Catalan
    [1.0, 0.0, 1.0, 0.0, 2.0, 0.0, 5.0]
    >>> free_cumulant_moments([1.0, 1.0, 1.0], 3)  # MP(1): κ_j = 1, Catalan moments
    [1.0, 1.0, 2.0, 5.0]
    """
    if callable(cumulants):
        kappa = [0.0] + [float(cumulants(j)) for j in range(1, n + 1)]
    else:
        kappa = [0.0] + [float(k) for k in list(cumulants)[:n]]
        if len(kappa) < n + 1:
            raise ValueError(f"cumulants must hold at least n={n} values; got {len(kappa) - 1}")
    m = [1.0]
    for order in range(1, n + 1):
        series = np.array(m)                     # M(x) truncated at degree order − 1
        power = np.array([1.0])
        total = 0.0
        for j in range(1, order + 1):
            power = np.convolve(power, series)[:order]
            if kappa[j] != 0.0:
                total += kappa[j] * power[order - j]
        m.append(float(total))
    return m
