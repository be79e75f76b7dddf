"""Tests of attnspec.freeprob.subordination: Cauchy transforms, R-transforms, subordination."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

import attnspec
from attnspec.freeprob import subordination


def _semicircle_pdf(x, var):
    return np.sqrt(np.maximum(4 * var - x**2, 0.0)) / (2 * np.pi * var)


def test_cauchy_transform_of_one_point_and_of_a_semicircle_sample():
    """G of δ_a is 1/(z − a); a large semicircle sample matches the closed form."""
    assert subordination.cauchy_transform([2.0], 1j) == pytest.approx(1 / (1j - 2.0))
    z = np.array([0.5 + 1j, -1 + 0.5j, 3j])
    sample = attnspec.Semicircle(1.0).ppf((np.arange(20000) + 0.5) / 20000)
    exact = (z - np.sqrt(z - 2) * np.sqrt(z + 2)) / 2
    assert_allclose(subordination.cauchy_transform(sample, z), exact, atol=1e-4)
    assert np.all(subordination.cauchy_transform(sample, z).imag < 0)


@pytest.mark.parametrize("var", [0.5, 1.0, 3.0])
def test_density_from_r_transform_of_the_semicircle(var):
    """R(g) = σ²g gives the semicircle density (≤ 1e-4 absolute, the edge ladder limit)."""
    x = np.linspace(-3 * math.sqrt(var), 3 * math.sqrt(var), 301)
    assert_allclose(subordination.density_from_r_transform(lambda g: var * g, x), _semicircle_pdf(x, var),
                    atol=1e-4 / math.sqrt(var))


@pytest.mark.parametrize("ratio", [0.25, 0.5, 0.9])
def test_density_from_r_transform_of_marchenko_pastur(ratio):
    """R(g) = 1/(1 − λg) gives MarchenkoPastur(λ) away from the edges to 1e-7."""
    law = attnspec.MarchenkoPastur(ratio, 1.0)
    lo, hi = law.support()
    x = np.linspace(lo, hi, 203)[1:-1]
    assert_allclose(subordination.density_from_r_transform(lambda g: 1 / (1 - ratio * g), x, scale=hi),
                    law.pdf(x), rtol=1e-6, atol=1e-7)


def test_density_from_r_transform_accepts_an_exact_derivative():
    """Passing dR gives the same answer as the finite difference."""
    x = np.linspace(-1.9, 1.9, 21)
    assert_allclose(subordination.density_from_r_transform(lambda g: g, x, dR=lambda g: np.ones_like(g)),
                    subordination.density_from_r_transform(lambda g: g, x), rtol=1e-9, atol=1e-12)


def test_subordination_with_a_point_mass_is_a_shifted_semicircle():
    """δ_a ⊞ SC(σ²) = SC(σ²) shifted by a."""
    x = np.linspace(-1, 4, 201)
    assert_allclose(subordination.semicircle_subordination_density([1.5], 0.6, x),
                    _semicircle_pdf(x - 1.5, 0.6), atol=1e-4)


def test_subordination_two_point_law_has_the_right_mass_and_variance():
    """½(δ₋₁ + δ₁) ⊞ SC(0.3): mass 1, second moment 1 + 0.3 (free cumulants add)."""
    x = np.linspace(-3, 3, 6001)
    rho = subordination.semicircle_subordination_density([-1.0, 1.0], 0.3, x)
    dx = x[1] - x[0]
    assert abs(np.sum(rho) * dx - 1) < 1e-3
    assert abs(np.sum(rho * x**2) * dx - 1.3) < 2e-3


def test_subordination_matches_singular_values_of_information_plus_noise():
    """Squared singular values of D + σZ/√n follow sym(D) ⊞ SC(σ²) (KS < 0.02, n = 500)."""
    n, var = 500, 0.5
    d = np.where(np.arange(n) < n // 2, 1.0, 2.5)
    rng = np.random.default_rng(10)
    s2 = attnspec.squared_singular_values(np.diag(d) + math.sqrt(var / n) * rng.standard_normal((n, n)))
    t = np.linspace(1e-6, 1.05 * s2.max(), 3000)
    rho = subordination.semicircle_subordination_density(np.concatenate([d, -d]), var, np.sqrt(t)) / np.sqrt(t)
    cdf = np.concatenate([[0.0], np.cumsum(0.5 * (rho[1:] + rho[:-1]) * np.diff(t))])
    assert attnspec.ks_distance(s2, lambda y: np.interp(y, t, cdf)) < 0.02


def test_subordination_errors_name_the_problem():
    """Empty atoms and bad weights are refused."""
    with pytest.raises(ValueError, match="atoms must be a non-empty"):
        subordination.semicircle_subordination_density([], 1.0, [0.0])
    with pytest.raises(ValueError, match="weights must be non-negative"):
        subordination.semicircle_subordination_density([0.0, 1.0], 1.0, [0.0], weights=[1.0])


def test_tabulated_cdf_of_a_uniform_density():
    """The trapezoid CDF of the uniform density on [0, 2] is y/2 with mass 1."""
    cdf, mass = subordination.tabulated_cdf(np.linspace(0, 2, 5), np.full(5, 0.5))
    assert mass == pytest.approx(1.0)
    assert_allclose(cdf(np.array([-1.0, 0.5, 1.0, 3.0])), [0.0, 0.25, 0.5, 1.0])
    with pytest.raises(ValueError, match="increasing grid"):
        subordination.tabulated_cdf([0.0, 0.0], [1.0, 1.0])
