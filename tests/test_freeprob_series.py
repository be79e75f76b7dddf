"""Tests of attnspec.freeprob.series: moment–cumulant maps and power-series arithmetic (MATH.md §3).

Oracles: closed forms (Catalan and Narayana numbers, geometric series), and round trips.
"""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from attnspec.freeprob.series import (free_cumulant_moments, free_cumulants, series_compose,
                                      series_product, series_reverse)
from attnspec.freeprob.transforms import mp_moment


def test_product_and_compose_of_geometric_series():
    """(1 − t)^{-1}·(1 − t)^{-1} = Σ (k + 1) t^k;  (1 − u)^{-1} at u = 2t is Σ 2^k t^k."""
    ones = np.ones(9)
    assert_allclose(series_product(ones, ones, 8), np.arange(1, 10))
    two_t = np.array([0.0, 2.0])
    assert_allclose(series_compose(ones, two_t, 8), 2.0 ** np.arange(9))


def test_reverse_of_t_over_one_minus_t():
    """t/(1 − t) = t + t² + … has inverse t/(1 + t) = Σ (−1)^{k−1} t^k."""
    f = np.r_[0.0, np.ones(10)]
    expected = np.r_[0.0, (-1.0) ** np.arange(10)]
    assert_allclose(series_reverse(f, 10), expected, atol=1e-14)


def test_reverse_composes_to_identity():
    """f(g(t)) = t and g(f(t)) = t up to t^n for a generic series with f₁ ≠ 1."""
    rng = np.random.default_rng(0)
    f = np.r_[0.0, 0.7, rng.normal(size=9)]
    g = series_reverse(f, 10)
    identity = np.r_[0.0, 1.0, np.zeros(9)]
    assert_allclose(series_compose(f, g, 10), identity, atol=1e-11)
    assert_allclose(series_compose(g, f, 10), identity, atol=1e-11)


def test_free_cumulants_of_semicircle_and_marchenko_pastur():
    """Catalan moments are the semicircle (κ₂ = 1, else 0); the Narayana moments of MP(λ)
    (``mp_moment``, an independent closed form) have κ_k = λ^{k−1} (to rounding of the
    moments: κ_k is a cancelling sum of terms of size m_k)."""
    catalan = [0.0 if k % 2 else math.comb(k, k // 2) / (k // 2 + 1) for k in range(1, 13)]
    assert_allclose(free_cumulants(catalan, 12), np.eye(12)[1], atol=1e-12)
    lam = 0.37
    moments = [mp_moment(k, lam) for k in range(1, 11)]
    error = np.abs(free_cumulants(moments, 10) - lam ** np.arange(10))
    assert np.all(error <= 1e-14 * np.array(moments)), error


@pytest.mark.parametrize("seed", [1, 2])
def test_cumulants_and_moments_round_trip(seed):
    """free_cumulants inverts free_cumulant_moments."""
    kappa = np.random.default_rng(seed).uniform(-1, 1, size=8)
    moments = free_cumulant_moments(kappa, 8)[1:]
    assert_allclose(free_cumulants(moments, 8), kappa, rtol=1e-10, atol=1e-12)
