"""Samplers of single-head softmax attention and its centring (A4 §1)."""

from __future__ import annotations

import math

import numpy as np

from .._validation import (check_bool, check_float, check_int, check_matrix, check_memory,
                           check_rng)
from .ensembles import haar_columns

__all__ = ["softmax_attention", "orthonormal_input", "attention_from_weights", "centered",
           "iid_score_attention", "gaussian_factors", "scores", "softmax_rows", "project_rows"]

_DTYPES = (np.dtype(np.float64), np.dtype(np.float32))


# ---------------------------------------------------------------------------------------------
# building blocks, shared with equivalents.py and multihead.py (unvalidated: callers check)


def _check_dtype(dtype):
    try:
        value = np.dtype(dtype)
    except TypeError:
        value = None
    if value not in _DTYPES:
        raise ValueError(f"dtype must be one of numpy.float64, numpy.float32; got dtype={dtype!r}")
    return value


def gaussian_factors(ell, width, rng, count=2):
    """``count`` independent ℓ×width matrices with i.i.d. N(0, 1) entries (Q, K, ...)."""
    return [rng.standard_normal((ell, width)) for _ in range(count)]


def scores(Q, K):
    """S = Q Kᵀ/√d_qk (A4 §1). Q is rescaled first (ℓ·d_qk operations, not ℓ²)."""
    return (Q * (1.0 / math.sqrt(Q.shape[1]))) @ K.T


def softmax_rows(S, beta, out=None):
    """Row-wise softmax(βS) (A4 §1), computed as exp(β(S − row max)) / row sum.

    The row maximum of S is subtracted *before* multiplying by β, so every exponent is ≤ 0
    and the row maximum gives exp(0) = 1: the result is finite for any finite β (a huge β
    saturates to a one-hot row, or uniform weights over tied maxima). ``out=S`` works in place.
    Rows are along the last axis: a stack of score matrices (..., ℓ, ℓ) works as well.
    """
    A = np.subtract(S, S.max(axis=-1, keepdims=True), out=out)
    with np.errstate(over="ignore"):  # β·(S − max) may overflow to −inf: exp(−inf) = 0
        A *= beta
    np.exp(A, out=A)
    A /= A.sum(axis=-1, keepdims=True)
    return A


def project_rows(M):
    """M P with P = I − 11ᵀ/ℓ (A4 §1), i.e. M minus its row means (a new array)."""
    return M - M.mean(axis=1, keepdims=True)


# ---------------------------------------------------------------------------------------------
# public samplers


def softmax_attention(ell, d_qk, beta, rng=None, *, return_scores=False, dtype=np.float64):
    r"""Sample single-head softmax attention A = softmax(βS) (A4 §1).

    Parameters
    ----------
    ell : int
        Number of tokens ℓ ≥ 2.
    d_qk : int
        Query/key width d_qk ≥ 1; the limit depends on c = ℓ/d_qk.
    beta : float
        Inverse temperature β > 0 (finite). Any finite β gives finite output; a very large
        β saturates every row to (nearly) one-hot.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of randomness; the same seed gives the same bytes at the same number of BLAS
        threads (another number sums the products differently: ~1e-15 relative).
    return_scores : bool
        Also return the scores S.
    dtype : numpy.float64 or numpy.float32
        Precision of S and A. The Gaussian factors are always drawn in float64 (the same
        draw for both precisions) and rounded. float32 halves the memory of the ℓ×ℓ arrays.
        Measured accuracy against float64 (same seed; ℓ = 1000, 2000; β = 1, 1.5): squared
        singular values of ``centered(A)`` within 4e-6 of the largest one, every entry of A
        within 6e-6 relative (1.1e-5 at β = 3: the error of exp grows with β|S|), row sums
        within 3e-7 of 1.

    Returns
    -------
    A : numpy.ndarray
        ℓ×ℓ row-stochastic matrix, A1 = 1.
    S : numpy.ndarray
        Only with ``return_scores=True``: the ℓ×ℓ scores.

    Notes
    -----
    Scores S = Q Kᵀ/√d_qk with Q, K ∈ ℝ^{ℓ×d_qk} i.i.d. N(0, 1); attention
    :math:`A_{ij} = e^{\beta S_{ij}} / \sum_k e^{\beta S_{ik}}`, computed with the row maximum
    subtracted. Sampling Q, K directly is the shortcut of A4 §1: with input X of
    orthonormal rows, Q = X W_Q and K = X W_K have exactly this law. Q is drawn first, then K.

    Examples
    --------
    >>> A = softmax_attention(ell=4, d_qk=3, beta=1.0, rng=0)
    >>> A.shape, bool(np.allclose(A.sum(axis=1), 1.0))
    ((4, 4), True)
    """
    ell = check_int("ell", ell, min=2)
    d_qk = check_int("d_qk", d_qk, min=1)
    beta = check_float("beta", beta, min=0, min_open=True)   # any finite β: rows saturate
    return_scores = check_bool("return_scores", return_scores)
    dtype = _check_dtype(dtype)
    check_memory("ell", ell, 4 * ell * ell * 8)       # measured peak: four ℓ×ℓ float64
    check_memory("d_qk", d_qk, 2 * ell * d_qk * 8)
    rng = check_rng(rng)
    Q, K = gaussian_factors(ell, d_qk, rng)
    S = scores(Q.astype(dtype, copy=False), K.astype(dtype, copy=False))
    if return_scores:
        return softmax_rows(S, beta), S
    return softmax_rows(S, beta, out=S)


def orthonormal_input(ell, d, rng=None):
    r"""Input X ∈ ℝ^{ℓ×d} with orthonormal rows, the first ℓ rows of a Haar orthogonal matrix.

    Parameters
    ----------
    ell : int
        Number of tokens, 1 ≤ ℓ ≤ d (called with ℓ ≥ 2 by the models).
    d : int
        Embedding width d ≥ 1.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    numpy.ndarray
        ℓ×d float64 array with X Xᵀ = I_ℓ (to rounding, ~1e-15).

    Notes
    -----
    (A4 §1, §6.) X = Qᵀ with Q the first ℓ columns of a Haar orthogonal d×d matrix
    (:func:`attnspec.sampling.ensembles.haar_columns`, one d×ℓ Gaussian draw and its QR);
    the transpose of a Haar matrix is Haar, so X has the law of the first ℓ rows of a Haar
    orthogonal d×d matrix, at cost O(dℓ²) instead of O(d³).
    """
    ell = check_int("ell", ell, min=1)
    d = check_int("d", d, min=1)
    if ell > d:
        raise ValueError(f"ell must be <= d (orthonormal rows need ell <= d); got ell={ell}, d={d}")
    return haar_columns(d, ell, rng).T.copy()


def attention_from_weights(X, W_Q, W_K, beta, *, return_scores=False):
    r"""Softmax attention of an explicit input and explicit weights (A4 §1, §6).

    Parameters
    ----------
    X : array_like
        Input, ℓ×d with ℓ ≥ 2 (orthonormal rows in the book's model).
    W_Q, W_K : array_like
        Query and key weights, both d×d_qk.
    beta : float
        Inverse temperature β > 0 (finite).
    return_scores : bool
        Also return the scores S.

    Returns
    -------
    A : numpy.ndarray
        ℓ×ℓ row-stochastic matrix softmax(βS).
    S : numpy.ndarray
        Only with ``return_scores=True``.

    Notes
    -----
    :math:`S = X W_Q W_K^\top X^\top / \sqrt{d_{qk}}`, :math:`A = \mathrm{softmax}(\beta S)`
    row-wise with the row maximum subtracted. Needed when a weight is reused outside the
    scores (A4 §6, output tied to keys); otherwise :func:`softmax_attention` samples the
    same law without X.
    """
    X = check_matrix("X", X, min_rows=2)
    W_Q = check_matrix("W_Q", W_Q)
    W_K = check_matrix("W_K", W_K)
    if W_Q.shape[0] != X.shape[1] or W_Q.shape != W_K.shape:
        raise ValueError("W_Q and W_K must both have shape (d, d_qk) with d = X.shape[1]; got "
                         f"X.shape={X.shape}, W_Q.shape={W_Q.shape}, W_K.shape={W_K.shape}")
    beta = check_float("beta", beta, min=0, min_open=True)   # any finite β: rows saturate
    return_scores = check_bool("return_scores", return_scores)
    S = scores(X @ W_Q, X @ W_K)
    if return_scores:
        return softmax_rows(S, beta), S
    return softmax_rows(S, beta, out=S)


def centered(A):
    r"""The centred, rescaled attention √ℓ A^⊥ = √ℓ A P (A4 §1).

    Parameters
    ----------
    A : array_like
        ℓ×ℓ attention matrix, ℓ ≥ 2 (row-stochastic: A1 = 1).

    Returns
    -------
    numpy.ndarray
        :math:`\sqrt{\ell}\, A P` with :math:`P = I - \mathbf{1}\mathbf{1}^\top/\ell`, a new
        array of A's floating dtype (float64 for integer input).

    Notes
    -----
    A P subtracts from each row its mean. For a row-stochastic A the row means are all 1/ℓ,
    so A P = A − 11ᵀ/ℓ = A^⊥ exactly as A4 §1 defines it; subtracting the *computed* row
    means also removes the rounding error of the row sums, so the trivial singular value
    (≈ 1 before centring) is removed to machine precision. The observable of the book is the
    law of the squared singular values of this matrix.
    """
    A = check_matrix("A", A, square=True, min_rows=2)
    M = project_rows(A)
    M *= math.sqrt(A.shape[0])
    return M


def iid_score_attention(ell, beta, rng=None):
    r"""Attention with i.i.d. scores, the prior ("Mind the Gap") model (A4 §2).

    Parameters
    ----------
    ell : int
        Number of tokens ℓ ≥ 2.
    beta : float
        Inverse temperature β > 0 (finite).
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    numpy.ndarray
        ℓ×ℓ row-stochastic matrix softmax(βG), G ∈ ℝ^{ℓ×ℓ} i.i.d. N(0, 1).

    Notes
    -----
    Treating the scores as i.i.d. N(0, 1), the squared singular values of ``centered(A)``
    follow Marchenko–Pastur with ratio 1 and scale s = e^{β²} − 1 as ℓ → ∞ (mean s, second
    moment 2s², right edge 4s; this book's derivation, A4 §2). Real scores are the product Q Kᵀ/√d_qk and give a different
    law with the same mean (see :func:`attnspec.linear_equivalent`).
    """
    ell = check_int("ell", ell, min=2)
    check_memory("ell", ell, 4 * ell * ell * 8)
    beta = check_float("beta", beta, min=0, min_open=True)   # any finite β: rows saturate
    rng = check_rng(rng)
    G = rng.standard_normal((ell, ell))
    return softmax_rows(G, beta, out=G)
