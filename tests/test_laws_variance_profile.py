"""The closed-form causal-profile law (laws/variance_profile.py).

Oracles: Dykema & Haagerup's moments nⁿ/(n + 1)! of T*T for the quasinilpotent DT operator
(published, not derived here); quadrature of the density; Monte Carlo of lower-triangular
Gaussian matrices.
"""

import math

import numpy as np
import pytest
from scipy.integrate import quad

import attnspec
from attnspec.laws.variance_profile import TriangularProfileLaw


@pytest.mark.parametrize("scale", [1.0, 0.3])
def test_triangular_law_moments_are_dykema_haagerup(scale):
    law = TriangularProfileLaw(scale)
    edge = law.support()[1]
    assert edge == pytest.approx(math.e * scale)
    for k in range(0, 5):
        quadrature = quad(lambda v: law._t_of_v(v) ** k * (1 + math.sin(v) ** 2 / v ** 2
                                                           - math.sin(2 * v) / v) / math.pi,
                          1e-12, math.pi - 1e-12, limit=200)[0]
        assert law.moment(k) == pytest.approx(k ** k / math.factorial(k + 1) * scale ** k
                                              if k else 1.0)
        assert quadrature == pytest.approx(law.moment(k), rel=1e-8)


def test_triangular_law_cdf_pdf_ppf_are_consistent():
    law = TriangularProfileLaw(1.5)
    x = np.array([0.01, 0.3, 1.0, 2.5, 3.9])
    increments = [quad(law.pdf, a, b, limit=200)[0] for a, b in zip(x[:-1], x[1:])]
    assert np.allclose(np.diff(law.cdf(x)), increments, atol=1e-9)
    # near 0 the density ~ 1/(t log² t): F(t) ~ 1/log(1/t) → 0 slowly but surely
    assert 0 < law.cdf(1e-12) < law.cdf(1e-6) < law.cdf(1e-2) < 0.5
    q = np.array([0.0, 0.1, 0.5, 0.9, 1.0])
    assert np.allclose(law.cdf(law.ppf(q)), q, atol=1e-12)
    assert law.cdf(-1.0) == 0.0 and law.cdf(10.0) == 1.0 and law.pdf(10.0) == 0.0
    assert np.isnan(law.cdf(np.nan))
    assert law.rvs(5, rng=1).tolist() == law.rvs(5, rng=1).tolist()


def test_triangular_law_matches_monte_carlo():
    rng = np.random.default_rng(0)
    n = 500
    values = np.concatenate([attnspec.squared_singular_values(
        np.tril(rng.standard_normal((n, n))) / math.sqrt(n)) for _ in range(4)])
    law = TriangularProfileLaw(1.0)
    assert attnspec.ks_distance(values, law) < 0.05
    per_draw = values.reshape(4, n)
    m2 = (per_draw ** 2).mean(axis=1)
    assert abs(m2.mean() - law.moment(2)) < 4 * m2.std(ddof=1) / 2 + 0.01
