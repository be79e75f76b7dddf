"""Tests of attnspec.sampling.ensembles: Wigner, Haar, free sums, kernel matrices."""

import math
import re

import numpy as np
import pytest
import scipy.stats
from numpy.testing import assert_allclose

import attnspec
from attnspec.experiments import coupling
from attnspec.freeprob import subordination
from attnspec.sampling import ensembles


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


def test_haar_orthogonal_entries_have_the_haar_marginal():
    """Each entry of a Haar matrix has O_ij² ~ Beta(1/2, (n − 1)/2) with a symmetric sign (so
    √n O_ij ≈ N(0, 1)): KS of the n² entries to that law (≈ 0.0025 at n = 300), and no sign
    bias on the diagonal, which plain QR has (√n · mean diag ≈ −0.64 without the sign fix)."""
    n = 300
    O = ensembles.haar_orthogonal(n, rng=4)

    def marginal_cdf(x):
        return 0.5 + 0.5 * np.sign(x) * scipy.stats.beta.cdf(x * x, 0.5, (n - 1) / 2)

    assert scipy.stats.kstest(O.ravel(), marginal_cdf).statistic < 0.01
    assert abs(np.mean(O.diagonal()) * math.sqrt(n)) < 0.3  # no bias from the QR signs


def test_haar_columns_are_the_first_columns_and_orthonormal_input_uses_them():
    """haar_columns(n, k) has orthonormal columns, equals the first k columns of
    haar_orthogonal drawn from an n×k Gaussian, and orthonormal_input is its transpose."""
    Q = ensembles.haar_columns(40, 7, rng=2)
    assert_allclose(Q.T @ Q, np.eye(7), rtol=0, atol=1e-13)
    np.testing.assert_array_equal(attnspec.orthonormal_input(7, 40, rng=2), Q.T)
    np.testing.assert_array_equal(ensembles.haar_orthogonal(9, rng=1),
                                  ensembles.haar_columns(9, 9, rng=1))
    with pytest.raises(ValueError, match=re.escape("k must be an integer >= 1 and <= 4")):
        ensembles.haar_columns(4, 5)


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
# kernel matrices


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
