r"""Token inputs beyond orthonormal rows, and the linear model for given scores (chapter 8).

The theorem assumes X Xᵀ = I_ℓ (so ℓ ≤ d). Real inputs are neither orthonormal nor fewer
than the width: :func:`attnspec.gaussian_tokens` samples unit-norm rows that are i.i.d. Gaussian
directions (ℓ may exceed d) or share a mean direction u, as LayerNorm-ed embeddings of
trained models do:

.. math:: x_i = \frac{\sqrt{ρ}\, u + \sqrt{1 - ρ}\, g_i/\sqrt{d}}
                     {\lvert \sqrt{ρ}\, u + \sqrt{1 - ρ}\, g_i/\sqrt{d} \rvert},
          \qquad g_i \sim N(0, I_d),

so that x_i·x_j ≈ ρ for i ≠ j. :func:`attnspec.scores_linear_model` is the Gaussian-equivalent
linear model (αZ + βS)/√ℓ of A4 §2 built on given scores S, to test whether the
equivalence survives such inputs.
"""

from __future__ import annotations

import math

import numpy as np

from .._docstrings import fill_docstring
from .._validation import (check_beta, check_float, check_int, check_matrix, check_memory,
                           check_rng)
from ..hermite import (alpha, hermite_coefficients, hermite_he, noise_variance,
                       truncated_noise_variance)
from .equivalents import linear_model
from .softmax import project_rows

__all__ = ["gaussian_tokens", "scores_linear_model", "reweighted_linear_model"]


def gaussian_tokens(ell, d, rng=None, *, shared=0.0):
    r"""Sample ℓ unit-norm token vectors in ℝ^d, optionally with a shared mean direction.

    Parameters
    ----------
    ell : int
        Number of tokens ℓ ≥ 2 (any size; ℓ > d is allowed).
    d : int
        Embedding width d ≥ 1.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of randomness (u first, then the g_i).
    shared : float
        ρ ∈ [0, 1): weight of the shared unit direction u (uniform on the sphere). ρ = 0
        gives i.i.d. uniformly random directions; for ρ > 0 the mean cosine between two
        tokens tends to ρ as d grows.

    Returns
    -------
    numpy.ndarray
        ℓ×d float64 array with unit rows (module docstring).
    """
    ell = check_int("ell", ell, min=2)
    d = check_int("d", d, min=1)
    shared = check_float("shared", shared, min=0, max=1, max_open=True)
    check_memory("ell", ell, 2 * ell * d * 8)
    rng = check_rng(rng)
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    X = math.sqrt(1.0 - shared) * rng.standard_normal((ell, d)) / math.sqrt(d)
    X += math.sqrt(shared) * u
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X


def _check_score_arguments(S, beta, rng):
    """S (square, ℓ ≥ 2, finite), 0 < β ≤ 26 and the generator, checked in that order."""
    S = check_matrix("S", S, square=True, min_rows=2, finite=True)
    beta = check_beta(beta)
    return S, beta, check_rng(rng)


@fill_docstring
def scores_linear_model(S, beta, rng=None, *, exact_degree=1):
    r"""The linear model (αZ + βS)/√ℓ on given ℓ×ℓ scores S (A4 §2), optionally with
    the Hermite terms up to ``exact_degree`` kept exactly.

    Parameters
    ----------
    %(scores)s
    %(beta)s
    %(noise_rng)s
    exact_degree : int
        The truncation degree n, 1 ≤ n ≤ 6 (n as in A4 §4): the Hermite terms of degree 1..n
        are kept as functions of S, only the remainder becomes noise. n = 1 is the theorem's
        linear model.

    Returns
    -------
    numpy.ndarray
        ℓ×ℓ matrix
        :math:`\bigl(\sum_{k=1}^{n} β^k \mathrm{He}_k(S)/k! + α_{>n} Z\bigr)/\sqrt{\ell}`
        with :math:`α_{>n}^2 = \sum_{k>n} β^{2k}/k!`; for n > 1 each row is then centred
        (the degree-2 term has non-zero row means, which softmax's normalisation removes).
        For n = 1 and S = QKᵀ/√d_qk with Gaussian Q, K it is
        :func:`attnspec.linear_equivalent`; here S may come from any input (e.g.
        ``attention_from_weights(X, W_Q, W_K, beta, return_scores=True)``).

    Notes
    -----
    Why n > 1 (chapter 8; a heuristic, not a theorem): at a fixed head width d_h the kernel
    (q_i·k_j)^k has rank at most C(d_h + k − 1, k) (He_k adds lower-degree kernels), so the
    degree-2 term may stop acting like noise once ℓ is of the order of C(d_h + 1, 2) ≈ d_h²/2
    (cf. kernel matrices in polynomial scalings, Lu & Yau). Chapter 8 measures that keeping
    degrees 2 and 3 exactly helps at d_h = 64, at every ℓ it runs (all below that bound);
    which degree matters, and why, it leaves open.
    """
    S, beta, rng = _check_score_arguments(S, beta, rng)
    exact_degree = check_int("exact_degree", exact_degree, min=1, max=6)
    remainder = max(0.0, noise_variance(beta) - truncated_noise_variance(beta, exact_degree))
    ell = S.shape[0]
    Y = linear_model(S, beta, math.sqrt(remainder), rng.standard_normal((ell, ell)))
    if exact_degree > 1:
        coefficients = hermite_coefficients(beta, exact_degree) / math.sqrt(ell)
        for k in range(2, exact_degree + 1):
            Y += coefficients[k] * hermite_he(k, S)
        Y = project_rows(Y)
    return Y


@fill_docstring
def reweighted_linear_model(S, beta, rng=None):
    r"""The linear model with key weights and per-row temperatures read off the scores.

    Parameters
    ----------
    %(scores)s
    %(beta)s
    %(noise_rng)s

    Returns
    -------
    numpy.ndarray
        ℓ×ℓ matrix Y P (rows centred) with

        .. math:: Y_{ij} = \frac{1}{\sqrt{\ell}}\Bigl(w_j\bigl(βS'_{ij} + α(βσ_i)Z_{ij}\bigr)
                  + w_j - 1\Bigr),

        where a_j is the mean of column j of the row-centred scores (a key effect: softmax
        removes row constants, not column ones), S' the scores with rows and columns
        centred, σ_i² the mean square of row i of S', w_j = e^{βa_j}/mean_k e^{βa_k}, and
        α(b)² = e^{b²} − 1 − b².

    Notes
    -----
    This companion's proposal (chapter 8), checked by simulation only: for tokens with a
    shared mean direction, softmax(βS) ≈ w_j e^{βS'_ij − β²σ_i²/2}/ℓ, so ℓA − 1 has a
    column-weighted Hermite expansion. Without a key effect and with σ_i = 1 it reduces to
    :func:`attnspec.scores_linear_model` up to the row centring.
    """
    S, beta, rng = _check_score_arguments(S, beta, rng)
    ell = S.shape[0]
    centred = project_rows(S)
    key_effect = centred.mean(axis=0)
    residual = centred - key_effect
    row_scale = np.sqrt(np.mean(residual ** 2, axis=1))
    amplitude = alpha(beta * np.maximum(row_scale, 1e-300))
    weights = np.exp(beta * (key_effect - key_effect.max()))
    weights /= weights.mean()
    Y = amplitude[:, None] * rng.standard_normal((ell, ell))
    Y += beta * residual
    Y *= weights
    Y += weights - 1.0
    Y = project_rows(Y)
    Y *= 1.0 / math.sqrt(ell)
    return Y
