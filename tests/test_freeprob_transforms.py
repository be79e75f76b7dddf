"""Closed forms of freeprob/transforms.py against MATH.md's numbers and independent oracles.

Oracles: MATH.md §3's table of e_M(c) (computed there independently), the maximum of
z/((1+z)²(1+cz)) by a dense grid, K(g) at a hand-computed point, κ₂ = s and κ₄ = cβ⁴, and the
Narayana moments of Marchenko–Pastur against the Catalan numbers 1, 2, 5, 14 and σ⁴(1 + λ).
"""

import math

import mpmath as mp
import numpy as np
import pytest

from attnspec.freeprob import transforms


@pytest.mark.parametrize("c, expected", [(0.25, 4.8481), (0.5, 5.5451), (1, 6.75), (2, 8.8183),
                                         (4, 12.3928)])
def test_score_product_right_edge_matches_math_md(c, expected):
    assert transforms.score_product_edges(c)[1] == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize("c", [0.1, 1.0, 3.0])
def test_score_product_right_edge_is_one_over_the_maximum(c):
    """MATH.md §3: e_M(c) = 1/max_{z>0} z/((1+z)²(1+cz)), here by a dense grid."""
    z = np.geomspace(1e-4, 1e3, 2_000_001)
    best = np.max(z / ((1 + z) ** 2 * (1 + c * z)))
    assert transforms.score_product_edges(c)[1] == pytest.approx(1 / best, rel=1e-9)


@pytest.mark.parametrize("c", [1e-300, 1e-6, 0.01, 0.5, 0.999999, 1 - 2 ** -40, 1.0, 1 + 2 ** -40,
                               1.000001, 1.05, 2.0, 100.0, 1e6, 1e300])
def test_score_product_critical_values_against_650_digits(c):
    """x(z±) = (1 + z)²(1 + cz)/z at z± = (−1 ± √(1 + 8c))/(4c), in 650-digit arithmetic, to
    a few ulps on both sides of c = 1 (where 1 + z₋ and 1 + cz₋ vanish) and at tiny and huge
    c; the edges and the inner scale of M are these values."""
    from attnspec.laws.classical import score_product_inner_scale
    with mp.workdps(650):   # 1 + 8c exact down to c = 1e-300
        C = mp.mpf(c)
        r = mp.sqrt(1 + 8 * C)
        x = [(1 + z) ** 2 * (1 + C * z) / z for z in ((-1 - r) / (4 * C), (-1 + r) / (4 * C))]
        expected = [float(v) for v in x]
    lower, upper = transforms.score_product_critical_values(c)
    assert upper == pytest.approx(expected[1], rel=1e-14)
    assert lower == pytest.approx(expected[0], rel=1e-13, abs=0.0)
    assert math.copysign(1.0, lower) == (1.0 if c >= 1 else -1.0)   # 0.0, not −0.0, at c = 1
    assert transforms.score_product_edges(c) == (lower if c > 1 else 0.0, upper)
    assert list(score_product_inner_scale(c)) == ([] if c == 1 else [abs(lower)])


@pytest.mark.parametrize("c", [0.0, -1.0, float("nan"), float("inf")])
def test_score_product_critical_values_refuse_c_outside_its_domain(c):
    with pytest.raises(ValueError, match="c must be"):
        transforms.score_product_critical_values(c)


def test_mp_edges_and_moments():
    assert transforms.mp_edges(0.25, 2.0) == pytest.approx((0.5, 4.5))
    assert [transforms.mp_moment(k, 1.0) for k in range(1, 5)] == [1.0, 2.0, 5.0, 14.0]
    # MP(λ, σ²): m₂ = σ⁴(1 + λ)
    assert transforms.mp_moment(2, 0.3, 2.0) == pytest.approx(4 * 1.3)


def test_nu_inf_cumulants_are_s_and_c_to_the_j_beta_to_the_2j():
    beta, c = 0.7, 2.5
    kappa = transforms.nu_inf_free_cumulants(6, beta, c)
    assert kappa[1] == pytest.approx(math.exp(beta ** 2) - 1, rel=1e-14)
    assert kappa[3] == pytest.approx(c * beta ** 4, rel=1e-14)
    assert kappa[5] == pytest.approx(c ** 2 * beta ** 6, rel=1e-14)
    assert not kappa[[0, 2, 4]].any()


def test_inverse_cauchy_transform_and_its_derivative():
    g, a2, b2, c = 0.3 - 0.2j, 0.4, 0.9, 1.7
    direct = 1 / g + a2 * g + b2 * g / (1 - c * b2 * g * g)
    value, slope = transforms.nu_inf_inverse_cauchy(g, a2, b2, c, derivative=True)
    assert value == pytest.approx(direct, rel=1e-14)
    h = 1e-6
    numeric = (transforms.nu_inf_inverse_cauchy(g + h, a2, b2, c)
               - transforms.nu_inf_inverse_cauchy(g - h, a2, b2, c)) / (2 * h)
    assert slope == pytest.approx(numeric, rel=1e-8)
