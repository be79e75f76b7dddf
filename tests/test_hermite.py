"""Tests of attnspec.hermite against Gauss–Hermite quadrature, numpy and mpmath oracles."""

import math
import re
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from numpy.polynomial.hermite_e import hermeval, hermegauss
from numpy.testing import assert_allclose

from attnspec.hermite import (BETA_MAX, alpha, hermite_coefficients, hermite_he,
                              hermite_projection, noise_variance, total_variance,
                              truncated_noise_variance)

BETAS = [0.3, 1.0, 1.5, 2.0]

# Gauss–Hermite_e rule (weight e^{-x²/2}); with 120 nodes it integrates e^{βx}·polynomial of
# moderate degree against N(0, 1) to ~1e-15 for β ≤ 2.
NODES, WEIGHTS = hermegauss(120)
WEIGHTS = WEIGHTS / math.sqrt(2 * math.pi)


def gaussian_expectation(values):
    """E[f(g)], g ~ N(0, 1), from values f(NODES) (the independent quadrature oracle)."""
    return np.sum(WEIGHTS * values, axis=-1)


def quadrature_coefficients(beta, kmax):
    """c_k = E[e^{βg − β²/2} He_k(g)]/k! by quadrature, He_k from numpy's hermeval."""
    f = np.exp(beta * NODES - beta**2 / 2)
    he = np.array([hermeval(NODES, np.eye(kmax + 1)[k]) for k in range(kmax + 1)])
    return gaussian_expectation(f * he) / np.array([math.factorial(k) for k in range(kmax + 1)])


@pytest.mark.parametrize("beta", BETAS, ids=lambda b: f"beta={b}")
def test_coefficients_match_quadrature(beta):
    """βᵏ/k! equals the quadrature projection of e^{βg−β²/2} on Heₖ."""
    assert_allclose(hermite_coefficients(beta, 12), quadrature_coefficients(beta, 12),
                    rtol=1e-11, atol=1e-14)


@pytest.mark.parametrize("beta", BETAS, ids=lambda b: f"beta={b}")
def test_noise_variance_matches_quadrature(beta):
    """α² = Var(e^{βg−β²/2}) − β² computed by quadrature."""
    f = np.exp(beta * NODES - beta**2 / 2)
    variance = gaussian_expectation(f**2) - gaussian_expectation(f) ** 2
    assert_allclose(noise_variance(beta), variance - beta**2, rtol=1e-12)


@pytest.mark.parametrize("beta", [1e-8, 1e-4, 0.01, 0.3, 0.7, 0.708, 1.0, 3.0, 10.0],
                         ids=lambda b: f"beta={b}")
def test_noise_variance_full_relative_accuracy(beta):
    """α² = e^{β²} − 1 − β² to 1e-14 relative, also at tiny β (mpmath reference, 50 digits)."""
    with mpmath.workdps(50):
        b2 = mpmath.mpf(beta) ** 2
        reference = float(mpmath.exp(b2) - 1 - b2)
    assert_allclose(noise_variance(beta), reference, rtol=1e-14)
    assert_allclose(alpha(beta), math.sqrt(reference), rtol=1e-14)


def test_noise_variance_vectorised():
    """An array of β gives the elementwise values; a scalar gives a float."""
    betas = np.array([0.1, 0.5, 1.0, 2.0])
    assert_allclose(noise_variance(betas), [noise_variance(b) for b in betas], rtol=1e-15)
    assert isinstance(noise_variance(1.0), float) and isinstance(alpha(1.0), float)


@pytest.mark.parametrize("beta", BETAS, ids=lambda b: f"beta={b}")
def test_truncated_variance_matches_quadrature(beta):
    """α_Q² = Σ_{k=2}^{Q} k! c_k² with c_k from quadrature; increases to α²."""
    c = quadrature_coefficients(beta, 8)
    factorials = np.array([math.factorial(k) for k in range(9)])
    for Q in (1, 2, 3, 8):
        expected = np.sum(factorials[2:Q + 1] * c[2:Q + 1] ** 2)
        assert_allclose(truncated_noise_variance(beta, Q), expected, rtol=1e-11, atol=1e-15)
    assert truncated_noise_variance(beta, 1) == 0.0
    assert_allclose(truncated_noise_variance(beta, 80), noise_variance(beta), rtol=1e-14)


def explicit_he_terms(k, x):
    """Terms k! (−1)^m x^{k−2m} / (m! (k−2m)! 2^m) of Heₖ(x), in exact rational arithmetic."""
    x = Fraction(x)
    return [Fraction((-1) ** m * math.factorial(k),
                     math.factorial(m) * math.factorial(k - 2 * m) * 2 ** m) * x ** (k - 2 * m)
            for m in range(k // 2 + 1)]


@pytest.mark.parametrize("k", range(0, 13), ids=lambda k: f"k={k}")
def test_hermite_he_matches_the_explicit_sum(k):
    """Heₖ equals its explicit sum, evaluated exactly (an oracle independent of numpy's
    recurrence), to 1e-13 of the size of the largest term at each point."""
    x = np.linspace(-6, 6, 49)
    terms = [explicit_he_terms(k, v) for v in x]
    expected = np.array([float(sum(ts)) for ts in terms])
    size = np.array([float(max(abs(v) for v in ts)) for ts in terms])
    assert np.all(np.abs(hermite_he(k, x) - expected) <= 1e-13 * size + 1e-300)


def test_hermite_he_orthogonality():
    """E[Heⱼ(g) Heₖ(g)] = k! δⱼₖ under N(0, 1), by quadrature."""
    he = np.array([hermite_he(k, NODES) for k in range(8)])
    gram = gaussian_expectation(he[:, None, :] * he[None, :, :])
    assert_allclose(gram, np.diag([math.factorial(k) for k in range(8)]), atol=1e-9)
    assert hermite_he(3, 2.0) == 2.0 and isinstance(hermite_he(0, 1.5), float)


BAD_BETA = [0.0, -1.0, float("nan"), float("inf")]


@pytest.mark.parametrize("beta", BAD_BETA, ids=["zero", "negative", "nan", "inf"])
@pytest.mark.parametrize("function", [
    total_variance, noise_variance, alpha, lambda b: truncated_noise_variance(b, 3),
    lambda b: hermite_coefficients(b, 3)],
    ids=["total_variance", "noise_variance", "alpha", "truncated", "coefficients"])
def test_bad_beta_raises(function, beta):
    """β ≤ 0, above BETA_MAX or not finite raises ValueError naming beta and the range."""
    message = (f"beta must be a finite number > 0 and <= {BETA_MAX:g} (so that e^(beta^2) is "
               f"a finite float64); got beta={beta!r}")
    with pytest.raises(ValueError, match=re.escape(message)):
        function(beta)


@pytest.mark.parametrize("call, message", [
    (lambda: noise_variance([1.0, -2.0]),
     "beta must contain only finite numbers > 0 and <= 26; got beta=-2.0"),
    (lambda: truncated_noise_variance(1.0, 0), "degree must be an integer >= 1; got degree=0"),
    (lambda: hermite_coefficients(1.0, -1), "kmax must be an integer >= 0; got kmax=-1"),
    (lambda: hermite_he(-1, 0.0), "k must be an integer >= 0; got k=-1"),
    (lambda: hermite_he(2.5, 0.0), "k must be an integer; got k=2.5"),
], ids=["beta-array", "Q", "kmax", "k-negative", "k-float"])
def test_bad_orders_raise(call, message):
    """Bad degrees and bad β arrays raise ValueError naming the parameter and the value."""
    with pytest.raises(ValueError, match=re.escape(message)):
        call()



@pytest.mark.parametrize("beta", [1e-8, 1e-3, 0.3, 1.0, 2.0, 5.0, 20.0, BETA_MAX])
def test_total_variance_against_mpmath(beta):
    """s = e^{β²} − 1 to 1e-15 relative, also where e^{β²} − 1 cancels (tiny β)."""
    with mpmath.workdps(50):
        expected = float(mpmath.expm1(mpmath.mpf(beta) ** 2))
    assert total_variance(beta) == pytest.approx(expected, rel=1e-15)
    assert total_variance(beta) == pytest.approx(noise_variance(beta) + beta * beta, rel=1e-14)


def test_total_variance_is_elementwise_and_refuses_beta_above_its_domain():
    """Arrays evaluate elementwise; β > BETA_MAX (s overflows float64) is refused, by
    noise_variance too."""
    betas = np.array([[0.5, 1.0], [2.0, 3.0]])
    assert_allclose(total_variance(betas), [[total_variance(b) for b in row] for row in betas],
                    rtol=0)
    message = (f"beta must be a finite number > 0 and <= {BETA_MAX:g} (so that e^(beta^2) is a "
               "finite float64); got beta=27.0")
    with pytest.raises(ValueError, match=re.escape(message)):
        total_variance(27.0)
    with pytest.raises(ValueError, match="at index \\(1,\\)"):
        total_variance([1.0, 27.0])
    with pytest.raises(ValueError, match="beta"):
        noise_variance(30.0)
    assert math.isfinite(total_variance(BETA_MAX))


@pytest.mark.parametrize("beta", [0.3, 1.0, 1.7])
def test_hermite_projection_of_the_exponential_is_beta_k_over_k_factorial(beta):
    """Quadrature reproduces βᵏ/k! (attnspec.hermite_coefficients) to 1e-12."""
    quad = hermite_projection(lambda g: np.exp(beta * g - beta**2 / 2), 10)
    assert_allclose(quad, hermite_coefficients(beta, 10), rtol=1e-11, atol=1e-14)


def test_hermite_projection_of_a_polynomial_is_exact():
    """x⁴ = He₄ + 6 He₂ + 3."""
    assert_allclose(hermite_projection(lambda x: x**4, 5), [3, 0, 6, 0, 1, 0], atol=1e-12)


def test_hermite_variance_splits_into_linear_and_noise():
    """Σ_k k! c_k² over k ≥ 2 equals α² = e^{β²} − 1 − β² (Parseval)."""
    beta = 1.2
    c = hermite_projection(lambda g: np.exp(beta * g - beta**2 / 2), 40)
    k = np.arange(41)
    factorials = np.array([math.factorial(int(j)) for j in k], dtype=float)
    assert_allclose(np.sum(factorials[2:] * c[2:] ** 2), noise_variance(beta),
                    rtol=1e-10)
    assert_allclose(c[1], beta, rtol=1e-12)


TINY = np.finfo(np.float64).tiny  # smallest normal float
HALF_SUBNORMAL = mpmath.mpf(2) ** -1075  # half the spacing of the subnormal floats


@pytest.mark.parametrize("beta", [1e-300, 1e-200, 1e-160, 1e-78, 1e-3, 1.0, 23.771859307842583,
                                  26.0], ids=lambda b: f"beta={b:g}")
@pytest.mark.parametrize("name", ["total_variance", "noise_variance"])
def test_variances_over_the_whole_domain_against_mpmath(name, beta):
    """The documented accuracy, everywhere: relative ≤ 3.5e-16 · max(1, β²) for s (1e-15 ·
    max(1, β²) for α²) where the true value is a normal float; below it, within half a
    subnormal spacing of the true value (β² underflows to a subnormal or 0 like the value
    itself). 1e-78 makes α² subnormal, 1e-160 makes s subnormal and α² zero; 23.77... has an
    inexact β² (the case where the exponential amplifies its rounding)."""
    function, rtol = {"total_variance": (total_variance, 3.5e-16),
                      "noise_variance": (noise_variance, 1e-15)}[name]
    with mpmath.workprec(3000):  # α² at β = 1e-300 is 1e-1200 below β²: cancels 4000 bits
        b2 = mpmath.mpf(beta) ** 2
        exact = mpmath.expm1(b2) if name == "total_variance" else (
            mpmath.expm1(b2) - b2 if b2 > 1e-100 else b2 ** 2 / 2 * (1 + b2 / 3))
        got = function(beta)
        assert got >= 0 and math.isfinite(got)
        if exact >= TINY:
            assert abs(mpmath.mpf(got) - exact) <= rtol * max(1.0, beta**2) * exact
        else:
            assert abs(mpmath.mpf(got) - exact) <= HALF_SUBNORMAL * (1 + 1e-9)


@pytest.mark.parametrize("beta", [1e-300, 1e-200, 1e-160, 1e-100, 1e-78, 1e-3, 1.0, 26.0],
                         ids=lambda b: f"beta={b:g}")
def test_alpha_where_its_square_underflows(beta):
    """α = √(e^{β²} − 1 − β²) ≈ β²/√2 is a normal float down to β ≈ 1.8e-154 although α²
    underflows below β ≈ 1.5e-77: relative ≤ 1e-15 · max(1, β²) there, within one subnormal
    spacing below (mpmath reference from the series)."""
    with mpmath.workprec(3000):
        b2 = mpmath.mpf(beta) ** 2
        exact = mpmath.sqrt(mpmath.expm1(b2) - b2 if b2 > 1e-100
                            else b2 ** 2 / 2 * (1 + b2 / 3))
        got = alpha(beta)
        if exact >= TINY:
            assert abs(mpmath.mpf(got) - exact) <= 1e-15 * max(1.0, beta**2) * exact
        else:
            assert abs(mpmath.mpf(got) - exact) <= 2 * HALF_SUBNORMAL
    assert alpha(np.array([beta, 1.0]))[0] == got


def test_scalar_and_array_paths_agree_bit_for_bit():
    """A scalar β takes Python-float arithmetic (math.expm1 and the series on floats), an
    array numpy's: the same operations, so the same bits, over the whole domain, at the
    switch to the series (β² = 0.5) and for 0-d arrays; the types follow scipy's rule."""
    betas = np.concatenate([np.geomspace(1e-300, BETA_MAX, 4001), np.linspace(0.6, 0.8, 401),
                            [math.sqrt(0.5), np.nextafter(math.sqrt(0.5), 0), BETA_MAX]])
    for function in (total_variance, noise_variance, alpha):
        scalar = np.array([function(float(b)) for b in betas])
        zero_d = np.array([function(np.array(b)) for b in betas[::50]])
        np.testing.assert_array_equal(scalar, function(betas))
        np.testing.assert_array_equal(zero_d, scalar[::50])
        assert type(function(1.0)) is float and type(function(np.float64(1.0))) is float
