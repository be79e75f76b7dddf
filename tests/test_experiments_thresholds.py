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
    scales = attnspec.experiments.thresholds.threshold_scales(1000)
    root = math.sqrt(math.log(1000))
    expected = {"largest_entry": (2 - math.sqrt(3)) * root, "row_sum_clt": root / math.sqrt(2),
                "mean_shortfall": root * math.sqrt(2 / 3), "mean_bound": root,
                "row_sum_lln": math.sqrt(2) * root}
    assert list(scales) == list(expected)
    for name, value in expected.items():
        assert scales[name].value == pytest.approx(value, rel=1e-14)
        assert getattr(scales, name) is scales[name]
        assert scales[name].label in thresholds.SCALE_LABELS
        assert scales[name].source and scales[name].meaning and scales[name].tex
    assert scales["row_sum_lln"].value == pytest.approx(3.7169, abs=1e-4)
    assert scales["mean_shortfall"].value == pytest.approx(2.1460, abs=1e-4)
    assert [s.label for s in scales.values()] == ["heuristic", "literature", "heuristic",
                                                  "derived", "literature"]
    factors = [s.factor for s in scales.values()]
    assert factors == sorted(factors)
    # the largest-entry scale is the smaller root of b² − 4b√L + L = 0
    b, L = attnspec.experiments.thresholds.threshold_scales(500.0)["largest_entry"].value, math.log(500.0)
    assert b * b - 4 * b * math.sqrt(L) + L == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(AttributeError, match="no scale named"):
        scales.nonsense


def test_scales_vectorised():
    ells = np.array([[math.e, math.e**4], [10.0, 1e6]])
    scales = attnspec.experiments.thresholds.threshold_scales(ells)
    assert scales["mean_bound"].value.shape == (2, 2)
    np.testing.assert_allclose(scales["mean_bound"].value[0], [1.0, 2.0])
    assert isinstance(attnspec.experiments.thresholds.threshold_scales(50)["row_sum_lln"].value, float)


@pytest.mark.parametrize("ell", [1, 0.5, -3, math.nan, math.inf, "100", [], [10, 1], None,
                                 ["a", "b"], [[10, 20], [30]], True])
def test_scales_refuse_bad_ell(ell):
    with pytest.raises(ValueError, match="ell must be a finite number > 1"):
        attnspec.experiments.thresholds.threshold_scales(ell)


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
    b = attnspec.experiments.thresholds.threshold_scales(ell)["mean_bound"].value
    assert math.expm1(b * b) == pytest.approx(ell - 1, rel=1e-12)


# --- the scales against simulated row sums (i.i.d. Gaussian scores, as in the literature) ---


@pytest.mark.parametrize("power, name", [(1, "row_sum_lln"), (2, "row_sum_clt")])
def test_law_of_large_numbers_scales(power, name):
    """Median of Σⱼ e^{kβgⱼ}/(ℓ e^{k²β²/2}): → 1 below the scale, → 0 above it (k = 1, 2;
    for k = 2 the scale is √(log ℓ/2), where one row's Σⱼ e^{2βgⱼ} stops concentrating)."""
    medians = {}
    for ell, rows in ((100, 3000), (10_000, 300)):
        g = _gaussian_rows(ell, rows, seed=ell + power)
        for lam in (0.7, 1.4):
            beta = lam * attnspec.experiments.thresholds.threshold_scales(ell)[name].value
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
            beta = lam * attnspec.experiments.thresholds.threshold_scales(ell)["row_sum_clt"].value
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


def test_m1_over_s_falls_at_the_mean_shortfall_scale():
    """Softmax of Gaussian rows: (m₁+1)/(s+1), a mean over rows, → 1 below √(2 log ℓ/3) and
    → 0 above it (1.15 times it is still below the exact bound √(log ℓ))."""
    results = {}
    for ell, rows in ((100, 3000), (10_000, 300)):
        g = _gaussian_rows(ell, rows, seed=11 * ell)
        for lam in (0.5, 1.15):
            beta = lam * attnspec.experiments.thresholds.threshold_scales(ell)["mean_shortfall"].value
            E = np.exp(beta * (g - g.max(axis=1, keepdims=True)))
            A = E / E.sum(axis=1, keepdims=True)
            per_row = ell * np.sum(A * A, axis=1) / math.exp(beta * beta)   # mean: (m₁+1)/(s+1)
            results[ell, lam] = (per_row.mean(), per_row.std(ddof=1) / math.sqrt(rows))
    value, se = results[10_000, 0.5]
    assert abs(value - 1) < Z * se + 0.05          # 0.05: the O(ℓ^{-1/4}) truncation bias
    (small, se_small), (large, se_large) = results[100, 1.15], results[10_000, 1.15]
    assert small - large > Z * math.hypot(se_small, se_large)
    assert large < 0.5 * results[10_000, 0.5][0]


# --- the row-sum fluctuation (A4 §5) -----------------------------------------------------


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
    scales = attnspec.experiments.thresholds.threshold_scales(1000)
    for name in ("largest_entry", "row_sum_clt", "mean_shortfall", "mean_bound", "row_sum_lln"):
        assert any(scales[name].tex in label and scales[name].label in label for label in labels)
    # a scale curve passes through its value at ℓ = 1000
    line = next(ln for ln in left.get_lines()
                if scales["mean_shortfall"].tex in ln.get_label())
    x, y = line.get_data()
    assert np.interp(np.log(1000), np.log(x), y) == pytest.approx(
        scales["mean_shortfall"].value, rel=1e-3)
    bars = [ln for ln in left.get_lines() if ln.get_linewidth() == 5]
    assert [tuple(b.get_ydata()) for b in bars] == [(1.2, 2.0), (1.1, 2.1)]
    plt.close(fig)
