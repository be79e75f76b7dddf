"""Hermite expansion of the exponential: s(β), α(β), α_n(β) of the Gaussian equivalence.

The centred exponential e^{βg − β²/2} of a standard Gaussian g has variance
s = e^{β²} − 1 (:func:`total_variance`), of which β² is linear and α² = s − β² is the rest
(:func:`attnspec.noise_variance`). Every module that needs s or α² calls these (A4 §2).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.polynomial.hermite_e import hermegauss, hermeval

from ._docstrings import fill_docstring
from ._validation import BETA_MAX, ParameterError, check_beta, check_int

__all__ = ["total_variance", "noise_variance", "alpha", "truncated_noise_variance",
           "hermite_coefficients", "hermite_he", "hermite_projection", "BETA_MAX"]

# Below this value of x = β², α² = e^x − 1 − x is summed as a series (see noise_variance).
_SERIES_BELOW = 0.5
_SERIES_TERMS = 24  # x^k/k! < 1e-17 · x²/2 for k ≥ 24 when x < 0.5


def _check_beta(beta):
    """Validate 0 < β ≤ BETA_MAX: a scalar gives a float, an array-like a float64 array."""
    if np.ndim(beta) == 0:
        return check_beta(beta if not isinstance(beta, np.ndarray) else beta.item())
    values = np.asarray(beta, dtype=np.float64)
    bad = ~(np.isfinite(values) & (values > 0) & (values <= BETA_MAX))
    if bad.any():
        index = tuple(int(i) for i in np.unravel_index(np.argmax(bad), values.shape))
        raise ParameterError(f"beta must contain only finite numbers > 0 and <= {BETA_MAX:g}; "
                             f"got beta={float(values[index])!r} at index {index}")
    return values


@fill_docstring
def total_variance(beta):
    r"""Total variance s = e^{β²} − 1 of the centred exponential (A4 §2).

    Parameters
    ----------
    %(beta_array)s

    Returns
    -------
    s : float or numpy.ndarray
        e^{β²} − 1 (float for a scalar β, float64 array otherwise).

    Notes
    -----
    :math:`s = \operatorname{Var} e^{\beta g - \beta^2/2} = e^{\beta^2} - 1 = \beta^2 + \alpha^2`
    for g ~ N(0, 1): the mean m₁ of every limit law of the book, the scale of the
    Marchenko–Pastur surrogate and the wrong noise variance of chapter 3. Computed as
    ``expm1(β²)``: no cancellation for small β, and the only rounding besides expm1's own
    (< 1 ulp) is that of β², which the exponential amplifies by β². Accuracy, for s a normal
    float (β ≥ 1.5e-154): relative error ≤ 3.5e-16 · max(1, β²), so ≤ 3.5e-16 for β ≤ 1 and
    ≤ 2.4e-13 at BETA_MAX (nothing is lost where β² is exact, e.g. β = 26). Below β ≈ 1.5e-154
    the true s ≈ β² (the next term, β⁴/2, is below 1e-600) is subnormal or 0, and the result
    is β² rounded once: within half a subnormal spacing (2.5e-324) of s, i.e. the correctly
    rounded value. Above BETA_MAX, s would overflow float64 and β is refused.

    Examples
    --------
    >>> abs(total_variance(1.0) - (math.e - 1)) < 1e-15
    True
    """
    beta = _check_beta(beta)
    if isinstance(beta, float):              # a scalar: numpy's expm1 as for an array (the C
        return float(np.expm1(beta * beta))  # library's may differ by an ulp where numpy
    return np.expm1(beta ** 2)               # uses its own SIMD kernels, e.g. AVX-512)


@fill_docstring
def noise_variance(beta):
    r"""Noise variance α² of the Gaussian equivalence (A4 §2).

    Parameters
    ----------
    %(beta_array)s

    Returns
    -------
    alpha2 : float or numpy.ndarray
        α² (float for a scalar β, float64 array otherwise).

    Notes
    -----
    The exponential has the Hermite expansion
    :math:`e^{\beta g-\beta^2/2} = \sum_{k\ge0} \beta^k \mathrm{He}_k(g)/k!`; the part of its
    variance beyond degree one is

    .. math:: \alpha^2 = \sum_{k\ge2} \frac{\beta^{2k}}{k!} = e^{\beta^2} - 1 - \beta^2 .

    It is computed as ``total_variance(β) − β²``; for β² < 0.5 that subtraction would lose digits
    (relative error ~ 2ε/β²), so the series is summed instead. Accuracy, for α² a normal float
    (β ≥ 1.5e-77): relative error ≤ 1e-15 · max(1, β²) (the rounding of β² is amplified by β²
    for large β, as in `total_variance`). Below, α² ≈ β⁴/2 is subnormal or 0 and the leading
    term β² · (β²/2) is rounded once: within half a subnormal spacing (2.5e-324) of α², up to
    the rounding of β² (relative 1.1e-16 of a number below 4.5e-308).

    Examples
    --------
    >>> round(noise_variance(1.0), 12)
    0.718281828459
    """
    beta = _check_beta(beta)
    x = beta * beta if isinstance(beta, float) else beta ** 2
    large = total_variance(beta) - x
    if isinstance(beta, float) and x >= _SERIES_BELOW:
        return large
    # series x²/2! + x³/3! + ... by Horner-like accumulation of the terms (for a scalar, the
    # same operations on Python floats)
    # x * (x / 2): one rounding also where the result is subnormal (x / 2 is exact, x normal);
    # in the normal range it equals (x * x) / 2 bit for bit
    term = x * (x / 2.0)
    series = 0.0 * x
    for k in range(3, _SERIES_TERMS + 3):
        series = series + term
        term = term * x / k
    return series if isinstance(beta, float) else np.where(x < _SERIES_BELOW, series, large)


def alpha(beta):
    r"""Noise amplitude α = √(e^{β²} − 1 − β²) of the linear model (A4 §2).

    Parameters
    ----------
    beta : float or array_like
        Inverse temperature 0 < β ≤ :data:`BETA_MAX`.

    Returns
    -------
    float or numpy.ndarray
        :math:`\alpha = \sqrt{e^{\beta^2}-1-\beta^2}` (see :func:`noise_variance`).

    Notes
    -----
    ``sqrt(noise_variance(β))`` while α² is a normal float; below (β < 1.5e-77, where α² ≈ β⁴/2
    underflows but α ≈ β²/√2 does not), α = β² √(1/2 + β²/6), the series' leading terms
    (the rest is below 1e-300 relative). Relative error ≤ 1e-15 · max(1, β²) wherever α is a
    normal float (β ≥ 1.8e-154); below, α is subnormal or 0 and within one subnormal spacing
    (4.9e-324) of the true value.

    Examples
    --------
    >>> round(alpha(1.0), 12)
    0.847515090402
    """
    alpha2 = noise_variance(beta)
    x = np.asarray(beta, dtype=np.float64) ** 2
    leading = x * np.sqrt(0.5 + x / 6.0)
    value = np.where(alpha2 >= np.finfo(np.float64).tiny, np.sqrt(alpha2), leading)
    return float(value) if np.ndim(value) == 0 else value


def truncated_noise_variance(beta, degree):
    r"""Noise variance α_n² of the truncation at Hermite degree n (A4 §2 and the table of §4).

    Parameters
    ----------
    beta : float
        Inverse temperature 0 < β ≤ :data:`BETA_MAX` (26, so that e^{β²} is a finite float64).
    degree : int
        The truncation degree n of A4 §4 and chapter 4, the highest Hermite degree kept, n ≥ 1
        (n = 1 keeps only the linear term: α_1² = 0). Named ``Q`` in version 0.1.0.

    Returns
    -------
    float
        :math:`\alpha_n^2 = \sum_{k=2}^{n} \beta^{2k}/k!`, which increases to
        :func:`noise_variance` as n → ∞.

    Examples
    --------
    >>> truncated_noise_variance(1.0, 3)  # 1/2 + 1/6
    0.6666666666666666
    """
    beta = check_beta(beta)
    degree = check_int("degree", degree, min=1)
    x = beta * beta
    total, term = 0.0, x  # term = x^k / k! at k = 1
    for k in range(2, degree + 1):
        term *= x / k
        total += term
    return total


def hermite_coefficients(beta, kmax):
    r"""Hermite coefficients βᵏ/k!, k = 0..kmax, of e^{βg − β²/2} (A4 §2).

    Parameters
    ----------
    beta : float
        Inverse temperature 0 < β ≤ :data:`BETA_MAX` (26, so that e^{β²} is a finite float64).
    kmax : int
        Highest degree, kmax ≥ 0.

    Returns
    -------
    numpy.ndarray
        float64 array ``c`` of length kmax + 1 with ``c[k]`` = βᵏ/k!, so that
        :math:`e^{\beta g-\beta^2/2} = \sum_k c_k \mathrm{He}_k(g)`. Built as a running product
        (c_k = c_{k−1} β/k), so no factorial overflows.

    Examples
    --------
    >>> hermite_coefficients(2.0, 3)
    array([1.        , 2.        , 2.        , 1.33333333])
    """
    beta = check_beta(beta)
    kmax = check_int("kmax", kmax, min=0)
    ratios = np.full(kmax + 1, beta, dtype=np.float64) / np.maximum(np.arange(kmax + 1), 1)
    ratios[0] = 1.0
    return np.cumprod(ratios)


def hermite_he(k, x):
    r"""Probabilists' Hermite polynomial Heₖ(x) (A4 §2).

    Parameters
    ----------
    k : int
        Degree, k ≥ 0.
    x : float or array_like
        Points; evaluated elementwise.

    Returns
    -------
    float or numpy.ndarray
        Heₖ(x) in float64 (``numpy.polynomial.hermite_e.hermeval``, Clenshaw's recurrence for
        :math:`\mathrm{He}_{j+1}(x) = x\,\mathrm{He}_j(x) - j\,\mathrm{He}_{j-1}(x)`).
        They are orthogonal under N(0, 1): E[Heⱼ(g) Heₖ(g)] = k! δⱼₖ.

    Examples
    --------
    >>> hermite_he(3, 2.0)  # x³ − 3x
    2.0
    """
    k = check_int("k", k, min=0)
    unit = np.zeros(k + 1)
    unit[k] = 1.0
    value = hermeval(np.asarray(x, dtype=np.float64), unit)
    return float(value) if np.ndim(value) == 0 else value


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
    For f(x) = e^{βx − β²/2} the exact answer is cₖ = βᵏ/k! (A4 §2).

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
        out[k] = np.dot(values, hermite_he(k, nodes)) / factorial
    return out
