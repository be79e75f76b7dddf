"""Gaussian-equivalent models of single-head attention: the linear model (with any noise
variance), the stepwise chain, the Marchenko–Pastur surrogate (A4 §2, §4)."""

from __future__ import annotations

import math

import numpy as np
from numpy.polynomial.hermite_e import hermeval

from .._docstrings import fill_docstring
from .._validation import (ParameterError, ParameterTypeError, check_beta, check_float,
                           check_int, check_memory, check_rng)
from ..hermite import (alpha, hermite_coefficients, noise_variance, total_variance,
                       truncated_noise_variance)
from .softmax import gaussian_factors, project_rows, scores, softmax_rows

__all__ = ["linear_model", "linear_equivalent", "linear_model_with_noise", "stepwise_chain",
           "mp_surrogate", "STEPWISE_KEYS"]

#: Keys of :func:`attnspec.stepwise_chain`, in the order of the figure (A4 §4).
STEPWISE_KEYS = ("softmax", "Y", "Y_f", "Y_Q", "Y_Q_lin", "Y_f_lin")


def linear_model(S, beta, noise_sd, Z):
    r"""(βS + σZ)/√ℓ: the linear model Y_lin on given ℓ×ℓ scores S and noise Z (A4 §2).

    The one place the formula is written. With S = QKᵀ/√d_qk and σ = α it is
    :func:`attnspec.linear_equivalent`; the stepwise chain, the models on given scores and
    the masked model call it too. Its checks are O(1) (types, shapes, the two scalars); the
    entries of S and Z are not scanned.

    Parameters
    ----------
    S, Z : numpy.ndarray
        ℓ×ℓ scores and ℓ×ℓ noise, floating-point arrays of the same shape.
    beta, noise_sd : float
        β and the noise amplitude σ ≥ 0 (α for the Gaussian equivalence), finite.

    Returns
    -------
    numpy.ndarray
        A new ℓ×ℓ array.

    Raises
    ------
    ParameterError
        Naming ``S``, ``Z``, ``beta`` or ``noise_sd``: S not a square 2-d floating-point
        numpy array, Z not one of the same shape, β not finite or σ not a finite number ≥ 0.
    """
    for name, array in (("S", S), ("Z", Z)):
        if not isinstance(array, np.ndarray) or array.dtype.kind != "f":
            raise ParameterTypeError(f"{name} must be a floating-point numpy array; got "
                                     f"{name} of type {type(array).__name__}"
                                     + (f" with dtype {array.dtype}"
                                        if isinstance(array, np.ndarray) else ""))
    if S.ndim != 2 or S.shape[0] != S.shape[1]:
        raise ParameterError(f"S must be a square 2-d array; got S with shape {S.shape}")
    if Z.shape != S.shape:
        raise ParameterError(f"Z must have the shape of S, {S.shape}; got Z with shape "
                             f"{Z.shape}")
    check_float("beta", beta)                  # the caller's objects are used as given
    check_float("noise_sd", noise_sd, min=0)
    Y = S * beta
    Y += noise_sd * Z
    Y *= 1.0 / math.sqrt(S.shape[0])
    return Y


def _check_common(ell, d_qk, beta, arrays=4):
    """Checked (ℓ, d_qk, β), refusing sizes whose ``arrays`` ℓ×ℓ float64 arrays cannot fit."""
    ell, d_qk = check_int("ell", ell, min=2), check_int("d_qk", d_qk, min=1)
    check_memory("ell", ell, arrays * ell * ell * 8)
    check_memory("d_qk", d_qk, 2 * ell * d_qk * 8)
    return ell, d_qk, check_beta(beta)


@fill_docstring
def linear_equivalent(ell, d_qk, beta, rng=None):
    r"""Sample the linear Gaussian-equivalent model Y_lin (A4 §2).

    Parameters
    ----------
    %(ell)s
    %(d_qk)s
    %(beta)s
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of randomness. Q and K are drawn first, exactly as in
        :func:`attnspec.softmax_attention`, so the same seed couples the two models
        (same Q, K); Z is drawn afterwards.

    Returns
    -------
    numpy.ndarray
        ℓ×ℓ float64 matrix whose squared singular values have the same limit law ν_∞(β, c)
        as those of √ℓ A^⊥.

    Notes
    -----
    .. math:: \begin{gathered}
              Y_{\mathrm{lin}} = \bigl(\alpha Z + \beta\, Q K^\top/\sqrt{d_{qk}}\bigr)/\sqrt{\ell}, \\
              \alpha^2 = e^{\beta^2} - 1 - \beta^2,
              \end{gathered}

    with Q, K ∈ ℝ^{ℓ×d_qk} and Z ∈ ℝ^{ℓ×ℓ} independent, i.i.d. N(0, 1). Moments of the
    squared singular values: m₁ → s = e^{β²} − 1, m₂ → 2s² + cβ⁴.
    """
    ell, d_qk, beta = _check_common(ell, d_qk, beta)
    return _linear_model(ell, d_qk, beta, noise_variance(beta), check_rng(rng))


def _linear_model(ell, d_qk, beta, noise_var, rng):
    """(σZ + βQKᵀ/√d_qk)/√ℓ with σ² = ``noise_var``; Q, K drawn first, then Z (checked input)."""
    S = scores(*gaussian_factors(ell, d_qk, rng))
    return linear_model(S, beta, math.sqrt(noise_var), rng.standard_normal((ell, ell)))


@fill_docstring
def stepwise_chain(ell, d_qk, beta, rng=None, *, degree=3):
    r"""The six matrices of the stepwise-approximation figure, from one draw (A4 §4).

    Parameters
    ----------
    %(ell)s
    %(d_qk)s
    beta : float
        Inverse temperature 0 < β ≤ 26 (e^{β²} must be a finite float). ``Y`` and ``Y_f``
        use e^{βS} without the softmax normalisation and overflow once β·max S ≳ 700 (far
        outside the regime of §4).
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of randomness. Q, K are drawn first (as in :func:`attnspec.softmax_attention`,
        so ``chain["softmax"]`` equals ``centered(softmax_attention(...))`` for the same
        seed), then one Z shared by the two linear steps.
    degree : int
        Hermite truncation degree n ≥ 1 of ``Y_Q`` and ``Y_Q_lin`` (n as in A4 §4 and
        chapter 4; the superscript Q is the paper's name for the truncated matrices).

    Returns
    -------
    dict
        Ordered as :data:`STEPWISE_KEYS`; every value an ℓ×ℓ float64 array, all built from
        the same S = Q Kᵀ/√d_qk (Q the query matrix):

        ============  ==========================================================
        key           matrix
        ============  ==========================================================
        ``softmax``   √ℓ A^⊥ = √ℓ softmax(βS) P
        ``Y``         (e^{βS − β²/2} − 11ᵀ) P/√ℓ  (row sums replaced by their mean)
        ``Y_f``       f(S)/√ℓ, f(x) = e^{βx − β²/2} − 1  (centring projector dropped)
        ``Y_Q``       Σ_{k=1}^{n} βᵏ Heₖ(S)/k! /√ℓ  (Hermite terms above n dropped)
        ``Y_Q_lin``   (βS + α_n Z)/√ℓ, α_n² = Σ_{k=2}^{n} β^{2k}/k!
        ``Y_f_lin``   (βS + αZ)/√ℓ, α² = e^{β²} − 1 − β²  (the linear model)
        ============  ==========================================================

    Notes
    -----
    The chain is **this companion's reconstruction** of the figure of paper 1, consistent
    with its caption (A4 §4, [reconstructed]); the definitions above are ours, not
    quotations. Since 11ᵀP = 0, ``Y`` is computed as e^{βS − β²/2} P/√ℓ. Memory: the six outputs
    plus S and Z stay alive, and temporaries of the Hermite sum bring the peak to eleven ℓ×ℓ
    float64 arrays (measured with ``tracemalloc``; ℓ = 1000 peaks at 88 MB).
    """
    ell, d_qk, beta = _check_common(ell, d_qk, beta, arrays=11)
    degree = check_int("degree", degree, min=1)
    rng = check_rng(rng)
    root = math.sqrt(ell)
    Q, K = gaussian_factors(ell, d_qk, rng)
    S = scores(Q, K)
    Z = rng.standard_normal((ell, ell))

    chain = {}
    softmax = project_rows(softmax_rows(S, beta))
    softmax *= root
    chain["softmax"] = softmax

    E = S * beta
    E -= beta * beta / 2
    np.exp(E, out=E)                       # e^{βS − β²/2}
    Y = project_rows(E)
    Y /= root
    chain["Y"] = Y
    E -= 1.0
    E /= root
    chain["Y_f"] = E

    coefficients = hermite_coefficients(beta, degree)
    coefficients[0] = 0.0                  # the degree-0 term is the removed 11ᵀ
    Y_Q = hermeval(S, coefficients)
    Y_Q /= root
    chain["Y_Q"] = Y_Q

    truncated = math.sqrt(truncated_noise_variance(beta, degree))
    chain["Y_Q_lin"] = linear_model(S, beta, truncated, Z)
    chain["Y_f_lin"] = linear_model(S, beta, alpha(beta), Z)
    return chain


def mp_surrogate(ell, beta, rng=None):
    r"""Marchenko–Pastur surrogate of the i.i.d.-score model (A4 §2, §4).

    Parameters
    ----------
    ell : int
        Size ℓ ≥ 2.
    beta : float
        Inverse temperature 0 < β ≤ 26 (e^{β²} must be a finite float).
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    numpy.ndarray
        ℓ×ℓ float64 matrix √s Z/√ℓ, s = e^{β²} − 1, Z i.i.d. N(0, 1).

    Notes
    -----
    Its squared singular values follow MP(ratio 1, scale s): mean s, second moment 2s²,
    right edge 4s. This is the Gaussian stand-in of the prior model (i.i.d. scores,
    :func:`attnspec.iid_score_attention`), which is *not* the law of attention (paper 1's
    comparison, A4 §2): same mean, but a second moment smaller by cβ⁴ (this book's
    derivation, A4 §3).
    """
    ell = check_int("ell", ell, min=2)
    check_memory("ell", ell, 4 * ell * ell * 8)
    beta = check_beta(beta)
    rng = check_rng(rng)
    Z = rng.standard_normal((ell, ell))
    Z *= math.sqrt(total_variance(beta) / ell)
    return Z


@fill_docstring
def linear_model_with_noise(ell, d_qk, beta, noise_var, rng=None):
    r"""The linear model (βQKᵀ/√d_qk + √(noise_var) Z)/√ℓ with a chosen noise variance.

    Parameters
    ----------
    %(ell)s
    %(d_qk)s
    %(beta)s
    noise_var : float
        Noise variance ≥ 0. The Gaussian equivalence needs α² = e^{β²} − 1 − β²
        (:func:`attnspec.noise_variance`); e^{β²} − 1 is the classic mistake (A4 §2).
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
    check_memory("ell", ell, 4 * ell * ell * 8)
    d_qk = check_int("d_qk", d_qk, min=1)
    beta = check_beta(beta)
    noise_var = check_float("noise_var", noise_var, min=0)
    return _linear_model(ell, d_qk, beta, noise_var, check_rng(rng))
