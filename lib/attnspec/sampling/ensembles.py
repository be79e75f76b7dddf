"""Classical random-matrix ensembles and kernel matrices (A4 §2–§3).

Small, self-contained samplers that let the book check, by simulation, the facts the single-head
theorem rests on: the semicircle and Marchenko–Pastur laws, free additive convolution (a Wigner
or Haar-rotated sum), and the Gaussian equivalence of inner-product kernel matrices (El Karoui
2010; Cheng & Singer 2013; Pennington & Worah 2017).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg

from .._validation import check_choice, check_float, check_int, check_matrix, check_rng

__all__ = ["wigner", "haar_orthogonal", "haar_columns", "free_sum_eigenvalues", "inner_product_kernel",
           "kernel_gaussian_equivalent", "COUPLINGS"]

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
    :func:`haar_columns` with n columns.
    """
    n = check_int("n", n, min=1)
    return haar_columns(n, n, rng)


def haar_columns(n, k, rng=None):
    r"""The first k columns of a Haar-distributed n×n orthogonal matrix (an n×k frame).

    Parameters
    ----------
    n, k : int
        Rows n ≥ 1 and columns 1 ≤ k ≤ n.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of randomness (one n×k Gaussian draw).

    Returns
    -------
    numpy.ndarray
        n×k float64 matrix Q with orthonormal columns (QᵀQ = I to ~1e-15).

    Notes
    -----
    QR decomposition of an n×k Gaussian matrix, G = QR, with the signs of the columns of Q
    fixed so that diag(R) > 0; without that fix Q is not Haar distributed (Mezzadri 2007).
    Gram–Schmidt of the first k columns sees only those columns, so Q is the first k columns
    of the Haar matrix from the full QR of an n×n Gaussian matrix extending G, at cost
    O(nk²) instead of O(n³).
    """
    n = check_int("n", n, min=1)
    k = check_int("k", k, min=1, max=n)
    q, r = np.linalg.qr(check_rng(rng).standard_normal((n, k)))
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
# kernel matrices


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
    X = check_matrix("X", X, min_rows=2)
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
    :func:`attnspec.freeprob.subordination.density_from_r_transform` inverts.
    """
    X = check_matrix("X", X, min_rows=2)
    a1 = check_float("a1", a1)
    noise_var = check_float("noise_var", noise_var, min=0)
    n, p = X.shape
    L = (X @ X.T) * (a1 / math.sqrt(p * n))
    L[np.diag_indices_from(L)] = 0.0
    if noise_var > 0:
        L += wigner(n, noise_var, rng)
    return L


