r"""Token inputs beyond orthonormal rows, and the linear model for given scores (chapter 9).

The theorem assumes X Xᵀ = I_ℓ (so ℓ ≤ d). Real inputs are neither orthonormal nor fewer
than the width: :func:`attnspec.gaussian_tokens` samples unit-norm rows that are i.i.d. Gaussian
directions (ℓ may exceed d) or share a mean direction u, as LayerNorm-ed embeddings of
trained models do:

.. math:: x_i = \frac{\sqrt{ρ}\, u + \sqrt{1 - ρ}\, g_i/\sqrt{d}}
                     {\lvert \sqrt{ρ}\, u + \sqrt{1 - ρ}\, g_i/\sqrt{d} \rvert},
          \qquad g_i \sim N(0, I_d),

so that x_i·x_j ≈ ρ for i ≠ j. :func:`attnspec.scores_linear_model` is the Gaussian-equivalent
linear model (αZ + βS)/√ℓ of MATH.md §2 built on given scores S, to test whether the
equivalence survives such inputs.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import ParameterTypeError, check_float, check_int, check_rng
from ..hermite import noise_variance

__all__ = ["gaussian_tokens", "scores_linear_model"]


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
    rng = check_rng(rng)
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    X = math.sqrt(1.0 - shared) * rng.standard_normal((ell, d)) / math.sqrt(d)
    X += math.sqrt(shared) * u
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X


def scores_linear_model(S, beta, rng=None):
    r"""The linear model (αZ + βS)/√ℓ on given ℓ×ℓ scores S (MATH.md §2).

    Parameters
    ----------
    S : array_like
        ℓ×ℓ real scores, ℓ ≥ 2, finite.
    beta : float
        Inverse temperature β > 0 (finite, β ≤ 26).
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of the noise Z (ℓ×ℓ i.i.d. N(0, 1)).

    Returns
    -------
    numpy.ndarray
        ℓ×ℓ matrix (αZ + βS)/√ℓ with α² = e^{β²} − 1 − β². For S = QKᵀ/√d_qk with
        Gaussian Q, K it is :func:`attnspec.linear_equivalent`; here S may come from any
        input (e.g. ``attention_from_weights(X, W_Q, W_K, beta, return_scores=True)``).
    """
    S = np.asarray(S)
    if S.ndim != 2 or S.shape[0] != S.shape[1] or S.shape[0] < 2 \
            or not (np.issubdtype(S.dtype, np.floating) or np.issubdtype(S.dtype, np.integer)):
        raise ParameterTypeError("S must be a square 2-D real array with at least 2 rows; "
                                 f"got shape {S.shape}, dtype {S.dtype}")
    if not np.isfinite(S).all():
        raise ValueError("S must have only finite entries")
    beta = check_float("beta", beta, min=0, min_open=True)
    alpha = math.sqrt(noise_variance(beta))
    rng = check_rng(rng)
    ell = S.shape[0]
    Y = alpha * rng.standard_normal((ell, ell))
    Y += beta * S
    Y *= 1.0 / math.sqrt(ell)
    return Y
