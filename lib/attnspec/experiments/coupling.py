"""Softmax attention and two linear models sharing one Q, K: the noise variance α² (chapter 3).

A per-draw function for :func:`attnspec.sweep`: the spectra of √ℓ A^⊥, of the linear model with
the right noise variance α² = e^{β²} − 1 − β² and with the classic wrong one e^{β²} − 1 (A4
§2), drawn from the same weights so that they can be compared value by value.
"""

from __future__ import annotations

from .._validation import check_beta, check_int, check_rng
from ..hermite import noise_variance, total_variance
from ..sampling.equivalents import linear_model_with_noise
from ..sampling.softmax import centered, softmax_attention
from ..spectra import squared_singular_values

__all__ = ["coupled_spectra"]


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
