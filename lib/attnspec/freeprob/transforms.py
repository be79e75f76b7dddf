"""Closed forms of the laws of A4 §2–§3: K(g) and the free cumulants of ν_∞, the
Marchenko–Pastur edges and moments, the edges of the score-product law M.

Each formula lives here once and is called by the laws (:mod:`attnspec.laws`) and the
multi-head chains (:mod:`attnspec.freeprob.chains`).
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_float
from ..hermite import total_variance

__all__ = ["nu_inf_inverse_cauchy", "nu_inf_free_cumulants", "mp_edges", "mp_moment",
           "score_product_critical_values", "score_product_edges"]


def nu_inf_inverse_cauchy(g, alpha2, beta2, c, derivative=False):
    r"""K(g) of the symmetrised ν_∞ (A4 §3), and optionally K′(g).

    .. math:: K(g) &= \frac1g + α^2 g + \frac{β^2 g}{1 - cβ^2 g^2} \\
                   &= \frac{1 + β^2(1 - c) g^2}{g(1 - cβ^2 g^2)} + α^2 g,

    evaluated in the second form, which has no cancellation of 1/g against
    β²g/(1 − cβ²g²) at large ``abs(g)`` when c ≈ 1. ``alpha2``, ``beta2`` may be the scaled
    a = α²/s, b = β²/s of :class:`attnspec.AttentionLaw` (then g is √s times G).

    Parameters
    ----------
    g : complex or numpy.ndarray
    alpha2, beta2, c : float
        α² (noise variance), β², and the aspect ratio c.
    derivative : bool, default False
        Also return K′(g).

    Returns
    -------
    K or (K, K′)

    Examples
    --------
    >>> round(nu_inf_inverse_cauchy(0.5, 0.25, 1.0, 1.0), 12)   # 2 + 0.125 + 0.5/0.75
    2.791666666667
    """
    g2 = g * g
    cb2, b2c = c * beta2, beta2 * (1.0 - c)
    den = g * (1.0 - cb2 * g2)
    ratio = (1.0 + b2c * g2) / den                    # K(g) − α²g = num/den
    value = ratio + alpha2 * g
    if not derivative:
        return value
    # (num/den)′ = (num′ − (num/den)·den′)/den, num′ = 2β²(1 − c)g, den′ = 1 − 3cβ²g²
    return value, (2 * b2c * g - ratio * (1.0 - 3 * cb2 * g2)) / den + alpha2


def nu_inf_free_cumulants(n, beta, c, *, unit=1.0):
    r"""Free cumulants κ_1..κ_n of the symmetrised ν_∞ (A4 §3), in units of ``unit``.

    κ₂ = s = e^{β²} − 1, κ_{2j} = c^{j−1} β^{2j} (j ≥ 2), odd cumulants 0; returned as
    κ_{2j}/unit^j (``unit = s`` gives the scaled law of κ₂ = 1, without overflow).

    Examples
    --------
    >>> float(nu_inf_free_cumulants(6, 1.0, 2.0, unit=1.0)[3])   # κ₄ = cβ⁴
    2.0
    """
    beta2 = beta * beta
    kappa = np.zeros(n)
    for k in range(2, n + 1, 2):
        j = k // 2
        kappa[k - 1] = (total_variance(beta) / unit if j == 1       # (cβ²/unit)^j / c: no
                        else (c * (beta2 / unit)) ** j / c)           # c^{j−1} overflowing
    return kappa


def mp_edges(ratio, scale=1.0):
    """Edges ``(σ²(1 − √λ)², σ²(1 + √λ)²)`` of the Marchenko–Pastur law MP(λ, σ²)
    (A4 §2: 4s for the prior model's MP(1, s)).

    >>> mp_edges(1.0, 2.0)
    (0.0, 8.0)
    """
    r = math.sqrt(ratio)
    return scale * (1 - r) ** 2, scale * (1 + r) ** 2


def mp_moment(k, ratio, scale=1.0):
    r"""k-th moment of MP(λ, σ²): :math:`σ^{2k}\sum_{r<k} \frac{λ^r}{r+1}\binom{k}{r}
    \binom{k-1}{r}` (Narayana polynomials; A4 §2: MP(1, s) has m₂ = 2s²); ``inf``
    beyond the float range.

    >>> [mp_moment(k, 1.0) for k in range(5)]
    [1.0, 1.0, 2.0, 5.0, 14.0]
    """
    if k == 0:
        return 1.0
    total = sum(ratio ** r / (r + 1) * math.comb(k, r) * math.comb(k - 1, r) for r in range(k))
    with np.errstate(over="ignore"):
        return float(np.float64(scale) ** k * total)


def score_product_critical_values(c):
    r"""The two critical values (x(z₋), x(z₊)) of the law of M = WWᵀ/ℓ (A4 §3), x(z) =
    (1 + z)²(1 + cz)/z at the zeros z± = (−1 ± √(1 + 8c))/(4c) of x′: x(z₊) > 0 is the right
    edge e_M(c); x(z₋) is the left edge for c > 1, 0 at c = 1 and negative for c < 1 (where
    the density turns from ~x^(−2/3) above the modulus of x(z₋) to ~x^(−1/2) below).

    Written without cancellation, with r = √(1 + 8c):
    z₊ = 2/(1 + r), 1 + z₋ = (c − 1)(1 + r)/(c(3 + r)) and 1 + cz₋ = 2(1 − c)/(3 + r),
    so both are accurate to a few ulps for every finite c > 0, c → 1 and c → 0 included
    (tested against 650-digit arithmetic from c = 1e-300 to 1e300); other c raise
    ``ParameterError`` naming c.

    >>> score_product_critical_values(1.0)
    (0.0, 6.75)
    """
    c = check_float("c", c, min=0.0, min_open=True)
    r = math.sqrt(1 + 8 * c)
    z_minus, z_plus = -(1 + r) / (4 * c), 2 / (1 + r)
    one_z, one_cz = (c - 1) / c * ((1 + r) / (3 + r)), 2 * (1 - c) / (3 + r)
    # (1 + z₋)/z₋ is O(1) for every c: no overflow at c → 0 or c → ∞
    lower = one_z * one_cz * (one_z / z_minus) if c != 1 else 0.0    # not −0.0 at c = 1
    return lower, (1 + z_plus) ** 2 * (1 + c * z_plus) / z_plus


def score_product_edges(c):
    r"""Edges of the law of M = WWᵀ/ℓ (A4 §3): ``(x(z₋) if c > 1 else 0, x(z₊))``, the
    critical values of :func:`score_product_critical_values`; the right edge is e_M(c).

    >>> score_product_edges(1.0)
    (0.0, 6.75)
    """
    lower, upper = score_product_critical_values(c)
    return (lower if c > 1 else 0.0), upper
