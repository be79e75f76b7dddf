"""Tests of attnspec.laws.classical: Marchenko–Pastur, the score product law, the semicircle."""

import math
import re

import numpy as np
import pytest
from numpy.testing import assert_allclose

import attnspec
from attnspec.laws.classical import MarchenkoPastur, ScoreProductLaw, Semicircle

# e_M(c), the right edge of the score product law, as printed in MATH.md §3
EM_TABLE = [(0.25, "4.8481"), (0.5, "5.5451"), (1, "6.75"), (2, "8.8183"), (4, "12.3928")]


@pytest.mark.parametrize("c,printed", EM_TABLE)
def test_math_md_score_product_edges(c, printed):
    """e_M(c) = 1/max z/((1+z)²(1+cz)) of MATH.md §3 to its printed digits."""
    decimals = len(printed.split(".")[1])
    assert f"{ScoreProductLaw(c).support()[1]:.{decimals}f}" == printed
    z = np.linspace(1e-4, 10, 200001)  # brute-force maximisation as a second check
    assert ScoreProductLaw(c).support()[1] == pytest.approx(
        1 / np.max(z / ((1 + z) ** 2 * (1 + c * z))), rel=1e-8)


def test_other_laws_moments():
    """Closed-form moments of MP, the semicircle and M (Fuss–Catalan at c = 1)."""
    assert [ScoreProductLaw(1).moment(k) for k in range(5)] == [1, 1, 3, 12, 55]
    assert ScoreProductLaw(2).moment(2) == 2 + 2  # 2 + c
    assert MarchenkoPastur(0.5, 2).moment(3) == pytest.approx(8 * (1 + 3 * 0.5 + 0.25))
    assert [Semicircle(2).moment(k) for k in range(7)] == [1, 0, 2, 0, 8, 0, 40]
    for law in (MarchenkoPastur(3.0, 0.5), ScoreProductLaw(0.5), ScoreProductLaw(2.0)):
        for k in (1, 2, 3):
            quadrature = law.expect(lambda t: t ** k)
            assert law.moment(k) == pytest.approx(quadrature, rel=1e-12)


def test_semicircle_conventions():
    """Semicircle: closed-form cdf, quantile round trip, edges, NaN, moments."""
    law = Semicircle(2.0)
    r = 2 * math.sqrt(2)
    assert law.support() == (-r, r)
    x = np.linspace(-r, r, 101)
    assert_allclose(law.ppf(law.cdf(x)), x, atol=1e-13)
    assert law.cdf(r) == 1.0 and law.cdf(-r) == 0.0 and law.pdf(3.0) == 0.0
    assert np.isnan(law.ppf(2.0)) and np.isnan(law.cdf(np.nan))
    assert law.var() == 2.0 and law.mean() == 0.0
    assert attnspec.ks_distance(law.rvs(2000, rng=0), law) < 1.63 / math.sqrt(2000)
    # the LawSummaries it shares with every law: σ, the median 0 of a symmetric law, and the
    # equal-tailed interval symmetric about it
    assert law.std() == math.sqrt(2.0)
    assert abs(law.median()) < 1e-14
    low, high = law.interval(0.5)
    assert high == pytest.approx(-low, rel=1e-13) and law.cdf(high) == pytest.approx(0.75)


@pytest.mark.slow
def test_monte_carlo_score_product_atom():
    """M = WWᵀ/ℓ at c = 2: atom 1 − 1/c at 0 and the gapped bulk match simulation."""
    rng = np.random.default_rng(3)
    ell, d_qk = 800, 400
    values = []
    for _ in range(3):
        Q, K = rng.standard_normal((ell, d_qk)), rng.standard_normal((ell, d_qk))
        values.append(attnspec.squared_singular_values(Q @ K.T / math.sqrt(d_qk * ell)))
    values = np.concatenate(values)
    law = ScoreProductLaw(2.0)
    assert np.mean(values < 1e-8) == pytest.approx(law.atom)
    bulk = values[values >= 1e-8]  # KS of the continuous part: cdf conditioned on x > 0
    noise = 0.8687 / math.sqrt(bulk.size)

    def conditional(other):
        return lambda x: (other.cdf(x) - other.atom) / (1 - other.atom)
    assert attnspec.ks_distance(bulk, conditional(law)) < 3 * noise
    assert attnspec.ks_distance(bulk, conditional(ScoreProductLaw(1.5))) > 3 * noise


@pytest.mark.parametrize("cls,kwargs,name", [
    (MarchenkoPastur, {"ratio": 0}, "ratio"), (MarchenkoPastur, {"scale": -1}, "scale"),
    (Semicircle, {"var": 0}, "var"), (ScoreProductLaw, {"c": math.inf}, "c"),
])
def test_bad_parameters_other_laws(cls, kwargs, name):
    """Invalid parameters of the other laws raise ValueError naming the parameter."""
    with pytest.raises(ValueError, match=re.escape(f"{name} must be")):
        cls(**kwargs)
