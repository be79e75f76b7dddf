r"""The closed-form law of the causal variance profile σ²·1{y ≤ x} (book chapter 8).

The squared singular values of an ℓ×ℓ lower-triangular Gaussian matrix with entries of
variance σ²/ℓ converge to this law: the solution of the vector Dyson equation
(:mod:`attnspec.freeprob.variance_profile`) for the triangle, derived in chapter 8, whose
moments σ^{2n} nⁿ/(n + 1)! are those of T*T for Dykema & Haagerup's quasinilpotent DT
operator T. Not a :class:`~attnspec.laws.base.SpectralLaw`: its density blows up like
1/(t log² t) at 0, an edge the base class's Chebyshev machinery does not resolve, but it needs
none, since its distribution function is explicit.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_float, check_int
from .base import LawSummaries

__all__ = ["TriangularProfileLaw"]


class TriangularProfileLaw(LawSummaries):
    r"""Limit law of X Xᵀ for the causal profile σ²·1{j ≤ i} (chapter 8; closed form).

    The squared singular values of an ℓ×ℓ lower-triangular Gaussian matrix with entries of
    variance σ²/ℓ; the noise-only part of the masked Gaussian-equivalent model; the law of
    T*T for Dykema & Haagerup's quasinilpotent DT operator T (scaled by σ²).

    Parameters
    ----------
    scale : float, default 1.0
        σ² > 0 (finite).

    Notes
    -----
    Parametrised by v ∈ (0, π): t(v) = σ² sin v e^{v cot v}/v decreases
    from e σ² to 0, ρ(t(v)) = sin v e^{−v cot v}/(πσ²) and F(t(v)) = (π − v + sin²v/v)/π.
    Mean σ²/2, moments σ^{2n} nⁿ/(n + 1)!. Near 0 the density blows up like
    1/(t log² t) (integrable, faster than the t^{−1/2} of Marchenko–Pastur). ``cdf`` and
    ``pdf`` invert t(v) by bisection in v (60 halvings: v to ~3e-18·π, i.e. to rounding).
    """

    def __init__(self, scale=1.0):
        self.scale = check_float("scale", scale, min=0, min_open=True)

    def __repr__(self):
        return f"TriangularProfileLaw(scale={self.scale!r})"

    def support(self):
        """``(0, e σ²)``."""
        return 0.0, math.e * self.scale

    def _t_of_v(self, v):
        with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
            return self.scale * np.sin(v) / v * np.exp(v / np.tan(v))

    def _v_of_t(self, t):
        """The v ∈ (0, π) with t(v) = t, for 0 < t < e σ² (t decreases in v)."""
        low, high = np.zeros_like(t), np.full_like(t, np.pi)
        for _ in range(60):
            mid = 0.5 * (low + high)
            above = self._t_of_v(mid) > t
            low = np.where(above, mid, low)
            high = np.where(above, high, mid)
        return 0.5 * (low + high)

    def _evaluate(self, x, inside_value, below, above):
        x0 = np.asarray(x, dtype=np.float64)
        x = x0.reshape(-1)
        out = np.where(x <= 0, below, above).astype(np.float64)
        inside = (x > 0) & (x < math.e * self.scale)
        if inside.any():
            out[inside] = inside_value(self._v_of_t(x[inside]))
        out[np.isnan(x)] = np.nan
        out = out.reshape(x0.shape)
        return float(out) if out.ndim == 0 else out

    def pdf(self, x):
        """Density (0 outside (0, e σ²))."""
        def density(v):
            with np.errstate(over="ignore"):
                return np.sin(v) * np.exp(-v / np.tan(v)) / (np.pi * self.scale)
        return self._evaluate(x, density, 0.0, 0.0)

    def cdf(self, x):
        """Distribution function, exact: F(t(v)) = (π − v + sin²v/v)/π."""
        return self._evaluate(x, lambda v: (np.pi - v + np.sin(v) ** 2 / v) / np.pi, 0.0, 1.0)

    def ppf(self, q):
        """Quantile: solve F(t(v)) = q for v by bisection, then t(v)."""
        q0 = np.asarray(q, dtype=np.float64)
        q = q0.reshape(-1)
        out = np.full(q.shape, np.nan)
        out[q == 0] = 0.0
        out[q == 1] = math.e * self.scale
        inside = (q > 0) & (q < 1)
        low, high = np.zeros(inside.sum()), np.full(inside.sum(), np.pi)
        target = q[inside]
        for _ in range(60):                     # F(t(v)) decreases in v
            mid = 0.5 * (low + high)
            big = (np.pi - mid + np.sin(mid) ** 2 / mid) / np.pi > target
            low = np.where(big, mid, low)
            high = np.where(big, high, mid)
        out[inside] = self._t_of_v(0.5 * (low + high))
        out = out.reshape(q0.shape)
        return float(out) if out.ndim == 0 else out

    def moment(self, k):
        """k-th moment σ^{2k} kᵏ/(k + 1)! (Dykema & Haagerup)."""
        k = check_int("k", k, min=0)
        return self.scale ** k * k ** k / math.factorial(k + 1) if k else 1.0
