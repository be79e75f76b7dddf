"""Tests of attnspec.experiments.thresholds: the scales of MATH.md §5 against direct simulation.

The scales are statements about ℓ → ∞. A finite simulation can test what they predict at
finite ℓ: on either side of a scale β = λ·factor·√(log ℓ) (λ < 1 or λ > 1, fixed), a statistic
moves towards its "below" limit or away from it as ℓ grows. Every comparison uses a tolerance of
four standard errors (bootstrap or across draws), so a wrong scale would fail.
"""

import math

import numpy as np
import pytest

import attnspec
from attnspec.experiments import thresholds

Z = 4.0  # tolerance in standard errors
NORMAL_IQR = 2 * 0.6744897501960817  # interquartile range of N(0, 1)


def _gaussian_rows(ell, rows, seed):
    return np.random.default_rng(seed).standard_normal((rows, ell))


def _bootstrap_se(values, statistic, seed, repeats=200):
    rng = np.random.default_rng(seed)
    n = len(values)
    return float(np.std([statistic(values[rng.integers(0, n, n)]) for _ in range(repeats)]))


# --- the scales themselves ---------------------------------------------------------------

def test_scale_values_and_labels():
    """Closed forms at ℓ = 1000 (L = log ℓ), labels, and increasing order of the factors."""
    scales = attnspec.threshold_scales(1000)
    root = math.sqrt(math.log(1000))
    expected = {"largest_entry": (2 - math.sqrt(3)) * root, "row_sum_clt": root / math.sqrt(2),
                "m1_lln": root / math.sqrt(2), "mean_bound": root,
                "row_sum_lln": math.sqrt(2) * root}
    assert list(scales) == list(expected)
    for name, value in expected.items():
        assert scales[name].value == pytest.approx(value, rel=1e-14)
        assert getattr(scales, name) is scales[name]
        assert scales[name].label in thresholds.SCALE_LABELS
        assert scales[name].source and scales[name].meaning and scales[name].tex
    assert scales["row_sum_lln"].value == pytest.approx(3.7169, abs=1e-4)
    assert scales["m1_lln"].value == pytest.approx(1.8585, abs=1e-4)
    assert [s.label for s in scales.values()] == ["heuristic", "literature", "derived",
                                                  "derived", "literature"]
    factors = [s.factor for s in scales.values()]
    assert factors == sorted(factors)
    # the largest-entry scale is the smaller root of b² − 4b√L + L = 0
    b, L = attnspec.threshold_scales(500.0)["largest_entry"].value, math.log(500.0)
    assert b * b - 4 * b * math.sqrt(L) + L == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(AttributeError, match="no scale named"):
        scales.nonsense


def test_scales_vectorised():
    ells = np.array([[math.e, math.e**4], [10.0, 1e6]])
    scales = attnspec.threshold_scales(ells)
    assert scales["mean_bound"].value.shape == (2, 2)
    np.testing.assert_allclose(scales["mean_bound"].value[0], [1.0, 2.0])
    assert isinstance(attnspec.threshold_scales(50)["row_sum_lln"].value, float)


@pytest.mark.parametrize("ell", [1, 0.5, -3, math.nan, math.inf, "100", [], [10, 1], None,
                                 ["a", "b"], [[10, 20], [30]], True])
def test_scales_refuse_bad_ell(ell):
    with pytest.raises(ValueError, match="ell must be a finite number > 1"):
        attnspec.threshold_scales(ell)


def test_mean_bound_is_exact():
    """m₁ = Σᵢⱼ Aᵢⱼ² − 1 = mean of the squared singular values of √ℓA^⊥, within [0, ℓ − 1]."""
    rng = np.random.default_rng(5)
    ell = 30
    for A in (rng.dirichlet(np.full(ell, 0.05), size=ell), np.eye(ell)[rng.integers(0, ell, ell)],
              np.full((ell, ell), 1 / ell), attnspec.softmax_attention(ell, ell, 4.9, rng)):
        m1 = np.sum(A * A) - 1
        values = attnspec.squared_singular_values(attnspec.centered(A))
        assert values.mean() == pytest.approx(m1, abs=1e-12)
        assert -1e-12 <= m1 <= ell - 1 + 1e-12
    one_hot = np.eye(ell)[rng.integers(0, ell, ell)]
    assert np.sum(one_hot**2) - 1 == ell - 1
    # so the limit mean s = e^{β²} − 1 is out of reach exactly above the mean_bound scale
    b = attnspec.threshold_scales(ell)["mean_bound"].value
    assert math.expm1(b * b) == pytest.approx(ell - 1, rel=1e-12)


# --- the scales against simulated row sums (i.i.d. Gaussian scores, as in the literature) ---

@pytest.mark.parametrize("power, name", [(1, "row_sum_lln"), (2, "m1_lln")])
def test_law_of_large_numbers_scales(power, name):
    """Median of Σⱼ e^{kβgⱼ}/(ℓ e^{k²β²/2}): → 1 below the scale, → 0 above it (k = 1, 2)."""
    medians = {}
    for ell, rows in ((100, 3000), (10_000, 300)):
        g = _gaussian_rows(ell, rows, seed=ell + power)
        for lam in (0.7, 1.4):
            beta = lam * attnspec.threshold_scales(ell)[name].value
            gamma = power * beta
            ratio = np.exp(gamma * g).sum(axis=1) / (ell * math.exp(gamma * gamma / 2))
            medians[ell, lam] = (np.median(ratio), _bootstrap_se(ratio, np.median, seed=ell))
    for lam, sign in ((0.7, +1), (1.4, -1)):       # below: rises to 1; above: falls to 0
        (small, se_small), (large, se_large) = medians[100, lam], medians[10_000, lam]
        assert sign * (large - small) > Z * math.hypot(se_small, se_large), (lam, small, large)
    assert medians[10_000, 0.7][0] > 0.5 > medians[10_000, 1.4][0]


def test_central_limit_scale():
    """Interquartile range of the standardised row sum: N(0, 1)'s below √(log ℓ/2), → 0 above."""
    iqr = {}
    for ell, rows in ((100, 3000), (10_000, 300)):
        g = _gaussian_rows(ell, rows, seed=7 * ell)
        for lam in (0.6, 1.4):
            beta = lam * attnspec.threshold_scales(ell)["row_sum_clt"].value
            mean, var = math.exp(beta**2 / 2), math.exp(2 * beta**2) - math.exp(beta**2)
            z = (np.exp(beta * g).sum(axis=1) - ell * mean) / math.sqrt(ell * var)

            def spread(x):
                return float(np.subtract(*np.percentile(x, [75, 25])))
            iqr[ell, lam] = (spread(z), _bootstrap_se(z, spread, seed=ell))
    value, se = iqr[10_000, 0.6]
    assert abs(value - NORMAL_IQR) < Z * se
    (small, se_small), (large, se_large) = iqr[100, 1.4], iqr[10_000, 1.4]
    assert small - large > Z * math.hypot(se_small, se_large)
    assert NORMAL_IQR - large > Z * se_large


def test_m1_over_s_falls_at_the_third_scale():
    """Softmax of Gaussian rows: (m₁+1)/(s+1) → 1 below √(log ℓ/2) and → 0 above it."""
    results = {}
    for ell, rows in ((100, 3000), (10_000, 300)):
        g = _gaussian_rows(ell, rows, seed=11 * ell)
        for lam in (0.5, 1.4):
            beta = lam * attnspec.threshold_scales(ell)["m1_lln"].value
            E = np.exp(beta * (g - g.max(axis=1, keepdims=True)))
            A = E / E.sum(axis=1, keepdims=True)
            per_row = ell * np.sum(A * A, axis=1) / math.exp(beta * beta)   # mean: (m₁+1)/(s+1)
            results[ell, lam] = (per_row.mean(), per_row.std(ddof=1) / math.sqrt(rows))
    value, se = results[10_000, 0.5]
    assert abs(value - 1) < Z * se + 0.05          # 0.05: the O(ℓ^{-1/4}) truncation bias
    (small, se_small), (large, se_large) = results[100, 1.4], results[10_000, 1.4]
    assert small - large > Z * math.hypot(se_small, se_large)
    assert large < 0.5 * results[10_000, 0.5][0]


# --- the row-sum fluctuation (Lemma 2) -----------------------------------------------------

def test_row_sum_fluctuation_terms():
    f = attnspec.row_sum_fluctuation(1.0, 1000, 1000)
    assert f.keys == pytest.approx(math.sqrt(math.expm1(1) / 1000))
    assert f.query == pytest.approx(1 / math.sqrt(2000))
    assert (round(f.keys, 3), round(f.query, 3)) == (0.041, 0.022)       # MATH.md §5
    assert f.total == pytest.approx(math.hypot(f.keys, f.query))
    # the two-term form is the leading order of the exact value
    big = attnspec.row_sum_fluctuation(0.8, 10**6, 10**6)
    assert big.total == pytest.approx(big.exact, rel=1e-3)
    assert f.exact == pytest.approx(f.total, rel=0.02)
    for bad in ({"beta": 0.0}, {"ell": 0}, {"d_qk": 1.5}, {"beta": math.nan}):
        kwargs = {"beta": 1.0, "ell": 10, "d_qk": 10, **bad}
        with pytest.raises((ValueError, TypeError), match=next(iter(bad))):
            attnspec.row_sum_fluctuation(**kwargs)


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


@pytest.mark.parametrize("beta, ell, d_qk", [(1e-3, 10, 5), (0.5, 1000, 1000), (1.0, 10, 5),
                                             (1.5, 3, 64), (2.0, 100, 17), (1e-8, 1, 1)])
def test_row_sum_fluctuation_exact_against_quadrature(beta, ell, d_qk):
    """The closed form against an independent quadrature, small β included (no cancellation)."""
    assert attnspec.row_sum_fluctuation(beta, ell, d_qk).exact == pytest.approx(
        _chi2_oracle(beta, ell, d_qk), rel=1e-12, abs=0)


def test_row_sum_fluctuation_at_tiny_beta():
    """β² underflows: every value is still β/√ℓ (query part β⁴/(2d) negligible); 1e-13
    allows for the rounding of log β ≈ −460 in the logarithmic evaluation."""
    for beta in (1e-200, 1e-160, 1e-8):
        f = attnspec.row_sum_fluctuation(beta, 10, 5)
        for value in (f.keys, f.total, f.exact, f.within_draw):
            assert value == pytest.approx(beta / math.sqrt(10), rel=1e-13, abs=0)


def test_row_sum_fluctuation_diverges_at_four_beta_squared():
    """Var rᵢ needs E e^{2βSᵢₖ} = (1 − 4β²/d_qk)^{−d_qk/2}: +∞ once 4β² ≥ d_qk > β²."""
    for beta, d_qk in [(1.0, 4), (1.0, 2), (1.9, 4), (0.5, 1)]:
        f = attnspec.row_sum_fluctuation(beta, 10, d_qk)
        assert f.exact == math.inf and f.within_draw == math.inf
        assert math.isfinite(f.keys) and math.isfinite(f.query)
    # and it grows without bound as 4β² → d_qk from below (continuity with the +∞): at d_qk = 4,
    # β = 1 − ε, E rᵢ² ∝ (1 − β²)^{−2} ≈ (2ε)^{−2}, so sd(rᵢ)/E rᵢ grows like 1/ε
    below = [attnspec.row_sum_fluctuation(1 - eps, 10, 4).exact for eps in (1e-3, 1e-6, 1e-9)]
    assert below[1] / below[0] == pytest.approx(1e3, rel=1e-2)
    assert below[2] / below[1] == pytest.approx(1e3, rel=1e-5)


def test_row_sum_fluctuation_refuses_where_it_has_no_value():
    # β² ≥ d_qk: E rᵢ = ∞, so sd/mean is ∞/∞
    for beta, d_qk in [(1.0, 1), (2.0, 4), (3.0, 4)]:
        with pytest.raises(ValueError, match="beta.*d_qk"):
            attnspec.row_sum_fluctuation(beta, 10, d_qk)
    # finite but beyond float64: β = 26 and d_qk = 2705 > 4β² = 2704
    with pytest.raises(ValueError, match="float64"):
        attnspec.row_sum_fluctuation(26.0, 10, 2705)


def test_row_sum_fluctuation_refusals_are_parameter_errors_naming_beta():
    for beta, d_qk in [(2.0, 4), (26.0, 2705)]:
        with pytest.raises(attnspec.ParameterError, match=r"beta=\S+.*d_qk"):
            attnspec.row_sum_fluctuation(beta, 10, d_qk)


@pytest.mark.parametrize("d_qk, gap", [(4, 1e-3), (100, 1e-6), (100, 1e-12), (2000, 0.3),
                                       (1000, 0.1), (50, 1e-14)])
def test_row_sum_fluctuation_near_the_divergence_within_its_stated_bound(d_qk, gap):
    """Against mpmath at the same float inputs: 4e-13 + 2.2e-16·2β²/(1 − 4β²/d_qk)."""
    mpmath = pytest.importorskip("mpmath")
    beta = math.sqrt(d_qk / 4 * (1 - gap))
    got = attnspec.row_sum_fluctuation(beta, 10, d_qk)
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
    theory = attnspec.row_sum_fluctuation(beta, ell, d_qk)
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

def test_largest_entries_match_the_sampler():
    """Same seed, same Q and K as attnspec.softmax_attention; entries of √ℓA^⊥ recomputed."""
    betas = [0.5, 1.5]
    out = thresholds.largest_entries(120, betas, rng=3)
    for k, beta in enumerate(betas):
        A = attnspec.softmax_attention(120, 120, beta, rng=3)
        M2 = attnspec.centered(A) ** 2
        # centred(A) = √ℓ A P, whose entries are √ℓ(Aᵢⱼ − 1/ℓ) because A 1 = 1
        assert out["max_entry2"][k] == pytest.approx(M2.max(), rel=1e-10)
        edge = attnspec.AttentionLaw(beta, 1.0).support()[1]
        assert out["edge"][k] == pytest.approx(edge, rel=1e-12)
        assert out["entries_above"][k] == np.count_nonzero(M2 > edge)
        assert out["m1"][k] == pytest.approx(
            attnspec.squared_singular_values(attnspec.centered(A)).mean(), rel=1e-10)
    assert out["beta"] == betas


def test_largest_entries_refuse_bad_input():
    with pytest.raises(ValueError, match="betas"):
        thresholds.largest_entries(50, [], rng=0)
    with pytest.raises(ValueError, match="betas"):
        thresholds.largest_entries(50, [1.0, 6.0], rng=0)
    with pytest.raises(ValueError, match="ell"):
        thresholds.largest_entries(1, [1.0], rng=0)
    with pytest.raises(ValueError, match="betas"):
        thresholds.largest_entries(50, "1.0", rng=0)


def test_entry_onset_interpolates():
    betas = np.array([0.5, 1.0, 1.5, 2.0, 2.5])
    edges = np.ones(5)
    ratio = np.exp([-2.0, -1.0, 1.0, 1.0, -1.0])        # crosses up at 1.25, down at 2.25
    assert thresholds.entry_onset(betas, ratio, edges) == pytest.approx((1.25, 2.25))
    onset, end = thresholds.entry_onset(betas, np.exp([-2, -1, 1, 2, 3.0]), edges)
    assert onset == pytest.approx(1.25) and math.isnan(end)
    assert all(map(math.isnan, thresholds.entry_onset(betas, np.full(5, 0.5), edges)))
    with pytest.raises(ValueError, match="increasing"):
        thresholds.entry_onset(betas[::-1], ratio, edges)
    with pytest.raises(ValueError, match="same length"):
        thresholds.entry_onset(betas, ratio[:3], edges)


def test_phase_diagram_draws_every_scale_and_window():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ells, betas = [100, 1000], [0.5, 1.0, 2.0]
    values = np.full((3, 2), 0.1)
    fig = attnspec.plotting.phase_diagram(ells, betas, values, values,
                                          onsets={100: (1.2, np.nan), 1000: (1.1, 2.1)})
    left = fig.axes[0]
    labels = [line.get_label() for line in left.get_lines()]
    scales = attnspec.threshold_scales(1000)
    for name in ("largest_entry", "m1_lln", "mean_bound", "row_sum_lln"):
        assert any(scales[name].tex in label and scales[name].label in label for label in labels)
    # a scale curve passes through its value at ℓ = 1000
    line = next(ln for ln in left.get_lines() if scales["m1_lln"].tex in ln.get_label())
    x, y = line.get_data()
    assert np.interp(np.log(1000), np.log(x), y) == pytest.approx(scales["m1_lln"].value,
                                                                 rel=1e-3)
    bars = [ln for ln in left.get_lines() if ln.get_linewidth() == 5]
    assert [tuple(b.get_ydata()) for b in bars] == [(1.2, 2.0), (1.1, 2.1)]
    plt.close(fig)


def test_onset_summary_means_and_crossings():
    betas = [0.5, 1.0, 1.5, 2.0]
    runs = [{"beta": betas, "edge": [1.0, 2.0, 4.0, 8.0], "max_entry2": top,
             "row_sum_rel_sd": [0.1, 0.2, 0.3, 0.4], "m1": [1, 2, 3, 4], "entries_above": []}
            for top in ([0.5, 1.0, 8.0, 4.0], [0.5, 1.0, 8.0, 4.0])]
    summary = thresholds.onset_summary(runs)
    np.testing.assert_allclose(summary["ratio"], [0.5, 0.5, 2.0, 0.5])
    np.testing.assert_allclose(summary["ratio_se"], 0.0)
    np.testing.assert_allclose(summary["cross_ratio"],
                               (np.array([0.5, 1, 8, 4]) + 2 * np.expm1(np.square(betas)))
                               / [1, 2, 4, 8])
    assert summary["onset"] == pytest.approx(1.25) and summary["end"] == pytest.approx(1.75)
    assert summary["onset_se"] == 0.0
    assert (summary["draws"], summary["onset_crossed"]) == (2, 2)
    assert math.isnan(thresholds.onset_summary(runs[:1])["onset_se"])
    with pytest.raises(ValueError, match="same betas"):
        thresholds.onset_summary([runs[0], {**runs[1], "beta": [0.1, 1.0, 1.5, 2.0]}])
    with pytest.raises(ValueError, match="non-empty"):
        thresholds.onset_summary([])


def _onset_runs(tops):
    betas = [0.5, 1.0, 1.5, 2.0]
    return [{"beta": betas, "edge": [1.0, 1.0, 1.0, 1.0], "max_entry2": top,
             "row_sum_rel_sd": [0.1] * 4, "m1": [1] * 4} for top in tops]


def test_onset_standard_error_only_where_every_draw_crosses():
    """A draw whose largest entry never clears the edge has no onset: no se, but a count."""
    # draws crossing at 1.25 and 0.75 (log-linear interpolation: e^{±1} around 1), and one
    # that stays below the edge; the mean ratio still crosses
    tops = [np.exp([-2, -1, 1, 2.0]), np.exp([-1, 1, 2, 3.0]), np.full(4, 0.5)]
    summary = thresholds.onset_summary(_onset_runs(tops))
    assert (summary["draws"], summary["onset_crossed"]) == (3, 2)
    assert math.isfinite(summary["onset"]) and math.isnan(summary["onset_se"])
    assert thresholds.onset_text(summary) == f"{summary['onset']:.3g} ± n/a (2 of 3 draws cross)"
    assert thresholds.onset_text(summary, crossing=False) == f"{summary['onset']:.3g} ± n/a"
    # all three cross: the standard error of the per-draw onsets 1.25, 0.75, 1.25
    tops[2] = tops[0]
    summary = thresholds.onset_summary(_onset_runs(tops))
    assert summary["onset_crossed"] == 3
    assert summary["onset_se"] == pytest.approx(np.std([1.25, 0.75, 1.25], ddof=1) / np.sqrt(3))
    assert thresholds.onset_text(summary) == "0.96 ± 0.17"   # se 0.167: two digits, as format_with_se


def test_onset_text_single_draw_and_no_crossing():
    one = thresholds.onset_summary(_onset_runs([np.exp([-2, -1, 1, 2.0])]))
    assert thresholds.onset_text(one) == "1.25 (one draw)"
    assert thresholds.onset_text(one, crossing=False) == "1.25"
    none = thresholds.onset_summary(_onset_runs([np.full(4, 0.5)] * 2))
    assert none["onset_crossed"] == 0 and thresholds.onset_text(none) == "(none in the grid)"
    with pytest.raises(ValueError, match="onset_summary"):
        thresholds.onset_text({"onset": 1.0})
    with pytest.raises(TypeError, match="crossing"):
        thresholds.onset_text(one, crossing="no")


def test_entry_onset_above_the_edge_from_the_first_beta():
    """A ratio already above 1 at betas[0]: the onset is betas[0], an upper bound, not nan."""
    assert thresholds.entry_onset([1, 2, 3], [2, 3, 4], [1, 1, 1])[0] == 1.0
    assert math.isnan(thresholds.entry_onset([1, 2, 3], [2, 3, 4], [1, 1, 1])[1])
    onset, end = thresholds.entry_onset([1, 2, 3], np.exp([1.0, 1.0, -1.0]), [1, 1, 1])
    assert onset == 1.0 and end == pytest.approx(2.5)
    # up, down, up again: still above at the largest β, so there is no end
    onset, end = thresholds.entry_onset([1, 2, 3, 4], np.exp([-1.0, 1, -1, 1]), np.ones(4))
    assert onset == pytest.approx(1.5) and math.isnan(end)


def test_onset_summary_and_text_above_the_edge_from_the_first_beta():
    # the mean ratio is above 1 at β = 0.5; one draw is below the edge everywhere
    tops = [np.exp([2, 2, 1, -1.0]), np.exp([1, 1, -1, -2.0]), np.full(4, 0.5)]
    summary = thresholds.onset_summary(_onset_runs(tops))
    assert summary["onset"] == 0.5 and summary["onset_at_start"]
    assert 1.5 < summary["end"] < 2.0          # the mean ratio drops below 1 in (1.5, 2)
    # draws whose own largest entry clears the edge anywhere in the grid
    assert (summary["onset_crossed"], summary["draws_at_start"]) == (2, 2)
    assert math.isnan(summary["onset_se"])
    text = "≤ 0.5 (above the edge at the grid's first β)"
    assert thresholds.onset_text(summary) == text
    assert thresholds.onset_text(summary, crossing=False) == text
    assert thresholds.onset_text(summary, key="end") == f"{summary['end']:.3g}"
    # a mean that crosses from below while one draw starts above: no se, and the count says why
    tops = [np.exp([-2, -1, 1, 2.0]), np.exp([-2, -1, 1, 2.0]), np.exp([0.1, 1, 2, 3.0])]
    summary = thresholds.onset_summary(_onset_runs(tops))
    assert not summary["onset_at_start"] and summary["draws_at_start"] == 1
    assert summary["onset_crossed"] == 3 and math.isnan(summary["onset_se"])
    assert thresholds.onset_text(summary).endswith(
        " ± n/a (1 of 3 draws above the edge at the first β)")


def test_onset_text_none_key_and_inconsistent_counts():
    none = thresholds.onset_summary(_onset_runs([np.full(4, 0.5)] * 2))
    assert thresholds.onset_text(none, none="none") == "none"
    assert thresholds.onset_text(none, key="end", none="none") == "none"
    # 0.5 + 2(e^{0.25} − 1) > 1: the cross estimate is above the edge from the first β
    assert none["cross_onset_at_start"]
    assert thresholds.onset_text(none, key="cross_onset") == \
        "≤ 0.5 (above the edge at the grid's first β)"
    one = thresholds.onset_summary(_onset_runs([np.exp([-2, -1, 1, 2.0])]))
    for bad, name in (({"draws": 0, "onset_crossed": 0}, "draws"),
                      ({"draws": 3, "onset_crossed": 5}, "onset_crossed"),
                      ({"draws": 3, "onset_crossed": -1}, "onset_crossed")):
        with pytest.raises(attnspec.ParameterError, match=name):
            thresholds.onset_text({**one, **bad})
    with pytest.raises(ValueError, match="key"):
        thresholds.onset_text(one, key="start")
    with pytest.raises(TypeError, match="none"):
        thresholds.onset_text(one, none=None)


def test_row_sum_fluctuation_log_mean_is_the_chi2_mean():
    """E rᵢ = ℓ E e^{β²‖q‖²/(2d_qk)} = ℓ(1 − β²/d_qk)^{−d_qk/2} (χ² moment generating function)."""
    for beta, ell, d_qk in [(0.5, 300, 300), (1.5, 10, 3), (1e-200, 7, 5)]:
        f = attnspec.row_sum_fluctuation(beta, ell, d_qk)
        assert f.log_mean == pytest.approx(
            math.log(ell * (1 - beta**2 / d_qk) ** (-d_qk / 2)), rel=1e-14)
