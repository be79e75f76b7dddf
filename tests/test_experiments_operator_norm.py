"""Operator norms (attnspec.experiments.operator_norm) against independent oracles."""

import math

import numpy as np
import pytest

import attnspec
from attnspec.experiments import operator_norm as on

# MATH.md §3 table of z₊² (computed there independently of this module)
TABLE = [(1, 0.5, 1.79059), (1, 1.0, 9.00954), (1, 1.5, 36.5900), (1, 2.0, 215.666),
         (2, 1.0, 10.8975), (0.5, 1.0, 7.9842)]


@pytest.mark.parametrize("c, beta, expected", TABLE)
def test_stationary_edge_matches_math_md(c, beta, expected):
    assert on.stationary_edge(beta, c) == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("beta", [0.05, 0.1, 0.3, 1.0, 2.5, 6.0])
@pytest.mark.parametrize("c", [0.01, 0.5, 1.0, 4.0, 64.0])
def test_stationary_edge_agrees_with_critical_point_of_inverse_cauchy(beta, c):
    # two different equations for the same edge: subordination minimum vs K'(g) = 0
    assert on.stationary_edge(beta, c) == pytest.approx(
        attnspec.AttentionLaw(beta, c).support()[1], rel=1e-12)


def test_stationary_edge_strictly_above_mp_edge():
    for beta in (0.05, 0.5, 1.0, 3.0):
        assert on.stationary_edge(beta, 1.0) > 4 * math.expm1(beta ** 2)


def test_cauchy_transform_against_quadrature():
    law = attnspec.ScoreProductLaw(2.0)
    x = 1.2 * attnspec.ScoreProductLaw(2.0).support()[1]
    G, dG = on.score_cauchy_transform(x, 2.0)
    t = np.linspace(*law.support(), 400001)
    # the atom 1 − 1/c at 0 (rank d_qk < ℓ) contributes (1 − 1/c)/x
    quad = np.trapezoid(law.pdf(t) / (x - t), t) + (1 - 1 / 2.0) / x
    assert G == pytest.approx(quad, rel=1e-4)
    h = 1e-5 * x
    assert dG == pytest.approx((on.score_cauchy_transform(x + h, 2.0)[0]
                                - on.score_cauchy_transform(x - h, 2.0)[0]) / (2 * h), rel=1e-6)


def test_approximations_limits():
    # small beta: ratio to 4s tends to e_M/4 = 27/16 at c = 1; large beta: to the exact edge
    small = on.edge_approximations(0.05, 1.0)
    assert small["small"] / small["mp"] == pytest.approx(27 / 16, rel=2e-3)
    assert on.stationary_edge(0.05, 1.0) / small["small"] == pytest.approx(1, rel=1e-2)
    big = on.edge_approximations(3.0, 1.0)
    assert big["large"] == pytest.approx(on.stationary_edge(3.0, 1.0), rel=1e-8)


def test_linear_model_norm_converges_and_is_seeded():
    norms = on.linear_model_norms([400], 1.0, 1.0, draws=2, seed=3)
    assert np.array_equal(norms, on.linear_model_norms([400], 1.0, 1.0, draws=2, seed=3))
    # Tracy–Widom scale ~ edge · ℓ^{-2/3} ≈ 0.17; allow a few of those
    assert np.all(np.abs(norms - on.stationary_edge(1.0, 1.0)) < 1.0)


def test_attention_norms_sandwich():
    out = on.attention_norms([100, 300], 1.0, draws=2, seed=1)
    assert np.all(out["s1"] >= 1 - 1e-12)
    assert np.all(out["s1"] <= out["upper"] + 1e-12)


def test_largest_squared_singular_value_against_svd():
    M = np.random.default_rng(0).standard_normal((30, 50))
    assert on.largest_squared_singular_value(M) == pytest.approx(
        np.linalg.svd(M, compute_uv=False)[0] ** 2, rel=1e-12)


@pytest.mark.parametrize("call, name", [
    (lambda: on.stationary_edge(0.01, 1.0), "beta"),
    (lambda: on.stationary_edge(1.0, -1.0), "c"),
    (lambda: on.stationary_edge(float("nan"), 1.0), "beta"),
    (lambda: on.score_cauchy_transform(1.0, 1.0), "x"),
    (lambda: on.edge_approximations([0.5, -1], 1.0), "beta"),
    (lambda: on.linear_model_norms([1], 1.0, 1.0), "ells"),
    (lambda: on.linear_model_norms([], 1.0, 1.0), "ells"),
    (lambda: on.attention_norms([[10, 20]], 1.0), "ells"),
    (lambda: on.attention_norms([10], 1.0, draws=0), "draws"),
    (lambda: on.largest_squared_singular_value(np.full((2, 2), np.nan)), "M"),
])
def test_bad_input_named(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_edge_approximations_plot_draws_exact_curve():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    attnspec.plotting.edge_approximations_plot(ax, [1.0], (0.1, 2.0), points=5)
    exact = ax.lines[0].get_ydata()
    assert exact[0] == pytest.approx(on.stationary_edge(0.1, 1.0) / (4 * math.expm1(0.01)))
    plt.close(fig)


@pytest.mark.parametrize("c", [0.1, 1.0, 16.0, 64.0])
def test_small_beta_approximation_is_a_strict_lower_bound(c):
    # z₊ = min over ω > β√e_M of ω + α²G_b(ω) with G_b > 0, hence z₊² > e_M β² (chapter 3)
    for beta in np.geomspace(0.05, 6.0, 25):
        assert on.edge_approximations(beta, c)["small"] < on.stationary_edge(beta, c)
