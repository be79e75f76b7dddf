"""Tests of attnspec.hermite against Gauss–Hermite quadrature, numpy and mpmath oracles."""

import math
import re

import mpmath
import numpy as np
import pytest
from numpy.polynomial.hermite_e import hermeval, hermegauss
from numpy.testing import assert_allclose

from attnspec.hermite import (alpha, hermite_coefficients, hermite_he, noise_variance,
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


@pytest.mark.parametrize("k", range(0, 11), ids=lambda k: f"k={k}")
def test_hermite_he_matches_numpy(k):
    """The recurrence equals numpy.polynomial.hermite_e.hermeval with a unit coefficient."""
    x = np.linspace(-6, 6, 49)
    assert_allclose(hermite_he(k, x), hermeval(x, np.eye(k + 1)[k]), rtol=1e-12, atol=1e-9)


def test_hermite_he_orthogonality():
    """E[Heⱼ(g) Heₖ(g)] = k! δⱼₖ under N(0, 1), by quadrature."""
    he = np.array([hermite_he(k, NODES) for k in range(8)])
    gram = gaussian_expectation(he[:, None, :] * he[None, :, :])
    assert_allclose(gram, np.diag([math.factorial(k) for k in range(8)]), atol=1e-9)
    assert hermite_he(3, 2.0) == 2.0 and isinstance(hermite_he(0, 1.5), float)


BAD_BETA = [(0.0, "beta must be a finite number > 0 and <= 26 (so that e^(beta^2) is a finite float64); got beta=0.0"),
            (-1.0, "beta must be a finite number > 0 and <= 26 (so that e^(beta^2) is a finite float64); got beta=-1.0"),
            (float("nan"), "beta must be a finite number > 0 and <= 26 (so that e^(beta^2) is a finite float64); got beta=nan"),
            (float("inf"), "beta must be a finite number > 0 and <= 26 (so that e^(beta^2) is a finite float64); got beta=inf")]


@pytest.mark.parametrize("beta, message", BAD_BETA, ids=["zero", "negative", "nan", "inf"])
@pytest.mark.parametrize("function", [noise_variance, alpha,
                                      lambda b: truncated_noise_variance(b, 3),
                                      lambda b: hermite_coefficients(b, 3)],
                         ids=["noise_variance", "alpha", "truncated", "coefficients"])
def test_bad_beta_raises(function, beta, message):
    """β ≤ 0 or not finite raises ValueError naming beta and the allowed range."""
    with pytest.raises(ValueError, match=re.escape(message)):
        function(beta)


@pytest.mark.parametrize("call, message", [
    (lambda: noise_variance([1.0, -2.0]),
     "beta must contain only finite numbers > 0 and <= 26; got beta=-2.0"),
    (lambda: truncated_noise_variance(1.0, 0), "Q must be an integer >= 1; got Q=0"),
    (lambda: hermite_coefficients(1.0, -1), "kmax must be an integer >= 0; got kmax=-1"),
    (lambda: hermite_he(-1, 0.0), "k must be an integer >= 0; got k=-1"),
    (lambda: hermite_he(2.5, 0.0), "k must be an integer; got k=2.5"),
], ids=["beta-array", "Q", "kmax", "k-negative", "k-float"])
def test_bad_orders_raise(call, message):
    """Bad degrees and bad β arrays raise ValueError naming the parameter and the value."""
    with pytest.raises(ValueError, match=re.escape(message)):
        call()
