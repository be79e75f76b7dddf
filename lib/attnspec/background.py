"""Background tools of chapter 2: classical ensembles, kernel matrices and free-probability checks.

Small, self-contained samplers and solvers that let the book check, by simulation, the facts the
single-head theorem rests on (MATH.md §2–§3): the semicircle and Marchenko–Pastur laws, the
Hermite expansion of a nonlinearity, the Gaussian equivalence of inner-product kernel matrices
(El Karoui 2010; Cheng & Singer 2013; Pennington & Worah 2017), Cauchy and R-transforms, free
additive convolution and subordination. Also the linear model with an arbitrary noise variance,
used by chapter 3 to show what a wrong α² does.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg
from numpy.polynomial.hermite_e import hermegauss, hermeval

from ._validation import check_choice, check_float, check_int, check_rng
from .freeprob.ladder import continue_to_axis
from .hermite import noise_variance
from .equivalents import _linear_model
from .models import _check_matrix, centered, softmax_attention
from .spectra import squared_singular_values

__all__ = ["wigner", "haar_orthogonal", "free_sum_eigenvalues", "hermite_projection",
           "inner_product_kernel", "kernel_gaussian_equivalent", "cauchy_transform",
           "density_from_r_transform", "semicircle_subordination_density",
           "tabulated_cdf", "linear_model_with_noise", "coupled_spectra", "COUPLINGS"]

#: How :func:`free_sum_eigenvalues` places the eigenvectors of B relative to those of A.
COUPLINGS = ("free", "independent", "aligned")



# ---------------------------------------------------------------------------------------------
# classical ensembles


def wigner(n, var=1.0, rng=None):
    r"""A Wigner (GOE) matrix whose eigenvalues follow the semicircle law of variance ``var``.

    Parameters
    ----------
    n : int
        Size n ≥ 1.
    var : float
        Variance σ² > 0 of the limiting semicircle law (support [−2σ, 2σ]).
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    numpy.ndarray
        Symmetric n×n float64 matrix W = σ (G + Gᵀ)/√(2n), G i.i.d. N(0, 1): off-diagonal
        entries N(0, σ²/n), diagonal entries N(0, 2σ²/n).

    Notes
    -----
    Wigner's theorem: the empirical eigenvalue law of W converges to the semicircle law with
    density √(4σ² − x²)/(2πσ²) on [−2σ, 2σ].
    """
    n = check_int("n", n, min=1)
    var = check_float("var", var, min=0, min_open=True)
    G = check_rng(rng).standard_normal((n, n))
    W = G + G.T
    W *= math.sqrt(var / (2.0 * n))
    return W


def haar_orthogonal(n, rng=None):
    r"""A Haar-distributed (uniformly random) n×n orthogonal matrix.

    Parameters
    ----------
    n : int
        Size n ≥ 1.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    numpy.ndarray
        n×n float64 orthogonal matrix O (OOᵀ = I to ~1e-15).

    Notes
    -----
    QR decomposition of a Gaussian matrix, G = OR, with the signs of the columns of O fixed so
    that diag(R) > 0; without that fix O is not Haar distributed (Mezzadri 2007).
    """
    n = check_int("n", n, min=1)
    q, r = np.linalg.qr(check_rng(rng).standard_normal((n, n)))
    q *= np.where(np.diag(r) < 0, -1.0, 1.0)
    return q


def free_sum_eigenvalues(a, b, rng=None, *, coupling="free"):
    r"""Eigenvalues of diag(a) + O diag(b) Oᵀ for three ways of placing the eigenvectors.

    Parameters
    ----------
    a, b : array_like
        The eigenvalues of the two summands, 1-D arrays of the same length n ≥ 1.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of randomness (for O).
    coupling : {"free", "independent", "aligned"}
        ``"free"``: O Haar orthogonal, so the summands are asymptotically free and the
        spectrum tends to the free additive convolution μ_a ⊞ μ_b.
        ``"independent"``: O a uniformly random permutation; the matrices commute and the
        spectrum is the law of a + b for independent a ~ μ_a, b ~ μ_b (classical convolution).
        ``"aligned"``: both sorted increasingly and added (commuting, comonotone).

    Returns
    -------
    numpy.ndarray
        The n eigenvalues, sorted increasingly.
    """
    a = np.sort(np.asarray(a, dtype=np.float64).ravel())
    b = np.sort(np.asarray(b, dtype=np.float64).ravel())
    if a.size == 0 or a.size != b.size:
        raise ValueError("a and b must be non-empty with the same length; got lengths "
                         f"{a.size} and {b.size}")
    coupling = check_choice("coupling", coupling, COUPLINGS)
    rng = check_rng(rng)
    if coupling == "aligned":
        return np.sort(a + b)
    if coupling == "independent":
        return np.sort(a + rng.permutation(b))
    O = haar_orthogonal(a.size, rng)
    M = (O * b) @ O.T
    M[np.diag_indices_from(M)] += a
    return scipy.linalg.eigh(M, eigvals_only=True, overwrite_a=True, driver="evd")


# ---------------------------------------------------------------------------------------------
# Hermite expansion and kernel matrices


def hermite_projection(f, kmax, points=120):
    r"""Hermite coefficients cₖ = E[f(g) Heₖ(g)]/k!, k = 0..kmax, by Gauss–Hermite quadrature.

    Parameters
    ----------
    f : callable
        Vectorised real function of one variable.
    kmax : int
        Highest degree, kmax ≥ 0.
    points : int
        Quadrature nodes (exact for polynomials f of degree ≤ 2·points − 1 − kmax).

    Returns
    -------
    numpy.ndarray
        float64 array of length kmax + 1 such that f = Σₖ cₖ Heₖ in L²(N(0, 1)).

    Notes
    -----
    With the probabilists' Hermite polynomials, E[Heⱼ(g) Heₖ(g)] = k! δⱼₖ for g ~ N(0, 1),
    so cₖ = E[f(g) Heₖ(g)]/k! and E[f(g)²] = Σₖ k! cₖ². The expectation uses
    ``numpy.polynomial.hermite_e.hermegauss`` (weight e^{−x²/2}, normalised by √(2π)).
    For f(x) = e^{βx − β²/2} the exact answer is cₖ = βᵏ/k! (MATH.md §2).

    Examples
    --------
    >>> [round(float(v), 12) + 0.0 for v in hermite_projection(lambda x: x**3, 3)]  # He₃ + 3 He₁
    [0.0, 3.0, 0.0, 1.0]
    """
    kmax = check_int("kmax", kmax, min=0)
    points = check_int("points", points, min=1)
    nodes, weights = hermegauss(points)
    weights = weights / math.sqrt(2.0 * math.pi)
    values = np.asarray(f(nodes), dtype=np.float64) * weights
    out = np.empty(kmax + 1)
    factorial = 1.0
    for k in range(kmax + 1):
        factorial *= max(k, 1)
        unit = np.zeros(k + 1)
        unit[k] = 1.0
        out[k] = np.dot(values, hermeval(nodes, unit)) / factorial
    return out


def inner_product_kernel(X, f):
    r"""The inner-product kernel matrix K = [f(xᵢᵀxⱼ/√p)]_{i≠j}/√n with zero diagonal.

    Parameters
    ----------
    X : array_like
        n×p data matrix, rows xᵢ (i.i.d. N(0, I_p) in the classical setting), n ≥ 2.
    f : callable
        Vectorised nonlinearity, applied entrywise.

    Returns
    -------
    numpy.ndarray
        Symmetric n×n float64 matrix.

    Notes
    -----
    For i ≠ j the argument ξᵢⱼ = xᵢᵀxⱼ/√p is approximately N(0, 1). If E f(ξ) = 0, a₁ = E[ξ f(ξ)]
    and ν = E f(ξ)², the eigenvalue law of K has the same limit as that of
    :func:`kernel_gaussian_equivalent` with the same X (El Karoui 2010; Cheng & Singer 2013):
    a linear part plus an independent Wigner matrix carrying the remaining variance ν − a₁².
    """
    X = _check_matrix("X", X, min_rows=2)
    n, p = X.shape
    K = np.asarray(f((X @ X.T) / math.sqrt(p)), dtype=np.float64)
    K /= math.sqrt(n)
    K[np.diag_indices_from(K)] = 0.0
    return K


def kernel_gaussian_equivalent(X, a1, noise_var, rng=None):
    r"""Linear-plus-noise equivalent of :func:`inner_product_kernel` for the same data X.

    Parameters
    ----------
    X : array_like
        n×p data matrix, n ≥ 2.
    a1 : float
        Linear Hermite coefficient a₁ = E[ξ f(ξ)] of the nonlinearity.
    noise_var : float
        Remaining variance ν − a₁² ≥ 0 (ν = E f(ξ)²), carried by a Wigner matrix.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of randomness (for the Wigner matrix).

    Returns
    -------
    numpy.ndarray
        Symmetric n×n float64 matrix a₁ [xᵢᵀxⱼ/√p]_{i≠j}/√n + √(noise_var) W, W = ``wigner(n)``.

    Notes
    -----
    With λ = n/p, the linear part has the limit law of (M − 1)/√λ scaled by a₁, M ~ MP(λ);
    its R-transform is a₁² w/(1 − √λ a₁ w). The equivalent's law therefore has the inverse
    Cauchy transform K(g) = 1/g + a₁² g/(1 − √λ a₁ g) + (ν − a₁²) g, which
    :func:`density_from_r_transform` inverts.
    """
    X = _check_matrix("X", X, min_rows=2)
    a1 = check_float("a1", a1)
    noise_var = check_float("noise_var", noise_var, min=0)
    n, p = X.shape
    L = (X @ X.T) * (a1 / math.sqrt(p * n))
    L[np.diag_indices_from(L)] = 0.0
    if noise_var > 0:
        L += wigner(n, noise_var, rng)
    return L


# ---------------------------------------------------------------------------------------------
# Cauchy transforms, R-transforms, subordination


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
    Recipe (MATH.md §3): vectorised Newton on K(g) = x + iη, continued down a geometric
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
    equation of the single-head theorem (MATH.md §3) with μ the symmetrised law of βW/√ℓ.
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


# ---------------------------------------------------------------------------------------------
# chapter 3: the linear model with any noise variance


def linear_model_with_noise(ell, d_qk, beta, noise_var, rng=None):
    r"""The linear model (βQKᵀ/√d_qk + √(noise_var) Z)/√ℓ with a chosen noise variance.

    Parameters
    ----------
    ell : int
        Tokens ℓ ≥ 2.
    d_qk : int
        Query/key width d_qk ≥ 1.
    beta : float
        Inverse temperature β > 0.
    noise_var : float
        Noise variance ≥ 0. The Gaussian equivalence needs α² = e^{β²} − 1 − β²
        (:func:`attnspec.noise_variance`); e^{β²} − 1 is the classic mistake (MATH.md §2).
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of randomness. Q, K, then Z are drawn in the order of
        :func:`attnspec.linear_equivalent`, so with ``noise_var = noise_variance(beta)`` and the
        same seed the result equals ``linear_equivalent(ell, d_qk, beta, rng)`` and shares its
        Q, K with ``softmax_attention(ell, d_qk, beta, rng)``.

    Returns
    -------
    numpy.ndarray
        ℓ×ℓ float64 matrix.
    """
    ell = check_int("ell", ell, min=2)
    d_qk = check_int("d_qk", d_qk, min=1)
    beta = check_float("beta", beta, min=0, min_open=True)
    noise_var = check_float("noise_var", noise_var, min=0)
    return _linear_model(ell, d_qk, beta, noise_var, check_rng(rng))


def coupled_spectra(ell, d_qk, beta, rng=None):
    r"""Squared singular values of softmax attention and of two linear models, from one Q, K.

    Parameters
    ----------
    ell : int
        Tokens ℓ ≥ 2.
    d_qk : int
        Query/key width d_qk ≥ 1 (c = ℓ/d_qk).
    beta : float
        Inverse temperature β > 0.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of randomness. One seed is drawn from it and reused for the three matrices,
        so they share the same Q and K (and the two linear models the same Z).

    Returns
    -------
    dict
        Descending squared singular values (float64 arrays of length ℓ) of

        ``"softmax"``
            √ℓ A^⊥ (:func:`attnspec.centered` of :func:`attnspec.softmax_attention`);
        ``"linear"``
            the linear model with α² = e^{β²} − 1 − β² (:func:`attnspec.linear_equivalent`);
        ``"wrong"``
            the linear model with the wrong noise variance e^{β²} − 1
            (:func:`linear_model_with_noise`), which counts the linear part twice.

    Notes
    -----
    Module-level, so :func:`attnspec.sweep` can run it in worker processes
    (``sweep(coupled_spectra, points, seed=seed)``). Sharing Q and K makes the sorted spectra
    comparable value by value (the mean absolute gap between sorted values, chapter 3), not only as laws.
    """
    ell = check_int("ell", ell, min=2)
    d_qk = check_int("d_qk", d_qk, min=1)
    beta = check_float("beta", beta, min=0, min_open=True)
    seed = int(check_rng(rng).integers(2**63))
    softmax = squared_singular_values(centered(softmax_attention(ell, d_qk, beta, rng=seed)))
    linear = squared_singular_values(
        linear_model_with_noise(ell, d_qk, beta, noise_variance(beta), rng=seed))
    wrong = squared_singular_values(
        linear_model_with_noise(ell, d_qk, beta, math.expm1(beta * beta), rng=seed))
    return {"softmax": softmax, "linear": linear, "wrong": wrong}
