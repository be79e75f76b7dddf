"""Classical limit laws as scipy-like objects: Marchenko–Pastur, the score product M, semicircle.

Every law is frozen at construction (parameters validated, edges computed) and offers
``pdf``, ``cdf``, ``ppf``, ``moment``, ``mean``, ``var``, ``support``, ``interval`` and
``rvs(size, rng)`` with scipy.stats' conventions (see :mod:`attnspec.laws.base`).
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import as_float_array, check_float, check_int, scalar_or_array
from ..freeprob.roots import cubic_roots, polish
from ..freeprob.transforms import (mp_edges, mp_moment, score_product_critical_values,
                                   score_product_edges)
from .base import C_MAX, C_MIN, LawSummaries, SpectralLaw
from .chebyshev_pieces import graded_pieces

__all__ = ["MarchenkoPastur", "ScoreProductLaw", "Semicircle", "score_product_pdf",
           "score_product_inner_scale"]


class MarchenkoPastur(SpectralLaw):
    r"""Marchenko–Pastur law: eigenvalues of X Xᵀ/n, X ∈ ℝ^{p×n} i.i.d. N(0, scale).

    Parameters
    ----------
    ratio : float, default 1.0
        λ = p/n > 0: rows over columns of the sampled X (the Gram matrix XXᵀ is p×p).
    scale : float, default 1.0
        Variance σ² ≥ 1e-300 of the entries; the mean of the law. The right edge
        σ²(1 + √λ)² must be a finite float (else ValueError); moments beyond the float
        range raise a ValueError naming ``k``.

    Notes
    -----
    Support [σ²(1 − √λ)², σ²(1 + √λ)²] with density

    .. math:: ρ(x) = \frac{\sqrt{(b - x)(x - a)}}{2π σ^2 λ x},

    plus an atom of mass 1 − 1/λ at 0 when λ > 1 (XXᵀ has rank n < p). At λ = 1 the density
    is ~ x^{-1/2} at 0. Moments are Narayana polynomials,
    :math:`E x^k = σ^{2k}\sum_{r=0}^{k-1} \frac{λ^r}{r+1}\binom{k}{r}\binom{k-1}{r}`.
    The i.i.d.-score surrogate of A4 §2 is ``MarchenkoPastur(1, e^{β²} − 1)``.

    Examples
    --------
    >>> law = MarchenkoPastur(ratio=0.5, scale=2.0)
    >>> law
    MarchenkoPastur(ratio=0.5, scale=2.0)
    >>> law.moment(2)  # σ⁴ (1 + λ)
    6.0
    >>> MarchenkoPastur(ratio=4.0).atom
    0.75
    """

    def __init__(self, ratio=1.0, scale=1.0):
        self.ratio = check_float("ratio", ratio, min=0, min_open=True)
        self.scale = check_float("scale", scale, min=0, min_open=True)
        self._atom = max(0.0, 1.0 - 1.0 / self.ratio)
        self._left_edge = "hard" if self.ratio == 1.0 else "soft"
        hi = mp_edges(self.ratio, self.scale)[1]
        if not (math.isfinite(hi) and self.scale >= 1e-300):
            raise ValueError(f"scale must be >= 1e-300 and keep the right edge "
                             f"scale·(1 + √ratio)² finite; got ratio={self.ratio!r}, "
                             f"scale={self.scale!r}")
        super().__init__()
        self._check_accuracy(culprit=f"ratio={self.ratio!r}")

    def _params(self):
        return {"ratio": self.ratio, "scale": self.scale}

    def _support(self):
        return mp_edges(self.ratio, self.scale)

    def _pdf(self, x):
        a, b = mp_edges(self.ratio)
        u = x / self.scale                     # in units of the scale: no overflow
        return np.sqrt((b - u) * (u - a)) / (2 * np.pi * self.ratio * u) / self.scale

    def _moment(self, k):
        return mp_moment(k, self.ratio, self.scale)

    def _reference_moments(self):
        return self.scale, [mp_moment(1, self.ratio), mp_moment(2, self.ratio)]


class ScoreProductLaw(SpectralLaw):
    r"""Law of the eigenvalues of M = WWᵀ/ℓ, W = QKᵀ/√d_qk (A4 §3).

    Parameters
    ----------
    c : float, default 1.0
        c = ℓ/d_qk, ``C_MIN`` ≤ c ≤ ``C_MAX`` (0.01 to 100; Q, K ∈ ℝ^{ℓ×d_qk} with i.i.d.
        N(0, 1) entries).

    Notes
    -----
    M has mean 1 and S-transform 1/((1 + z)(1 + cz)) (it is MP(1) ⊠ MP(c)); its Cauchy
    transform solves the cubic

    .. math:: c x^2 G^3 + (1 - c) x G^2 - x G + 1 = 0,

    and ρ(x) = −Im G(x + i0)/π. With x(z) = (1 + z)²(1 + cz)/z the edges are x(z±) at
    z± = (−1 ± √(1 + 8c))/(4c); the right edge e_M(c) = x(z₊) (27/4 at c = 1). Three
    regimes: c < 1, density ~ x^{-1/2} at 0; c = 1, Fuss–Catalan FC₂ with density
    ~ x^{-2/3} at 0; c > 1, an atom 1 − 1/c at 0 (rank d_qk < ℓ) and a gap up to x(z₋).
    Moments by Lagrange inversion:
    :math:`E x^k = \frac1k \sum_{j=0}^{k-1} \binom{2k}{k-1-j}\binom{k}{j} c^j`
    (1, 3, 12, 55 at c = 1).

    Examples
    --------
    >>> law = ScoreProductLaw(1.0)
    >>> [law.moment(k) for k in range(1, 5)]
    [1.0, 3.0, 12.0, 55.0]
    >>> law.support()
    (0.0, 6.75)
    """

    def __init__(self, c=1.0):
        self.c = check_float("c", c, min=C_MIN, max=C_MAX)
        self._atom = max(0.0, 1.0 - 1.0 / self.c)
        self._left_edge = "hard" if self.c < 1 else ("hard23" if self.c == 1 else "soft")
        super().__init__()
        self._check_accuracy(culprit=f"c={self.c!r}")

    def _params(self):
        return {"c": self.c}

    def _support(self):
        return score_product_edges(self.c)

    def _intervals(self):
        # near c = 1 the density keeps ~x^(-2/3) over decades above |x(z₋)| (c < 1) or the
        # left edge (c > 1): graded there (see ``graded_pieces``)
        lo, hi = self._support()
        features = -score_product_inner_scale(self.c) if self.c <= 1 else np.array([-lo])
        return graded_pieces([(lo, hi, self._left_edge)], features)

    def _pdf(self, x):
        return score_product_pdf(x, self.c)

    def _moment(self, k):
        return sum(math.comb(2 * k, k - 1 - j) * math.comb(k, j) * self.c ** j
                   for j in range(k)) / k

    def _reference_moments(self):
        return 1.0, [self._moment(1), self._moment(2)]


def score_cauchy_cubic(x, c):
    """The cubic for G_M (A4 §3), c x² G³ + (1 − c) x G² − x G + 1 = 0, in v = 1/(G√x):
    the coefficients ``(1, −√x, 1 − c, c√x)`` (highest first) of v³ − √x v² + (1 − c) v + c√x
    = 0, monic with O(1) coefficients for every x (in G they span x² to 1, and Cardano loses
    all digits as x → 0). ``x`` > 0, a float or an array."""
    r = np.sqrt(x)
    one = np.ones_like(r)
    return one, -r, (1 - c) * one, c * r


def score_product_pdf(x, c):
    """Density of :class:`ScoreProductLaw` (c) at points x strictly inside its support
    (vectorised, without building the law's CDF series): ρ(x) = −Im G(x + i0)/π, G the root
    of the cubic :func:`score_cauchy_cubic` of most negative Im G (= largest Im v)."""
    coeffs = score_cauchy_cubic(x, c)
    roots = cubic_roots(*coeffs)
    # the non-real pair is physical; choose by angle (Im v/|v|), not by Im G, which the
    # rounding of a tiny real root would blow up
    with np.errstate(divide="ignore", invalid="ignore"):
        pick = np.argmax(np.where(roots != 0, roots.imag / np.abs(roots), 0.0), axis=-1)
    v = np.take_along_axis(roots, pick[..., None], axis=-1)[..., 0]
    v = polish([np.asarray(a, dtype=complex) for a in coeffs], v, 3)
    return np.maximum(-(1.0 / v).imag / (np.pi * -coeffs[1]), 0.0)


def score_product_inner_scale(c):
    """The modulus of x(z₋) for ScoreProductLaw(c), c ≤ 1: its critical value on the
    negative axis (:func:`~attnspec.freeprob.transforms.score_product_critical_values`),
    where its density turns from ~x^{-2/3} (above) to ~x^{-1/2} (below); none at c = 1."""
    if c == 1:
        return np.array([])
    return np.array([abs(score_product_critical_values(c)[0])])


class Semicircle(LawSummaries):
    r"""Wigner semicircle law of variance ``var`` on [−2σ, 2σ] (a law on ℝ).

    Not a :class:`SpectralLaw` (it lives on ℝ, with closed forms); ``mean``, ``var``, ``std``,
    ``median``, ``interval`` and ``rvs`` come from :class:`~attnspec.laws.base.LawSummaries`.

    Parameters
    ----------
    var : float, default 1.0
        Variance σ² > 0.

    Notes
    -----
    ρ(x) = √(4σ² − x²)/(2πσ²); with x = −2σ cos θ the CDF is (θ − sin θ cos θ)/π.
    Even moments σ^{2k} C_k (Catalan numbers), odd moments 0. It is the law of the
    symmetrised singular values of Z/√ℓ and the noise part of ν_∞ (A4 §3).

    Examples
    --------
    >>> law = Semicircle(var=2.0)
    >>> law
    Semicircle(var=2.0)
    >>> law.moment(4), law.cdf(0.0), law.ppf(1.0) == law.support()[1]
    (8.0, 0.5, True)
    """

    def __init__(self, var=1.0):
        self._var = check_float("var", var, min=0, min_open=True)
        self.radius = 2.0 * math.sqrt(self._var)

    def __repr__(self):
        return f"Semicircle(var={self._var!r})"

    def support(self):
        """``(−2σ, 2σ)``."""
        return -self.radius, self.radius

    def pdf(self, x):
        """Density; 0 outside the support."""
        x = as_float_array(x)
        inside = np.abs(x) < self.radius
        root = np.sqrt(np.where(inside, self.radius ** 2 - x * x, 0.0))
        out = np.where(inside, root / (2 * np.pi * self._var), 0.0)
        return scalar_or_array(np.where(np.isnan(x), np.nan, out), x)

    def cdf(self, x):
        """Distribution function (closed form): exactly 0 below, exactly 1 at/above 2σ."""
        x = as_float_array(x)
        theta = np.arccos(np.clip(-x / self.radius, -1.0, 1.0))
        out = (theta - np.sin(theta) * np.cos(theta)) / np.pi
        out = np.where(x >= self.radius, 1.0, np.where(x <= -self.radius, 0.0, out))
        return scalar_or_array(np.where(np.isnan(x), np.nan, out), x)

    def ppf(self, q):
        """Quantile: solves θ − sin θ cos θ = πq (bisection then Newton); NaN outside [0, 1]."""
        q = as_float_array(q, "q")
        target = np.pi * np.clip(np.nan_to_num(q), 0.0, 1.0)
        lo, hi = np.zeros(q.shape), np.full(q.shape, np.pi)
        for _ in range(52):
            mid = 0.5 * (lo + hi)
            below = mid - 0.5 * np.sin(2 * mid) < target
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        theta = 0.5 * (lo + hi)
        for _ in range(3):
            d = 2 * np.sin(theta) ** 2
            step = np.where(d > 0, (theta - 0.5 * np.sin(2 * theta) - target) / np.where(
                d > 0, d, 1.0), 0.0)
            theta = np.clip(theta - step, lo, hi)
        out = -self.radius * np.cos(theta)
        out = np.where(q == 0, -self.radius, np.where(q == 1, self.radius, out))
        out = np.where((q >= 0) & (q <= 1), out, np.nan)
        return scalar_or_array(out, q)

    def moment(self, k):
        """k-th raw moment: σ^k C_{k/2} for even k, 0 for odd k."""
        k = check_int("k", k, min=0)
        if k % 2:
            return 0.0
        j = k // 2
        return float(self._var ** j * math.comb(2 * j, j) / (j + 1))
