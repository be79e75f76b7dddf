"""Cauchy transforms, R-transforms and subordination, solved numerically (A4 §3).

Vectorised Newton iterations continued down a ladder of η values (z = x + iη, η → 0⁺) turn an
R-transform or a subordination equation into a density on a grid; :func:`tabulated_cdf`
integrates such a density. Chapter 2 checks free additive convolution with them.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_float
from .ladder import continue_to_axis

__all__ = ["cauchy_transform", "density_from_r_transform", "semicircle_subordination_density",
           "tabulated_cdf"]



def cauchy_transform(sample, z):
    r"""Empirical Cauchy transform G(z) = (1/n) Σᵢ 1/(z − λᵢ) of a sample of eigenvalues.

    Parameters
    ----------
    sample : array_like
        Real values λᵢ (e.g. eigenvalues), n ≥ 1.
    z : complex or array_like
        Points off the real axis (typically Im z > 0).

    Returns
    -------
    complex or numpy.ndarray
        G(z), same shape as ``z``; Im G(z) < 0 when Im z > 0.
    """
    lam = np.asarray(sample, dtype=np.float64).ravel()
    if lam.size == 0:
        raise ValueError("sample must contain at least one value; got an empty array")
    z0 = np.asarray(z, dtype=np.complex128)
    out = np.mean(1.0 / (z0.reshape(-1, 1) - lam[None, :]), axis=1).reshape(z0.shape)
    return complex(out) if z0.ndim == 0 else out


def density_from_r_transform(R, x, *, scale=None, dR=None):
    r"""Density of the law with R-transform R at real points x (inverse-Cauchy-transform solve).

    Parameters
    ----------
    R : callable
        The R-transform, vectorised over complex arrays; the law's inverse Cauchy transform is
        K(g) = 1/g + R(g).
    x : array_like
        Real points.
    scale : float, optional
        Typical size of the law (default: the largest :math:`|x|`); sets the ladder of η.
    dR : callable, optional
        Derivative R′. Default: central complex difference with step :math:`10^{-6}|g|`.

    Returns
    -------
    numpy.ndarray
        ρ(x) = −Im G(x + i0)/π, with G solving K(G(z)) = z on the physical sheet
        (G(z) ~ 1/z at infinity, Im G < 0 for Im z > 0).

    Notes
    -----
    The free additive convolution adds R-transforms, R_{μ⊞ν} = R_μ + R_ν, so this one
    function gives the density of any free sum whose R-transforms are known in closed form
    (semicircle: R(g) = σ²g; Marchenko–Pastur with ratio λ and scale 1: R(g) = 1/(1 − λg)).
    Recipe (A4 §3): vectorised Newton on K(g) = x + iη, continued down a geometric
    ladder of η from 4·scale to 1e-10·scale starting at g = 1/(x + iη₀), staying in
    Im g ≤ 0. Continuation in η at fixed x (never along the real axis) keeps the physical
    sheet.

    Examples
    --------
    >>> rho = density_from_r_transform(lambda g: g, np.array([0.0, 1.0]))  # semicircle, σ² = 1
    >>> [round(float(v), 8) for v in rho]  # √(4 − x²)/(2π)
    [0.31830989, 0.27566445]
    """
    x = np.asarray(x, dtype=np.float64)
    flat = x.ravel()
    scale = float(np.max(np.abs(flat))) if scale is None else check_float(
        "scale", scale, min=0, min_open=True)
    scale = max(scale, 1e-300)

    def derivative(g):
        if dR is not None:
            return dR(g)
        h = 1e-6 * np.abs(g)
        return (R(g + h) - R(g - h)) / (2 * h)

    def step(g, z):
        K = 1.0 / g + R(g) - z
        dK = -1.0 / g**2 + derivative(g)
        return K / dK

    g = continue_to_axis(flat.astype(np.complex128), step, lambda z: 1.0 / z, scale)
    return (np.maximum(-g.imag, 0.0) / np.pi).reshape(x.shape)


def semicircle_subordination_density(atoms, var, x, weights=None, *, scale=None):
    r"""Density of μ ⊞ semicircle(var) for a discrete law μ, by the subordination equation.

    Parameters
    ----------
    atoms : array_like
        Positions aᵢ of the atoms of μ (for instance an empirical spectrum).
    var : float
        Variance σ² > 0 of the semicircle law.
    x : array_like
        Real points.
    weights : array_like, optional
        Masses of the atoms (default: equal, 1/len(atoms)); normalised to sum to 1.
    scale : float, optional
        Typical size of the law (default: :math:`\max|x|`).

    Returns
    -------
    numpy.ndarray
        The density of μ ⊞ SC(σ²) at x.

    Notes
    -----
    Biane (1997): the Cauchy transform G of μ ⊞ SC(σ²) solves
    :math:`G(z) = G_\mu(z - \sigma^2 G(z))`, with :math:`G_\mu(\omega) = \sum_i w_i/(\omega - a_i)`;
    the map z ↦ ω(z) = z − σ²G(z) is the subordination function. The equation is solved by
    Newton's method on the same η ladder as :func:`density_from_r_transform`. This is the
    equation of the single-head theorem (A4 §3) with μ the symmetrised law of βW/√ℓ.
    """
    a = np.asarray(atoms, dtype=np.float64).ravel()
    if a.size == 0 or not np.isfinite(a).all():
        raise ValueError(f"atoms must be a non-empty array of finite numbers; got {a.size} atoms")
    w = np.full(a.size, 1.0 / a.size) if weights is None else np.asarray(weights, float).ravel()
    if w.shape != a.shape or (w < 0).any() or w.sum() <= 0:
        raise ValueError("weights must be non-negative, not all zero, one per atom; got "
                         f"{w.size} weights for {a.size} atoms")
    w = w / w.sum()
    a, inverse = np.unique(a, return_inverse=True)   # merge repeated atoms (cheaper solves)
    w = np.bincount(inverse.ravel(), weights=w, minlength=a.size)
    var = check_float("var", var, min=0, min_open=True)
    x = np.asarray(x, dtype=np.float64)
    flat = x.ravel()
    if scale is None:
        scale = max(float(np.max(np.abs(flat))), float(np.max(np.abs(a))), math.sqrt(var))

    def step(g, z):
        inv = 1.0 / ((z - var * g)[:, None] - a[None, :])
        F = g - inv @ w
        dF = 1.0 - var * ((inv * inv) @ w)
        return F / dF

    g = continue_to_axis(flat.astype(np.complex128), step, lambda z: 1.0 / z, scale)
    return (np.maximum(-g.imag, 0.0) / np.pi).reshape(x.shape)


def tabulated_cdf(x, density):
    r"""A vectorised CDF from a density tabulated on an increasing grid (trapezoid rule).

    Parameters
    ----------
    x : array_like
        Increasing grid covering the support, at least 2 points.
    density : array_like
        Density values at ``x``.

    Returns
    -------
    cdf : callable
        ``cdf(y)``: the integral of the interpolated density from ``x[0]`` to y, 0 below the
        grid and its total (the computed mass) above it; pass it to
        :func:`attnspec.ks_distance`.
    mass : float
        The total integral, a check of the density (should be ≈ 1).
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    density = np.asarray(density, dtype=np.float64).ravel()
    if x.size < 2 or x.shape != density.shape or np.any(np.diff(x) <= 0):
        raise ValueError("x must be an increasing grid of at least 2 points and density must "
                         f"have the same length; got {x.size} and {density.size} points")
    table = np.concatenate([[0.0], np.cumsum(0.5 * (density[1:] + density[:-1]) * np.diff(x))])
    return (lambda y: np.interp(y, x, table)), float(table[-1])
