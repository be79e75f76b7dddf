"""Free cumulants ↔ moments, and the truncated power-series arithmetic behind them (A4 §3).

``free_cumulant_moments(cumulants, n)`` returns the moments ``m_0..m_n`` of a law from its
free cumulants, by the generating-function identity M(x) = 1 + Σ_j κ_j x^j M(x)^j;
``free_cumulants(moments, n)`` goes back.  ``series_product``, ``series_compose`` and
``series_reverse`` are the truncated power-series operations (coefficient arrays, lowest
order first); ``times_mp(m, ratio, n)`` the moments of μ ⊠ MP(ratio) by them (the S-transform
arithmetic of :mod:`attnspec.freeprob.chains`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["free_cumulant_moments", "free_cumulants", "times_mp", "series_product",
           "series_compose", "series_reverse"]


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
    :math:`m_0, …, m_{n-1}` (the sum over non-crossing partitions, A4 §3). Exact up to
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


def series_product(a, b, n):
    """Coefficients of a(t)·b(t) up to t^n (arrays of coefficients, lowest order first).

    >>> series_product([1.0, 1.0], [1.0, 1.0], 1).tolist()   # (1 + t)² = 1 + 2t + …
    [1.0, 2.0]
    """
    return np.convolve(a, b)[: n + 1]


def series_compose(f, g, n):
    """Coefficients of f(g(t)) up to t^n, for g with g[0] = 0 (Horner's scheme).

    >>> series_compose([0.0, 1.0, 1.0], [0.0, 2.0], 2).tolist()   # 2t + 4t²
    [0.0, 2.0, 4.0]
    """
    g = np.asarray(g, dtype=float)
    out = np.zeros(n + 1)
    for coef in np.asarray(f, dtype=float)[: n + 1][::-1]:
        out = series_product(out, g, n)
        out[0] += coef
    return out


def series_reverse(f, n):
    """Compositional inverse g of f (f[0] = 0, f[1] ≠ 0), f(g(t)) = t, up to t^n.

    Order by order: [t^k] f(g(t)) = f₁ g_k + (terms in g₁..g_{k−1}) = 0 for k ≥ 2.

    >>> series_reverse([0.0, 1.0, 1.0], 4).tolist()   # t + t² ↦ t − t² + 2t³ − 5t⁴
    [0.0, 1.0, -1.0, 2.0, -5.0]
    """
    f = np.asarray(f, dtype=float)
    g = np.zeros(n + 1)
    g[1] = 1.0 / f[1]
    for k in range(2, n + 1):
        g[k] -= series_compose(f, g, k)[k] / f[1]
    return g


def free_cumulants(moments, n):
    r"""Free cumulants κ_1..κ_n of a law from its moments m_1..m_n (inverse of
    :func:`free_cumulant_moments`).

    With ψ(t) = Σ_{k≥1} m_k t^k and u(t) = t M(t) = t(1 + ψ(t)), the R-series
    C(u) = Σ κ_k u^k satisfies C(t M(t)) = ψ(t), so C = ψ ∘ u^{-1} (A4 §3).

    >>> free_cumulants([1.0, 2.0, 5.0], 3).tolist()   # MP(1): Catalan moments, κ_k = 1
    [1.0, 1.0, 1.0]
    """
    m = np.asarray(moments, dtype=float)[:n]
    psi = np.concatenate([[0.0], m])
    t_of_m = np.concatenate([[0.0, 1.0], m[: n - 1]])
    return series_compose(psi, series_reverse(t_of_m, n), n)[1:]


def times_mp(m, ratio, n):
    """Moments m_1..m_n of μ ⊠ MP(ratio) (MP of mean 1) from those of μ (``m``, from m_1):
    the S-transform times 1/(1 + ratio·w), by series reversion."""
    chi = series_reverse(np.concatenate([[0.0], m[:n]]), n)
    geometric = (-ratio) ** np.arange(n + 1)                       # 1/(1 + ratio w)
    return series_reverse(series_product(chi, geometric, n), n)[1:]
