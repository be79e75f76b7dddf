"""The vector Dyson solver of a variance profile (freeprob/variance_profile.py).

Oracles: Marchenko–Pastur's closed form (flat profile); the closed-form causal-profile law
(itself checked against Dykema & Haagerup's moments in test_laws_variance_profile.py); the
exact first two moments of a variance profile and Monte Carlo.
"""

import math

import numpy as np
import pytest

import attnspec
from attnspec.freeprob.variance_profile import triangular_profile, variance_profile_density
from attnspec.laws.variance_profile import TriangularProfileLaw


def test_flat_profile_is_marchenko_pastur_to_rounding():
    t = np.linspace(0.05, 2.9, 40)
    density = variance_profile_density(np.full((12, 12), 0.75), t)
    assert np.max(np.abs(density - attnspec.MarchenkoPastur(1.0, 0.75).pdf(t))) < 1e-8


def test_triangular_profile_converges_to_the_closed_form():
    law = TriangularProfileLaw(2.0)
    t = np.linspace(0.2, 0.9 * law.support()[1], 25)
    errors = [np.max(np.abs(variance_profile_density(triangular_profile(n, 2.0), t)
                            / law.pdf(t) - 1)) for n in (12, 24)]
    assert errors[1] < 1e-2
    assert errors[1] < errors[0]


def test_solver_for_a_block_profile_matches_the_moments():
    """A non-symmetric two-level profile: mass 1, the exact m₁ and m₂ of a variance profile
    (m₂ = ∫(∫σ² dy)² dx + ∫(∫σ² dx)² dy), and Monte Carlo."""
    profile = np.ones((2, 2))
    profile[0, 1] = 3.0
    fine = np.kron(profile, np.ones((8, 8)))
    u = np.linspace(1e-4, math.sqrt(12.0), 600)          # t = u²: no singularity at 0
    density = variance_profile_density(fine, u ** 2)
    def integral(power):
        return np.trapezoid(u ** (2 * power) * density * 2 * u, u)
    m1 = profile.mean()
    m2 = np.mean(profile.mean(axis=1) ** 2) + np.mean(profile.mean(axis=0) ** 2)
    assert integral(0) == pytest.approx(1.0, abs=2e-3)
    assert integral(1) == pytest.approx(m1, rel=2e-3)
    assert integral(2) == pytest.approx(m2, rel=2e-3)
    rng = np.random.default_rng(3)
    n = 400
    sigma = np.sqrt(np.kron(profile, np.ones((n // 2, n // 2))) / n)
    mc = [np.mean(np.linalg.eigvalsh(X @ X.T) ** 2)
          for X in (sigma * rng.standard_normal((n, n)) for _ in range(4))]
    assert np.mean(mc) == pytest.approx(m2, rel=0.03)


@pytest.mark.parametrize("profile, match", [
    (np.ones((2, 3)), "square"), (-np.ones((3, 3)), "non-negative"),
    (np.zeros((3, 3)), "not all zero"), (np.full((2, 2), np.nan), "finite"),
])
def test_bad_profiles_are_refused(profile, match):
    with pytest.raises(ValueError, match=match):
        variance_profile_density(profile, [1.0])


def test_bad_points_and_options_are_refused():
    with pytest.raises(ValueError, match="t must be"):
        variance_profile_density(np.ones((3, 3)), [0.0, 1.0])
    with pytest.raises(ValueError, match="eta_min"):
        variance_profile_density(np.ones((3, 3)), [1.0], eta_min=0.1)
    with pytest.raises(ValueError, match="scale"):
        TriangularProfileLaw(0.0)
    with pytest.raises(ValueError, match="n must be"):
        triangular_profile(0)
