r"""Causal (decoder) attention and its masked Gaussian equivalent (book chapter 8).

Row i of causal attention attends only to the keys j ≤ i, so it has n_i = i allowed keys
(1-based). The trivial part of row i is the uniform row U_ij = 1/n_i (j ≤ i): the centred
matrix is A^⊥ = A − U, which is lower triangular with zero row sums. Because the softmax of
row i averages n_i terms, the natural observable multiplies each row by its own count:

.. math:: Y = \frac{1}{\sqrt{\ell}}\, N (A - U), \qquad N = \mathrm{diag}(n_1, …, n_\ell),

so that Y_ij = (n_i A_ij − 1)/√ℓ on the allowed entries. Without a mask n_i = ℓ and Y is the
book's √ℓ A^⊥. The masked Gaussian-equivalent model (this companion's proposal, tested by
simulation in chapter 8) masks scores and noise alike:

.. math:: \begin{gathered}
          Y_{\mathrm{lin}} = \frac{1}{\sqrt{\ell}}\, M \odot (αZ + βS), \\
          M_{ij} = 1\{j \le i\}, \qquad α^2 = e^{β^2} - 1 - β^2 .
          \end{gathered}
"""

from __future__ import annotations

import math

import numpy as np

from .._docstrings import fill_docstring
from .._validation import (check_beta, check_bool, check_float, check_int, check_matrix,
                           check_memory, check_rng)
from ..hermite import alpha
from .equivalents import linear_model
from .softmax import gaussian_factors, scores, softmax_rows

__all__ = ["causal_attention", "causal_centered", "causal_linear_equivalent"]


@fill_docstring
def causal_attention(ell, d_qk, beta, rng=None, *, return_scores=False):
    r"""Sample causal softmax attention: row i is softmax(βS_i) over the keys j ≤ i.

    Parameters
    ----------
    %(ell)s
    %(d_qk)s
    beta : float
        Inverse temperature β > 0 (finite).
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of randomness. Q then K are drawn exactly as in
        :func:`attnspec.softmax_attention`, so the same seed gives the same scores.
    return_scores : bool
        Also return the (unmasked) scores S = QKᵀ/√d_qk.

    Returns
    -------
    A : numpy.ndarray
        ℓ×ℓ lower-triangular row-stochastic matrix,
        :math:`A_{ij} = e^{βS_{ij}}/\sum_{k \le i} e^{βS_{ik}}` for j ≤ i, 0 above the
        diagonal; computed with the maximum over the allowed keys subtracted.
    S : numpy.ndarray
        Only with ``return_scores=True``.
    """
    ell = check_int("ell", ell, min=2)
    d_qk = check_int("d_qk", d_qk, min=1)
    beta = check_float("beta", beta, min=0, min_open=True)
    return_scores = check_bool("return_scores", return_scores)
    check_memory("ell", ell, 5 * ell * ell * 8)        # S, mask, masked scores, A (+ bool)
    check_memory("d_qk", d_qk, 2 * ell * d_qk * 8)
    rng = check_rng(rng)
    S = scores(*gaussian_factors(ell, d_qk, rng))
    allowed = np.tril(np.ones((ell, ell), dtype=bool))
    A = softmax_rows(np.where(allowed, S, -np.inf), beta)   # exp(−inf) = 0 above the diagonal
    return (A, S) if return_scores else A


def causal_centered(A):
    r"""The row-normalised centred matrix Y = N(A − U)/√ℓ of causal attention.

    Parameters
    ----------
    A : array_like
        ℓ×ℓ causal attention matrix, ℓ ≥ 2: lower triangular (zero above the diagonal),
        rows summing to one.

    Returns
    -------
    numpy.ndarray
        Y with :math:`Y_{ij} = (i A_{ij} - 1)/\sqrt{\ell}` for j ≤ i (1-based i) and 0 above
        the diagonal. Exact identities: Y is lower triangular, every row sums to zero (up
        to rounding), and the first row is zero.

    Notes
    -----
    U_ij = 1/i (j ≤ i) is the uniform attention over the allowed keys, the degree-0 Hermite
    part of every row; N = diag(1, …, ℓ) undoes the 1/n_i of each row's softmax so that all
    rows are on the scale of the unmasked theorem (module docstring). Raises ``ValueError``
    if A has a non-zero entry above the diagonal or a row sum off one by more than 1e-8.
    """
    A = check_matrix("A", A, square=True, min_rows=2, finite=True)
    ell = A.shape[0]
    if np.any(np.triu(A, k=1) != 0):
        raise ValueError("A must be lower triangular (causal); got non-zero entries above "
                         "the diagonal")
    sums = A.sum(axis=1)
    if np.max(np.abs(sums - 1.0)) > 1e-8:
        raise ValueError("A must be row-stochastic; got row sums in "
                         f"[{sums.min():.3g}, {sums.max():.3g}]")
    counts = np.arange(1, ell + 1, dtype=np.float64)[:, None]
    Y = np.tril(counts * A - 1.0)
    Y -= np.tril(np.ones_like(Y)) * (Y.sum(axis=1, keepdims=True) / counts)  # rounding
    Y *= 1.0 / math.sqrt(ell)
    return Y


def causal_linear_equivalent(S, beta, rng=None):
    r"""The masked Gaussian-equivalent model M ⊙ (αZ + βS)/√ℓ for given scores S.

    Parameters
    ----------
    S : array_like
        ℓ×ℓ scores (e.g. from ``causal_attention(..., return_scores=True)``), ℓ ≥ 2.
    beta : float
        Inverse temperature β > 0 (finite, β ≤ 26 so that α² is finite).
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of the noise Z (ℓ×ℓ i.i.d. N(0, 1)).

    Returns
    -------
    numpy.ndarray
        ℓ×ℓ lower-triangular matrix
        :math:`1\{j \le i\}(αZ_{ij} + βS_{ij})/\sqrt{\ell}`, α² = e^{β²} − 1 − β².

    Notes
    -----
    Its first two moments (this companion's computation, chapter 8, for S = QKᵀ/√d_qk with
    Gaussian Q, K and c = ℓ/d_qk): m₁ → s/2 and m₂ → 2s²/3 + cβ⁴/6, s = e^{β²} − 1.
    The noise part alone has the closed-form law
    :class:`attnspec.TriangularProfileLaw` (scale α²).
    """
    S = check_matrix("S", S, square=True, min_rows=2, finite=True)
    beta = check_beta(beta)
    noise = alpha(beta)
    rng = check_rng(rng)
    ell = S.shape[0]
    return np.tril(linear_model(S, beta, noise, rng.standard_normal((ell, ell))))
