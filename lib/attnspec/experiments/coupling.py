"""Softmax attention and two linear models sharing one Q, K: the noise variance α² (chapter 3).

A per-draw function for :func:`attnspec.sweep`: the spectra of √ℓ A^⊥, of the linear model with
the right noise variance α² = e^{β²} − 1 − β² and with the classic wrong one e^{β²} − 1 (A4
§2), drawn from the same weights so that they can be compared value by value.
"""

from __future__ import annotations

import numpy as np

from .._validation import ParameterError, check_beta, check_int, check_memory, check_rng
from ..hermite import noise_variance, total_variance
from ..sampling.equivalents import linear_model_with_noise
from ..sampling.softmax import centered, softmax_attention
from ..spectra import squared_singular_values

__all__ = ["coupled_spectra", "coupled_moments", "linear_model_m2"]


def coupled_spectra(ell, d_qk, beta, rng=None):
    r"""Squared singular values of softmax attention and of two linear models, from one Q, K.

    Parameters
    ----------
    ell : int
        Tokens ℓ ≥ 2.
    d_qk : int
        Query/key width d_qk ≥ 1 (c = ℓ/d_qk).
    beta : float
        Inverse temperature 0 < β ≤ 26.
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
            (:func:`attnspec.sampling.equivalents.linear_model_with_noise`), which counts the linear part twice.

    Notes
    -----
    Module-level, so :func:`attnspec.sweep` can run it in worker processes
    (``sweep(coupled_spectra, points, seed=seed)``). Sharing Q and K makes the sorted spectra
    comparable value by value (the mean absolute gap between sorted values, chapter 3), not only as laws.
    """
    ell = check_int("ell", ell, min=2)
    d_qk = check_int("d_qk", d_qk, min=1)
    beta = check_beta(beta)
    seed = int(check_rng(rng).integers(2**63))
    softmax = squared_singular_values(centered(softmax_attention(ell, d_qk, beta, rng=seed)))
    linear = squared_singular_values(
        linear_model_with_noise(ell, d_qk, beta, noise_variance(beta), rng=seed))
    wrong = squared_singular_values(
        linear_model_with_noise(ell, d_qk, beta, total_variance(beta), rng=seed))
    return {"softmax": softmax, "linear": linear, "wrong": wrong}


def _moments(M):
    """m₁ and m₂ of the squared singular values of the ℓ×ℓ matrix M, by traces (no SVD)."""
    G = M @ M.T
    ell = M.shape[0]
    return float(np.trace(G)) / ell, float(np.sum(G * G)) / ell


def coupled_moments(ell, d_qk, beta, rng=None):
    r"""First two moments of √ℓ A^⊥ and of the linear model from one Q, K, without an SVD.

    Parameters
    ----------
    ell, d_qk, beta, rng
        As in :func:`coupled_spectra`, whose coupling (one seed for both matrices) this
        function repeats.

    Returns
    -------
    dict
        ``{"softmax": (m₁, m₂), "linear": (m₁, m₂)}`` with
        :math:`m_k = \frac1\ell \operatorname{Tr}(MM^\top)^k`, the k-th moment of all ℓ squared
        singular values of M (the structural zero of √ℓ A^⊥ included), as
        :func:`attnspec.moments_with_se` gives them from the spectra.

    Notes
    -----
    Two ℓ×ℓ products per matrix instead of an eigendecomposition: chapter 3 uses it to put
    standard errors from many draws on its moment table cheaply.
    """
    ell = check_int("ell", ell, min=2)
    d_qk = check_int("d_qk", d_qk, min=1)
    beta = check_beta(beta)
    check_memory("ell", ell, 3 * ell * ell * 8)
    seed = int(check_rng(rng).integers(2**63))
    softmax = _moments(centered(softmax_attention(ell, d_qk, beta, rng=seed)))
    linear = _moments(linear_model_with_noise(ell, d_qk, beta, noise_variance(beta), rng=seed))
    return {"softmax": softmax, "linear": linear}


def linear_model_m2(beta, ell, d_qk):
    r"""Exact expectation of m₂ for the linear model at finite ℓ, d_qk (derived; A4 §2).

    For :math:`Y = (\alpha Z + \beta W)/\sqrt\ell`, :math:`W = QK^\top/\sqrt{d_{qk}}`, Gaussian
    Q, K (ℓ×d_qk) and Z (ℓ×ℓ), with Wishart moments and E[ZXZ] = Xᵀ,

    .. math:: \mathbb{E}\,m_2 = \Bigl(2 + \frac1\ell\Bigr)(\alpha^4 + 2\alpha^2\beta^2)
              + \beta^4\Bigl(\frac{(\ell+1)(d_{qk}+\ell+1)}{\ell d_{qk}} + 1
              + \frac{2}{\ell d_{qk}}\Bigr),

    which tends to 2s² + cβ⁴ (c = ℓ/d_qk); m₁ has expectation s = α² + β² exactly at every size.
    """
    beta = check_beta(beta)
    ell = check_int("ell", ell, min=1)
    d_qk = check_int("d_qk", d_qk, min=1)
    a2, b2 = noise_variance(beta), beta * beta
    if a2 > 1e150:   # α⁴ (≈ e^{2β²}) would leave the float range
        raise ParameterError(f"beta={beta!r}: the linear model's m₂ ≈ e^(2 beta^2) exceeds the "
                             "float64 range; allowed: beta <= 18")
    scores = (ell + 1) * (d_qk + ell + 1) / (ell * d_qk) + 1 + 2 / (ell * d_qk)
    return (2 + 1 / ell) * (a2 * a2 + 2 * a2 * b2) + b2 * b2 * scores
