"""attnspec.experiments.row_sums: A4 §5's row-sum fluctuation (this book's derivation) (against mpmath quadrature of the
χ² mixture and simulation) and its measurement term by term."""

import math

import numpy as np
import pytest

import attnspec
from attnspec.experiments import row_sums
from attnspec import ParameterError
from attnspec.experiments.row_sums import row_sum_fluctuation

Z = 4.0  # tolerance in standard errors


@pytest.mark.parametrize("ell, d_qk, beta", [(600, 600, 1.0), (800, 200, 0.7), (300, 900, 1.3)])
def test_simulation_matches_both_terms(ell, d_qk, beta):
    # oracle: the leading-order terms of A4 §5, implemented independently (row_sum_fluctuation)
    theory = row_sum_fluctuation(beta, ell, d_qk)
    measured = row_sums.measure_row_sum_fluctuation(ell, d_qk, beta, draws=3, rng=11)
    # sampling error of a standard deviation over n rows ~ 1/sqrt(2n) relative (n = 3 ell),
    # plus O(1/sqrt(ell)) corrections to the leading-order formula
    assert measured.keys == pytest.approx(theory.keys, rel=0.12)
    assert measured.total == pytest.approx(theory.total, rel=0.12)
    assert measured.query == pytest.approx(theory.query, rel=0.35)


def test_values_of_math_md():
    # MATH.md §5: 0.041 and 0.022 at beta = 1, ell = d_qk = 1000 (one draw, ~2% noise)
    measured = row_sums.measure_row_sum_fluctuation(1000, 1000, 1.0, draws=2, rng=0)
    assert measured.keys == pytest.approx(0.041, rel=0.06)
    assert measured.query == pytest.approx(0.022, rel=0.3)


def test_seeded():
    first = row_sums.measure_row_sum_fluctuation(50, 40, 1.0, rng=5)
    assert first == row_sums.measure_row_sum_fluctuation(50, 40, 1.0, rng=5)


@pytest.mark.parametrize("kwargs, name", [
    (dict(ell=1, d_qk=5, beta=1.0), "ell"), (dict(ell=5, d_qk=0, beta=1.0), "d_qk"),
    (dict(ell=5, d_qk=5, beta=0.0), "beta"), (dict(ell=5, d_qk=5, beta=float("inf")), "beta"),
    (dict(ell=5, d_qk=5, beta=1.0, draws=0), "draws"),
])
def test_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        row_sums.measure_row_sum_fluctuation(**kwargs)


def test_size_beyond_memory_refused_by_name():
    with pytest.raises(ValueError, match="ell"):
        row_sums.measure_row_sum_fluctuation(10**7, 10, 1.0)


def test_row_sum_fluctuation_terms():
    f = attnspec.experiments.row_sums.row_sum_fluctuation(1.0, 1000, 1000)
    assert f.keys == pytest.approx(math.sqrt(math.expm1(1) / 1000))
    assert f.query == pytest.approx(1 / math.sqrt(2000))
    assert (round(f.keys, 3), round(f.query, 3)) == (0.041, 0.022)       # MATH.md §5
    assert f.total == pytest.approx(math.hypot(f.keys, f.query))
    # the two-term form is the leading order of the exact value
    big = attnspec.experiments.row_sums.row_sum_fluctuation(0.8, 10**6, 10**6)
    assert big.total == pytest.approx(big.exact, rel=1e-3)
    assert f.exact == pytest.approx(f.total, rel=0.02)
    for bad in ({"beta": 0.0}, {"ell": 0}, {"d_qk": 1.5}, {"beta": math.nan}):
        kwargs = {"beta": 1.0, "ell": 10, "d_qk": 10, **bad}
        with pytest.raises((ValueError, TypeError), match=next(iter(bad))):
            attnspec.experiments.row_sums.row_sum_fluctuation(**kwargs)


def _chi2_oracle(beta, ell, d_qk):
    """sd(r)/E r by quadrature over ‖q‖² ~ χ²(d_qk), from the conditional moments alone.

    Given ‖q‖² = t the ℓ terms e^{βS} are i.i.d. log-normal with σ² = t/d_qk:
    E[r | t] = ℓ e^{β²t/(2d)} and E[r² | t] = ℓ e^{2β²t/d} + ℓ(ℓ − 1) e^{β²t/d}.
    """
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workdps(50):
        b, n, d = mpmath.mpf(beta), mpmath.mpf(ell), mpmath.mpf(d_qk)
        norm = 2 ** (d / 2) * mpmath.gamma(d / 2)

        def mean(f):
            return mpmath.quad(lambda t: f(t) * t ** (d / 2 - 1) * mpmath.exp(-t / 2) / norm,
                               [0, d, 10 * d, mpmath.inf])

        m1 = mean(lambda t: n * mpmath.exp(b * b * t / (2 * d)))
        m2 = mean(lambda t: n * mpmath.exp(2 * b * b * t / d)
                  + n * (n - 1) * mpmath.exp(b * b * t / d))
        return float(mpmath.sqrt(m2 - m1 ** 2) / m1)


@pytest.mark.slow
@pytest.mark.parametrize("beta, ell, d_qk", [(1e-3, 10, 5), (0.5, 1000, 1000), (1.0, 10, 5),
                                             (1.5, 3, 64), (2.0, 100, 17), (1e-8, 1, 1)])
def test_row_sum_fluctuation_exact_against_quadrature(beta, ell, d_qk):
    """The closed form against an independent quadrature, small β included (no cancellation)."""
    assert attnspec.experiments.row_sums.row_sum_fluctuation(beta, ell, d_qk).exact == pytest.approx(
        _chi2_oracle(beta, ell, d_qk), rel=1e-12, abs=0)


def test_row_sum_fluctuation_at_tiny_beta():
    """β² underflows: every value is still β/√ℓ (query part β⁴/(2d) negligible); 1e-13
    allows for the rounding of log β ≈ −460 in the logarithmic evaluation."""
    for beta in (1e-200, 1e-160, 1e-8):
        f = attnspec.experiments.row_sums.row_sum_fluctuation(beta, 10, 5)
        for value in (f.keys, f.total, f.exact, f.within_draw):
            assert value == pytest.approx(beta / math.sqrt(10), rel=1e-13, abs=0)


def test_row_sum_fluctuation_diverges_at_four_beta_squared():
    """Var rᵢ needs E e^{2βSᵢₖ} = (1 − 4β²/d_qk)^{−d_qk/2}: +∞ once 4β² ≥ d_qk > β²."""
    for beta, d_qk in [(1.0, 4), (1.0, 2), (1.9, 4), (0.5, 1)]:
        f = attnspec.experiments.row_sums.row_sum_fluctuation(beta, 10, d_qk)
        assert f.exact == math.inf and f.within_draw == math.inf
        assert math.isfinite(f.keys) and math.isfinite(f.query)
    # and it grows without bound as 4β² → d_qk from below (continuity with the +∞): at d_qk = 4,
    # β = 1 − ε, E rᵢ² ∝ (1 − β²)^{−2} ≈ (2ε)^{−2}, so sd(rᵢ)/E rᵢ grows like 1/ε
    below = [attnspec.experiments.row_sums.row_sum_fluctuation(1 - eps, 10, 4).exact for eps in (1e-3, 1e-6, 1e-9)]
    assert below[1] / below[0] == pytest.approx(1e3, rel=1e-2)
    assert below[2] / below[1] == pytest.approx(1e3, rel=1e-5)


def test_row_sum_fluctuation_refuses_where_it_has_no_value():
    # β² ≥ d_qk: E rᵢ = ∞, so sd/mean is ∞/∞
    for beta, d_qk in [(1.0, 1), (2.0, 4), (3.0, 4)]:
        with pytest.raises(ValueError, match="beta.*d_qk"):
            attnspec.experiments.row_sums.row_sum_fluctuation(beta, 10, d_qk)
    # finite but beyond float64: β = 26 and d_qk = 2705 > 4β² = 2704
    with pytest.raises(ValueError, match="float64"):
        attnspec.experiments.row_sums.row_sum_fluctuation(26.0, 10, 2705)


def test_row_sum_fluctuation_refusals_are_parameter_errors_naming_beta():
    for beta, d_qk in [(2.0, 4), (26.0, 2705)]:
        with pytest.raises(attnspec.ParameterError, match=r"beta=\S+.*d_qk"):
            attnspec.experiments.row_sums.row_sum_fluctuation(beta, 10, d_qk)


@pytest.mark.parametrize("d_qk, gap", [(4, 1e-3), (100, 1e-6), (100, 1e-12), (2000, 0.3),
                                       (1000, 0.1), (50, 1e-14)])
def test_row_sum_fluctuation_near_the_divergence_within_its_stated_bound(d_qk, gap):
    """Against mpmath at the same float inputs: 4e-13 + 2.2e-16·2β²/(1 − 4β²/d_qk)."""
    mpmath = pytest.importorskip("mpmath")
    beta = math.sqrt(d_qk / 4 * (1 - gap))
    got = attnspec.experiments.row_sums.row_sum_fluctuation(beta, 10, d_qk)
    with mpmath.workdps(60):
        b, d = mpmath.mpf(beta), mpmath.mpf(d_qk)

        def a(m):
            return -d / 2 * mpmath.log(1 - m * b * b / d)

        u, v = a(2) - 2 * a(1), a(4) - a(2)
        want = mpmath.sqrt(mpmath.exp(u) * mpmath.expm1(v) / 10 + mpmath.expm1(u))
        one_minus = 1 - 4 * b * b / d
        bound = 4e-13 + 2.2e-16 * 2 * b * b / one_minus
        assert abs(got.exact - want) / want <= bound


@pytest.mark.parametrize("beta", [0.5, 1.0])
def test_row_sum_fluctuation_matches_softmax_rows(beta):
    """The rows of simulated QKᵀ scores: relative variance = the exact within-draw value."""
    ell = d_qk = 300
    draws = 40
    rng = np.random.default_rng(int(10 * beta))
    theory = attnspec.experiments.row_sums.row_sum_fluctuation(beta, ell, d_qk)
    mean = ell * (1 - beta**2 / d_qk) ** (-d_qk / 2)
    per_draw = []
    for _ in range(draws):
        Q, K = rng.standard_normal((ell, d_qk)), rng.standard_normal((ell, d_qk))
        rows = np.exp(beta * Q @ K.T / math.sqrt(d_qk)).sum(axis=1)
        per_draw.append(np.var(rows, ddof=1) / mean**2)
    value, se = np.mean(per_draw), np.std(per_draw, ddof=1) / math.sqrt(draws)
    assert abs(value - theory.within_draw**2) < Z * se
    # the query-norm term is needed: the keys term alone is rejected
    assert value - theory.keys**2 > Z * se


# --- the finite-ℓ outlier predictor -------------------------------------------------------


def test_row_sum_fluctuation_log_mean_is_the_chi2_mean():
    """E rᵢ = ℓ E e^{β²‖q‖²/(2d_qk)} = ℓ(1 − β²/d_qk)^{−d_qk/2} (χ² moment generating function)."""
    for beta, ell, d_qk in [(0.5, 300, 300), (1.5, 10, 3), (1e-200, 7, 5)]:
        f = attnspec.experiments.row_sums.row_sum_fluctuation(beta, ell, d_qk)
        assert f.log_mean == pytest.approx(
            math.log(ell * (1 - beta**2 / d_qk) ** (-d_qk / 2)), rel=1e-14)


def test_mean_shortfall_matches_simulated_softmax():
    """s − E m₁ of √ℓA^⊥ against 400 softmax draws at β = 0.7, ℓ = 150, d_qk = 300 (within Z
    standard errors); the shortfall itself is many standard errors away from zero."""
    rng = np.random.default_rng(5)
    s = math.expm1(0.49)
    m1 = np.array([np.sum(attnspec.softmax_attention(150, 300, 0.7, rng=rng) ** 2) - 1
                   for _ in range(400)])
    se = m1.std(ddof=1) / math.sqrt(m1.size)
    predicted = row_sums.mean_shortfall(0.7, 150, 300)
    assert abs((s - m1.mean()) - predicted) < Z * se
    assert predicted > Z * se
    with pytest.raises(attnspec.ParameterError, match="ell"):
        row_sums.mean_shortfall(0.7, 0, 300)


def test_row_factors_give_softmax_from_y_of_the_same_draw():
    # √ℓ A^⊥ = D Y row by row, with D from the same rng state as the chain
    ell, beta = 60, 1.2
    D = row_sums.row_factors(ell, ell, beta, rng=3)
    chain = attnspec.stepwise_chain(ell, ell, beta, rng=3, degree=2)
    np.testing.assert_allclose(chain["softmax"], D[:, None] * chain["Y"], rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="beta"):
        row_sums.row_factors(ell, ell, -1.0)


@pytest.mark.parametrize("beta", [1.5, 2.0])
def test_mean_ratio_one_weight_against_monte_carlo(beta):
    """The one-weight heuristic for E m₁/s against softmax attention at ℓ = 1000 (4 draws):
    within 0.05 (measured 0.02-0.03 below; the gap shrinks with ℓ)."""
    ell, draws = 1000, 4
    ratios = [(np.sum(attnspec.softmax_attention(ell, ell, beta, rng=seed) ** 2) - 1)
              / np.expm1(beta * beta) for seed in range(draws)]
    assert abs(np.mean(ratios) - row_sums.mean_ratio_one_weight(beta, ell)) < 0.05


def test_mean_ratio_one_weight_limits_and_domain():
    """Near 1 at small β, decreasing in β, rising towards 1 with ℓ at fixed β; refused where
    the row sums do not concentrate (β > √(2 log ℓ)) or below β = 0.1."""
    values = [row_sums.mean_ratio_one_weight(b, 1000) for b in (0.5, 1.0, 1.5, 2.0, 2.5)]
    assert values[0] > 0.99 and all(np.diff(values) < 0)
    assert row_sums.mean_ratio_one_weight(2.0, 10 ** 6) > row_sums.mean_ratio_one_weight(2.0, 1000)
    for beta, ell in [(3.8, 1000), (0.05, 1000)]:
        with pytest.raises(ParameterError, match="beta"):
            row_sums.mean_ratio_one_weight(beta, ell)
    with pytest.raises(ParameterError, match="ell"):   # it turned negative at ℓ = 3
        row_sums.mean_ratio_one_weight(1.0, 50)
    for ell in (100, 1000):   # the ends of the β range give a ratio in [0, 1]
        for beta in (0.1, math.sqrt(2 * math.log(ell))):
            assert 0 <= row_sums.mean_ratio_one_weight(beta, ell) <= 1


def test_top_vector_moves_match_the_chain_and_first_order():
    """The measured moves are σ_k(√ℓA^⊥) − σ_k(Y) of the chain of the same draw; the IPR lies
    in [1/ℓ, 1]; at small β (row factors within a few % of 1) the first-order move
    σ_k Σᵢ(Dᵢᵢ − 1)u_{k,i}² agrees with the measured one to a small fraction of the factors'
    spread times σ_k."""
    ell, beta, top = 80, 0.5, 3
    got = row_sums.top_vector_moves(ell, ell, beta, rng=4, top=top)
    chain = attnspec.stepwise_chain(ell, ell, beta, rng=4, degree=2)
    sig = {k: np.linalg.svd(chain[k], compute_uv=False)[:top] for k in ("softmax", "Y")}
    np.testing.assert_allclose(got["moved"], sig["softmax"] - sig["Y"], atol=1e-9)
    assert np.all((got["ipr"] >= 1 / ell - 1e-12) & (got["ipr"] <= 1 + 1e-12))
    D = row_sums.row_factors(ell, ell, beta, rng=4)
    spread = np.std(D) * sig["Y"]
    assert np.all(np.abs(got["predicted"] - got["moved"]) < 0.3 * spread)
    with pytest.raises(ParameterError, match="top"):
        row_sums.top_vector_moves(ell, ell, beta, top=0)
