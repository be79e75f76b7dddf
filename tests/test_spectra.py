"""Tests of attnspec.spectra against numpy/scipy oracles and closed forms."""

import math
import re

import numpy as np
import pytest
import scipy.stats
from numpy.testing import assert_allclose

import attnspec
from attnspec.laws.classical import MarchenkoPastur
from attnspec.sampling.softmax import centered, softmax_attention
from attnspec.spectra import (column_ipr, inverse_participation_ratio, ks_distance, moments_with_se,
                              squared_singular_values, wasserstein1)

RNG = np.random.default_rng(2024)


@pytest.mark.parametrize("shape", [(30, 30), (20, 45), (45, 20)], ids=["square", "wide", "tall"])
def test_squared_singular_values_match_svd(shape):
    """Descending squared singular values equal numpy's SVD squared, for any shape."""
    M = RNG.standard_normal(shape)
    values = squared_singular_values(M)
    assert values.shape == (min(shape),) and values.dtype == np.float64
    assert np.all(np.diff(values) <= 0)
    assert_allclose(values, np.linalg.svd(M, compute_uv=False) ** 2, rtol=1e-10)
    assert_allclose(squared_singular_values(M, drop_top=3), values[3:])


def test_squared_singular_values_clipped_at_zero():
    """The exact zero of a centred attention matrix (A P 1 = 0) is returned as ≥ 0."""
    values = squared_singular_values(centered(softmax_attention(50, 10, 1.0, rng=0)))
    assert values.min() >= 0 and values[-1] < 1e-12


def test_moments_with_se_known_values():
    """Per-draw moments averaged over draws; SE = std(ddof=1)/√R; ragged lists accepted."""
    mean, se = moments_with_se([np.array([1.0, 2.0, 3.0]), np.array([2.0, 4.0])],
                               orders=(1, 2))
    # draw 1: m₁ = 2, m₂ = 14/3; draw 2: m₁ = 3, m₂ = 10
    assert_allclose(mean, [2.5, (14 / 3 + 10) / 2])
    assert_allclose(se, [np.std([2, 3], ddof=1) / math.sqrt(2),
                         np.std([14 / 3, 10], ddof=1) / math.sqrt(2)])
    mean2d, _ = moments_with_se(np.array([[1.0, 3.0], [2.0, 2.0]]), orders=(3,))
    assert_allclose(mean2d, [(14 + 8) / 2])
    single_mean, single_se = moments_with_se(np.array([1.0, 3.0]))
    assert_allclose(single_mean, [2.0, 5.0]) and np.isnan(single_se).all()


def test_ks_distance_matches_scipy():
    """Two-sample and one-sample (CDF) statistics equal scipy.stats' values."""
    x, y = RNG.standard_normal(300), RNG.standard_normal(200) + 0.2
    assert_allclose(ks_distance(x, y), scipy.stats.ks_2samp(x, y).statistic, rtol=1e-14)
    assert_allclose(ks_distance(y, x), ks_distance(x, y), rtol=1e-14)
    cdf = scipy.stats.norm.cdf
    assert_allclose(ks_distance(x, cdf), scipy.stats.kstest(x, cdf).statistic, rtol=1e-14)
    assert_allclose(ks_distance(x, scipy.stats.norm()), ks_distance(x, cdf), rtol=1e-14)


def pooled_cdf_w1(x, y):
    """Two-sample W₁ = ∫|F_n − G_m|, summed exactly over the gaps of the pooled sample (the
    library's own implementation before it called scipy: the oracle of the change)."""
    x, y = np.sort(x), np.sort(y)
    grid = np.sort(np.concatenate([x, y]))
    gap = np.abs(np.searchsorted(x, grid[:-1], side="right") / x.size
                 - np.searchsorted(y, grid[:-1], side="right") / y.size)
    return float(np.sum(gap * np.diff(grid)))


@pytest.mark.parametrize("n, m", [(1, 1), (5, 7), (400, 150), (1000, 1000)])
def test_wasserstein_two_samples(n, m):
    """Two samples: equal to the exact pooled-gap sum to 1e-12; for equal sizes also to the mean
    gap of the sorted samples; symmetric; 0 between a sample and itself."""
    x, y = RNG.exponential(size=n), RNG.standard_normal(m)
    assert_allclose(wasserstein1(x, y), pooled_cdf_w1(x, y), rtol=1e-12)
    assert wasserstein1(x, y) == pytest.approx(wasserstein1(y, x), rel=1e-12)
    if n == m:
        assert_allclose(wasserstein1(x, y), np.mean(np.abs(np.sort(x) - np.sort(y))), rtol=1e-12)
    assert wasserstein1(x, x) == 0.0


def exact_w1(sample, ppf_integral, cdf):
    """Closed-form W₁ = ∫₀¹ |F_n⁻¹(u) − F⁻¹(u)| du, splitting each cell at u* = F(x_(i))."""
    x = np.sort(sample)
    n = x.size
    a, b = np.arange(n) / n, np.arange(1, n + 1) / n
    u = np.clip(cdf(x), a, b)
    return np.sum(x * (u - a) - (ppf_integral(u) - ppf_integral(a))
                  + (ppf_integral(b) - ppf_integral(u)) - x * (b - u))


class Uniform:
    """A law object with cdf and support (as attnspec.laws provides)."""

    def cdf(self, x):
        return np.clip(x, 0.0, 1.0)

    def support(self):
        return (0.0, 1.0)


def test_wasserstein_cdf_matches_closed_forms():
    """W₁ to a CDF: exact for uniform (law object), < 5e-6 relative for exponential (callable)."""
    u = RNG.uniform(size=1000)
    expected = exact_w1(u, lambda q: q**2 / 2, lambda t: np.clip(t, 0, 1))
    assert_allclose(wasserstein1(u, Uniform()), expected, rtol=1e-12)
    e = RNG.exponential(size=1000)
    # ∫₀ᵘ −log(1 − v) dv = (1 − u) log(1 − u) + u for u < 1, and 1 at u = 1
    def integral(q):
        inside = np.minimum(q, 0.5)  # placeholder where q = 1, avoids log(0)
        inside = np.where(q < 1, q, inside)
        return np.where(q < 1, (1 - inside) * np.log1p(-inside) + inside, 1.0)
    expected = exact_w1(e, integral, lambda t: -np.expm1(-t))
    assert_allclose(wasserstein1(e, lambda t: -np.expm1(-np.maximum(t, 0))), expected, rtol=5e-6)


def test_inverse_participation_ratio():
    """IPR is 1 for a coordinate vector, ≈ 3/m for delocalised vectors, high for an outlier."""
    assert_allclose(inverse_participation_ratio(np.diag([5.0, 4.0, 3.0, 2.0, 1.0]), k=2), 1.0)
    m = 400
    G = RNG.standard_normal((m, m)) / math.sqrt(m)
    bulk = inverse_participation_ratio(G, k=5)
    assert np.all(bulk < 4 * 3 / m)
    G[7, 11] = 10.0  # one extreme entry makes a localised outlier
    assert inverse_participation_ratio(G, k=1)[0] > 0.4


def test_column_ipr_against_direct_sums():
    """Σᵢ uᵢ⁴ per column: 1 on a coordinate, 1/m when flat, and the SVD's vectors agree."""
    assert_allclose(column_ipr(np.eye(3)), [1.0, 1.0, 1.0])
    assert_allclose(column_ipr(np.full((4, 1), 0.5)), [0.25])
    G = RNG.standard_normal((30, 20))
    U = np.linalg.svd(G, full_matrices=False)[0]
    assert_allclose(inverse_participation_ratio(G, k=3), [np.sum(U[:, j] ** 4) for j in range(3)],
                    rtol=1e-10)
    for bad in ["abc", [], np.ones((2, 2, 2)), [1.0, np.nan], [1j, 0.0], [True, False]]:
        with pytest.raises(ValueError, match="vectors must be a non-empty 1-D or 2-D array"):
            column_ipr(bad)


BAD_CALLS = [
    (lambda: squared_singular_values(np.ones((4, 6)), drop_top=4),
     "drop_top must be an integer >= 0 and <= 3; got drop_top=4"),
    (lambda: squared_singular_values(np.ones((4, 6)), drop_top=-1),
     "drop_top must be an integer >= 0 and <= 3; got drop_top=-1"),
    (lambda: squared_singular_values(np.array([[1.0, np.nan], [0.0, 1.0]])),
     "M must have only finite entries; got M with shape (2, 2) containing inf or nan"),
    (lambda: squared_singular_values(np.ones(3)),
     "M must be a 2-D real array; got M with shape (3,)"),
    (lambda: moments_with_se([]), "spectra must be a non-empty list of non-empty 1-D arrays"),
    (lambda: moments_with_se([np.ones(3)], orders=(0,)),
     "orders must be an integer >= 1; got orders=0"),
    (lambda: ks_distance([], [1.0]), "sample must be a non-empty array of finite numbers"),
    (lambda: wasserstein1([1.0, np.inf], [1.0]),
     "sample must be a non-empty array of finite numbers"),
    (lambda: inverse_participation_ratio(np.ones((4, 6)), k=5),
     "k must be an integer >= 1 and <= 4; got k=5"),
]


@pytest.mark.parametrize("call, message", BAD_CALLS,
                         ids=["drop_top-too-large", "drop_top-negative", "non-finite", "1-D",
                              "empty-spectra", "order-zero", "empty-sample", "inf-sample", "ipr-k"])
def test_bad_input_raises(call, message):
    """Bad input raises ValueError naming the parameter, its value and what is allowed."""
    with pytest.raises(ValueError, match=re.escape(message)):
        call()


def test_ks_distance_to_a_law_with_an_atom_compares_left_limits():
    """Tied values on an atom of the law are not counted as a gap of the atom's mass."""
    law = MarchenkoPastur(ratio=2.0, scale=1.0)     # atom of mass 1/2 at 0
    sample = law.rvs(4000, rng=5)
    assert np.count_nonzero(sample == 0.0) > 1500            # the atom is really sampled
    ks = ks_distance(sample, law)
    assert ks < 1.63 / np.sqrt(sample.size)                  # the 1% critical value
    step = lambda x: (np.asarray(x) >= 0).astype(float)      # a point mass at 0
    assert ks_distance(np.zeros(10), step) == 0.0
    assert ks_distance(np.ones(10), step) == 1.0


# --- hostile inputs (issue 11, items 7 and 9) -----------------------------------------------

def test_huge_and_tiny_finite_matrices_are_scaled_not_refused():
    """A finite M scaled by 1e150 or 1e-150 has its spectrum scaled by 1e±300 exactly-ish."""
    rng = np.random.default_rng(0)
    M = rng.standard_normal((6, 9))
    base = attnspec.squared_singular_values(M)
    np.testing.assert_allclose(attnspec.squared_singular_values(M * 1e150), base * 1e300,
                               rtol=1e-12)
    np.testing.assert_allclose(attnspec.squared_singular_values(M * 1e-150), base * 1e-300,
                               rtol=1e-12)


@pytest.mark.parametrize("factor", [1e160, 1e-200])
def test_spectrum_outside_float64_is_a_named_error(factor):
    """s_max² of 1e320 or 1e-400 cannot be a float64: a ValueError naming M, not inf or zeros."""
    M = np.random.default_rng(1).standard_normal((5, 5)) * factor
    with pytest.raises(ValueError, match="M's squared singular values leave the float64 range"):
        attnspec.squared_singular_values(M)


def test_zero_matrix_has_zero_spectrum():
    """The zero matrix is not an underflow: its squared singular values are exactly 0."""
    assert attnspec.squared_singular_values(np.zeros((3, 4))).tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("shape", [(5, 0), (0, 5)])
def test_empty_matrix_names_its_shape(shape):
    """A 5×0 matrix is refused for its shape, not with a nonsensical drop_top range."""
    with pytest.raises(ValueError, match=re.escape(f"got M with shape {shape}")):
        attnspec.squared_singular_values(np.zeros(shape))


@pytest.mark.parametrize("bad", [np.nan, 2.0, -0.5])
def test_ks_distance_refuses_a_cdf_outside_unit_interval(bad):
    """A 'CDF' returning NaN or values outside [0, 1] is named, not turned into nan or 2.0."""
    sample = np.linspace(0.1, 1.0, 10)
    with pytest.raises(ValueError, match=r"other must be a CDF with values in \[0, 1\]"):
        attnspec.ks_distance(sample, lambda x: np.full_like(x, bad))


def test_ks_distance_refuses_complex_sample():
    """A complex sample is refused (it used to be truncated to its real part with a warning)."""
    with pytest.raises(TypeError, match="sample must be an array of real numbers"):
        attnspec.ks_distance(np.array([1 + 1j, 2.0]), np.array([1.0, 2.0]))
    with pytest.raises(TypeError, match="other must be an array of real numbers"):
        attnspec.ks_distance(np.array([1.0, 2.0]), ["a", "b"])


@pytest.mark.parametrize("call", [
    lambda: ks_distance(np.array(["a"]), MarchenkoPastur(1.0, 1.0)),
    lambda: ks_distance(np.array([1 + 1j, 2.0]), MarchenkoPastur(1.0, 1.0)),
    lambda: attnspec.wasserstein1(np.array(["a"]), MarchenkoPastur(1.0, 1.0)),
    lambda: moments_with_se([np.array(["a", "b"])]),
    lambda: moments_with_se("spectra"),
])
def test_samples_of_the_wrong_type_raise_the_library_error(call):
    """A non-real sample is a ParameterTypeError: both a TypeError and a ValueError, so
    ``except ValueError`` catches it as A3 says, and the message names the parameter."""
    with pytest.raises(attnspec.ParameterTypeError, match=r"(sample|spectra) must") as info:
        call()
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)
