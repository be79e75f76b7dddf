"""Tests of attnspec.background: ensembles, Hermite projection, kernels, free-probability solvers."""

import math
import re

import numpy as np
import pytest
from numpy.testing import assert_allclose

import attnspec
from attnspec import hermite
from attnspec.experiments import coupling
from attnspec.freeprob import subordination
from attnspec.sampling import ensembles, equivalents


def _semicircle_pdf(x, var):
    return np.sqrt(np.maximum(4 * var - x**2, 0.0)) / (2 * np.pi * var)


# ---------------------------------------------------------------------------------------------
# ensembles


def test_wigner_is_symmetric_with_the_stated_entry_variances():
    """Off-diagonal entries have variance var/n, diagonal 2 var/n."""
    n, var = 400, 2.0
    W = ensembles.wigner(n, var, rng=0)
    assert_allclose(W, W.T, rtol=0, atol=0)
    off = W[np.triu_indices(n, 1)] * math.sqrt(n / var)
    assert abs(off.var() - 1.0) < 0.02
    assert abs((W.diagonal() * math.sqrt(n / var)).var() - 2.0) < 0.4


def test_wigner_eigenvalues_follow_the_semicircle_law():
    """KS distance to Semicircle(var) is at the finite-n level (< 0.02 at n = 600)."""
    eig = np.linalg.eigvalsh(ensembles.wigner(600, 0.5, rng=1))
    assert attnspec.ks_distance(eig, attnspec.Semicircle(0.5)) < 0.02


def test_haar_orthogonal_is_orthogonal_and_seeded():
    """O Oᵀ = I to rounding; same seed, same bytes."""
    O = ensembles.haar_orthogonal(50, rng=3)
    assert_allclose(O @ O.T, np.eye(50), rtol=0, atol=1e-13)
    np.testing.assert_array_equal(O, ensembles.haar_orthogonal(50, rng=3))


def test_haar_orthogonal_entries_are_gaussian_on_the_sqrt_n_scale():
    """√n O_ij are approximately N(0, 1) (sign fix included: mean of the diagonal is ~0)."""
    n = 300
    O = ensembles.haar_orthogonal(n, rng=4)
    assert abs(np.mean(O.diagonal()) * math.sqrt(n)) < 0.3  # no positive bias from QR signs
    assert abs(np.mean((math.sqrt(n) * O) ** 2) - 1.0) < 1e-12


@pytest.mark.parametrize("coupling", ensembles.COUPLINGS)
def test_free_sum_keeps_the_trace(coupling):
    """Every coupling has trace tr A + tr B."""
    a = np.linspace(-1, 1, 200)
    b = np.linspace(0, 2, 200) ** 2
    eig = ensembles.free_sum_eigenvalues(a, b, rng=5, coupling=coupling)
    assert eig.shape == (200,)
    assert np.all(np.diff(eig) >= 0)
    assert_allclose(eig.sum(), a.sum() + b.sum(), rtol=1e-12)


def test_free_sum_aligned_and_independent_are_exact_classical_sums():
    """Aligned adds sorted values; independent adds a permutation of b."""
    a, b = np.array([3.0, 1.0, 2.0]), np.array([10.0, 30.0, 20.0])
    assert_allclose(ensembles.free_sum_eigenvalues(a, b, coupling="aligned"), [11, 22, 33])
    eig = ensembles.free_sum_eigenvalues(a, b, rng=0, coupling="independent")
    assert sorted(np.round(eig - np.sort(eig), 12)) == [0, 0, 0]
    assert set(np.round(eig).astype(int)) <= {a_ + b_ for a_ in (1, 2, 3) for b_ in (10, 20, 30)}


def test_free_sum_of_semicircles_is_a_semicircle_with_added_variances():
    """SC(1) ⊞ SC(0.5) = SC(1.5) (KS < 0.02 at n = 800), classical sum is not (KS > 0.025)."""
    rng = np.random.default_rng(6)
    a = np.linalg.eigvalsh(ensembles.wigner(800, 1.0, rng))
    b = np.linalg.eigvalsh(ensembles.wigner(800, 0.5, rng))
    target = attnspec.Semicircle(1.5)
    assert attnspec.ks_distance(ensembles.free_sum_eigenvalues(a, b, rng, coupling="free"), target) < 0.02
    classical = ensembles.free_sum_eigenvalues(a, b, rng, coupling="independent")
    assert attnspec.ks_distance(classical, target) > 0.025


def test_free_sum_errors_name_the_problem():
    """Mismatched lengths and unknown couplings are refused with named errors."""
    with pytest.raises(ValueError, match=re.escape("got lengths 2 and 3")):
        ensembles.free_sum_eigenvalues([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match=re.escape("coupling must be one of 'free'")):
        ensembles.free_sum_eigenvalues([1, 2], [1, 2], coupling="tensor")


# ---------------------------------------------------------------------------------------------
# Hermite projection and kernels


@pytest.mark.parametrize("beta", [0.3, 1.0, 1.7])
def test_hermite_projection_of_the_exponential_is_beta_k_over_k_factorial(beta):
    """Quadrature reproduces βᵏ/k! (attnspec.hermite_coefficients) to 1e-12."""
    quad = hermite.hermite_projection(lambda g: np.exp(beta * g - beta**2 / 2), 10)
    assert_allclose(quad, attnspec.hermite_coefficients(beta, 10), rtol=1e-11, atol=1e-14)


def test_hermite_projection_of_a_polynomial_is_exact():
    """x⁴ = He₄ + 6 He₂ + 3."""
    assert_allclose(hermite.hermite_projection(lambda x: x**4, 5), [3, 0, 6, 0, 1, 0], atol=1e-12)


def test_hermite_variance_splits_into_linear_and_noise():
    """Σ_k k! c_k² over k ≥ 2 equals α² = e^{β²} − 1 − β² (Parseval)."""
    beta = 1.2
    c = hermite.hermite_projection(lambda g: np.exp(beta * g - beta**2 / 2), 40)
    k = np.arange(41)
    factorials = np.array([math.factorial(int(j)) for j in k], dtype=float)
    assert_allclose(np.sum(factorials[2:] * c[2:] ** 2), attnspec.noise_variance(beta),
                    rtol=1e-10)
    assert_allclose(c[1], beta, rtol=1e-12)


def test_inner_product_kernel_matches_its_definition():
    """Entries f(xᵢᵀxⱼ/√p)/√n off the diagonal, zeros on it, symmetric."""
    rng = np.random.default_rng(7)
    X = rng.standard_normal((5, 8))
    K = ensembles.inner_product_kernel(X, np.tanh)
    for i in range(5):
        for j in range(5):
            want = 0.0 if i == j else math.tanh(X[i] @ X[j] / math.sqrt(8)) / math.sqrt(5)
            assert_allclose(K[i, j], want, rtol=1e-13, atol=1e-15)


def test_kernel_equivalent_without_noise_is_the_linear_part():
    """noise_var = 0 gives a₁ · (kernel of the identity)."""
    X = np.random.default_rng(8).standard_normal((30, 60))
    assert_allclose(ensembles.kernel_gaussian_equivalent(X, 1.5, 0.0),
                    1.5 * ensembles.inner_product_kernel(X, lambda x: x), rtol=1e-13, atol=1e-15)


@pytest.mark.slow
def test_kernel_matrix_and_its_equivalent_have_the_same_spectrum():
    """f(x) = e^{x − 1/2} − 1, n = 800, n/p = 1/2: KS(kernel, equivalent) < 0.03, both close
    to the density from the R-transform (KS < 0.03), and far from the pure-noise Wigner law."""
    beta, n, p = 1.0, 800, 1600
    rng = np.random.default_rng(9)
    X = rng.standard_normal((n, p))
    kernel = np.linalg.eigvalsh(ensembles.inner_product_kernel(X, lambda x: np.exp(x - 0.5) - 1))
    equivalent = np.linalg.eigvalsh(
        ensembles.kernel_gaussian_equivalent(X, beta, attnspec.noise_variance(beta), rng))
    assert attnspec.ks_distance(kernel, equivalent) < 0.03
    lam = n / p
    x = np.linspace(-4, 5, 2001)
    rho = subordination.density_from_r_transform(
        lambda g: g / (1 - math.sqrt(lam) * g) + attnspec.noise_variance(beta) * g, x)
    cdf = np.concatenate([[0.0], np.cumsum(0.5 * (rho[1:] + rho[:-1]) * np.diff(x))])
    assert abs(cdf[-1] - 1) < 1e-3
    F = lambda y: np.interp(y, x, cdf)
    assert attnspec.ks_distance(kernel, F) < 0.03
    assert attnspec.ks_distance(equivalent, F) < 0.02
    assert attnspec.ks_distance(kernel, attnspec.Semicircle(math.expm1(1.0))) > 0.03


# ---------------------------------------------------------------------------------------------
# Cauchy transforms and solvers


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


# ---------------------------------------------------------------------------------------------
# the linear model with any noise


def test_linear_model_with_the_right_noise_is_linear_equivalent():
    """noise_var = α² and the same seed reproduce attnspec.linear_equivalent exactly."""
    beta = 1.3
    np.testing.assert_array_equal(
        equivalents.linear_model_with_noise(40, 30, beta, attnspec.noise_variance(beta), rng=11),
        attnspec.linear_equivalent(40, 30, beta, rng=11))


def test_linear_model_with_the_wrong_noise_has_the_wrong_mean():
    """With noise e^{β²} − 1 the mean squared singular value is s + β², not s."""
    beta, ell = 1.0, 400
    s = math.expm1(beta**2)
    Y = equivalents.linear_model_with_noise(ell, ell, beta, s, rng=12)
    m1 = attnspec.squared_singular_values(Y).mean()
    assert abs(m1 - (s + beta**2)) < 0.05


def test_linear_model_with_noise_validates():
    """Negative noise variance is refused by name."""
    with pytest.raises(ValueError, match=re.escape("noise_var must be a finite number >= 0")):
        equivalents.linear_model_with_noise(10, 10, 1.0, -1.0)


def test_tabulated_cdf_of_a_uniform_density():
    """The trapezoid CDF of the uniform density on [0, 2] is y/2 with mass 1."""
    cdf, mass = subordination.tabulated_cdf(np.linspace(0, 2, 5), np.full(5, 0.5))
    assert mass == pytest.approx(1.0)
    assert_allclose(cdf(np.array([-1.0, 0.5, 1.0, 3.0])), [0.0, 0.25, 0.5, 1.0])
    with pytest.raises(ValueError, match="increasing grid"):
        subordination.tabulated_cdf([0.0, 0.0], [1.0, 1.0])


def test_coupled_spectra_share_their_scores():
    """The three spectra come from one Q, K: seeded, sorted, and equal to the direct calls."""
    out = coupling.coupled_spectra(60, 40, 1.0, rng=13)
    assert sorted(out) == ["linear", "softmax", "wrong"]
    seed = int(np.random.default_rng(13).integers(2**63))
    np.testing.assert_array_equal(out["softmax"], attnspec.squared_singular_values(
        attnspec.centered(attnspec.softmax_attention(60, 40, 1.0, rng=seed))))
    np.testing.assert_array_equal(out["linear"], attnspec.squared_singular_values(
        attnspec.linear_equivalent(60, 40, 1.0, rng=seed)))
    assert all(np.all(np.diff(v) <= 0) for v in out.values())
    # the wrong model adds beta^2 to the mean
    assert out["wrong"].mean() > out["linear"].mean() + 0.5
