"""Tests of attnspec.experiments.outlier_onset: the finite-ℓ outlier onset (A4 §5).

Oracles: the sampler's own matrices for :func:`largest_entries`, hand-made ratios whose
log-linear crossings are known for :func:`entry_onset` and :func:`onset_summary`.
"""

import math

import numpy as np
import pytest

import attnspec
from attnspec.experiments import outlier_onset


def test_largest_entries_match_the_sampler():
    """Same seed, same Q and K as attnspec.softmax_attention; entries of √ℓA^⊥ recomputed."""
    betas = [0.5, 1.5]
    out = outlier_onset.largest_entries(120, betas, rng=3)
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
        outlier_onset.largest_entries(50, [], rng=0)
    with pytest.raises(ValueError, match="betas"):
        outlier_onset.largest_entries(50, [1.0, 6.0], rng=0)
    with pytest.raises(ValueError, match="ell"):
        outlier_onset.largest_entries(1, [1.0], rng=0)
    with pytest.raises(ValueError, match="betas"):
        outlier_onset.largest_entries(50, "1.0", rng=0)


def test_entry_onset_interpolates():
    betas = np.array([0.5, 1.0, 1.5, 2.0, 2.5])
    edges = np.ones(5)
    ratio = np.exp([-2.0, -1.0, 1.0, 1.0, -1.0])        # crosses up at 1.25, down at 2.25
    assert outlier_onset.entry_onset(betas, ratio, edges) == pytest.approx((1.25, 2.25))
    onset, end = outlier_onset.entry_onset(betas, np.exp([-2, -1, 1, 2, 3.0]), edges)
    assert onset == pytest.approx(1.25) and math.isnan(end)
    assert all(map(math.isnan, outlier_onset.entry_onset(betas, np.full(5, 0.5), edges)))
    with pytest.raises(ValueError, match="increasing"):
        outlier_onset.entry_onset(betas[::-1], ratio, edges)
    with pytest.raises(ValueError, match="same length"):
        outlier_onset.entry_onset(betas, ratio[:3], edges)


def test_onset_summary_means_and_crossings():
    betas = [0.5, 1.0, 1.5, 2.0]
    runs = [{"beta": betas, "edge": [1.0, 2.0, 4.0, 8.0], "max_entry2": top,
             "row_sum_rel_sd": [0.1, 0.2, 0.3, 0.4], "m1": [1, 2, 3, 4], "entries_above": []}
            for top in ([0.5, 1.0, 8.0, 4.0], [0.5, 1.0, 8.0, 4.0])]
    summary = outlier_onset.onset_summary(runs)
    np.testing.assert_allclose(summary.ratio, [0.5, 0.5, 2.0, 0.5])
    np.testing.assert_allclose(summary.ratio_se, 0.0)
    np.testing.assert_allclose(summary.cross_ratio,
                               (np.array([0.5, 1, 8, 4]) + 2 * np.expm1(np.square(betas)))
                               / [1, 2, 4, 8])
    assert summary.onset == pytest.approx(1.25) and summary.end == pytest.approx(1.75)
    assert summary.onset_se == 0.0
    assert (summary.draws, summary.onset_crossed) == (2, 2)
    assert math.isnan(outlier_onset.onset_summary(runs[:1]).onset_se)
    with pytest.raises(ValueError, match="same betas"):
        outlier_onset.onset_summary([runs[0], {**runs[1], "beta": [0.1, 1.0, 1.5, 2.0]}])
    with pytest.raises(ValueError, match="non-empty"):
        outlier_onset.onset_summary([])


def _onset_runs(tops):
    betas = [0.5, 1.0, 1.5, 2.0]
    return [{"beta": betas, "edge": [1.0, 1.0, 1.0, 1.0], "max_entry2": top,
             "row_sum_rel_sd": [0.1] * 4, "m1": [1] * 4} for top in tops]


def test_onset_standard_error_only_where_every_draw_crosses():
    """A draw whose largest entry never clears the edge has no onset: no se, but a count."""
    # draws crossing at 1.25 and 0.75 (log-linear interpolation: e^{±1} around 1), and one
    # that stays below the edge; the mean ratio still crosses
    tops = [np.exp([-2, -1, 1, 2.0]), np.exp([-1, 1, 2, 3.0]), np.full(4, 0.5)]
    summary = outlier_onset.onset_summary(_onset_runs(tops))
    assert (summary.draws, summary.onset_crossed) == (3, 2)
    assert math.isfinite(summary.onset) and math.isnan(summary.onset_se)
    assert summary.text() == f"{summary.onset:.3g} ± n/a (2 of 3 draws cross)"
    assert summary.text(crossing=False) == f"{summary.onset:.3g} ± n/a"
    # all three cross: the standard error of the per-draw onsets 1.25, 0.75, 1.25
    tops[2] = tops[0]
    summary = outlier_onset.onset_summary(_onset_runs(tops))
    assert summary.onset_crossed == 3
    assert summary.onset_se == pytest.approx(np.std([1.25, 0.75, 1.25], ddof=1) / np.sqrt(3))
    assert summary.text() == "0.96 ± 0.17"   # se 0.167: two digits, as format_with_se


def test_onset_summary_text_single_draw_and_no_crossing():
    one = outlier_onset.onset_summary(_onset_runs([np.exp([-2, -1, 1, 2.0])]))
    assert one.text() == "1.25 (one draw)"
    assert one.text(crossing=False) == "1.25"
    none = outlier_onset.onset_summary(_onset_runs([np.full(4, 0.5)] * 2))
    assert none.onset_crossed == 0 and none.text() == "(none in the grid)"
    with pytest.raises(TypeError, match="crossing"):
        one.text(crossing="no")


def test_entry_onset_above_the_edge_from_the_first_beta():
    """A ratio already above 1 at betas[0]: the onset is betas[0], an upper bound, not nan."""
    assert outlier_onset.entry_onset([1, 2, 3], [2, 3, 4], [1, 1, 1])[0] == 1.0
    assert math.isnan(outlier_onset.entry_onset([1, 2, 3], [2, 3, 4], [1, 1, 1])[1])
    onset, end = outlier_onset.entry_onset([1, 2, 3], np.exp([1.0, 1.0, -1.0]), [1, 1, 1])
    assert onset == 1.0 and end == pytest.approx(2.5)
    # up, down, up again: still above at the largest β, so there is no end
    onset, end = outlier_onset.entry_onset([1, 2, 3, 4], np.exp([-1.0, 1, -1, 1]), np.ones(4))
    assert onset == pytest.approx(1.5) and math.isnan(end)


def test_onset_summary_and_text_above_the_edge_from_the_first_beta():
    # the mean ratio is above 1 at β = 0.5; one draw is below the edge everywhere
    tops = [np.exp([2, 2, 1, -1.0]), np.exp([1, 1, -1, -2.0]), np.full(4, 0.5)]
    summary = outlier_onset.onset_summary(_onset_runs(tops))
    assert summary.onset == 0.5 and summary.onset_at_start
    assert 1.5 < summary.end < 2.0          # the mean ratio drops below 1 in (1.5, 2)
    # draws whose own largest entry clears the edge anywhere in the grid
    assert (summary.onset_crossed, summary.draws_at_start) == (2, 2)
    assert math.isnan(summary.onset_se)
    text = "≤ 0.5 (above the edge at the grid's first β)"
    assert summary.text() == text
    assert summary.text(crossing=False) == text
    assert summary.text(key="end") == f"{summary.end:.3g}"
    # a mean that crosses from below while one draw starts above: no se, and the count says why
    tops = [np.exp([-2, -1, 1, 2.0]), np.exp([-2, -1, 1, 2.0]), np.exp([0.1, 1, 2, 3.0])]
    summary = outlier_onset.onset_summary(_onset_runs(tops))
    assert not summary.onset_at_start and summary.draws_at_start == 1
    assert summary.onset_crossed == 3 and math.isnan(summary.onset_se)
    assert summary.text().endswith(
        " ± n/a (1 of 3 draws above the edge at the first β)")


def test_onset_summary_text_none_and_key():
    none = outlier_onset.onset_summary(_onset_runs([np.full(4, 0.5)] * 2))
    assert none.text(none="none") == "none"
    assert none.text(key="end", none="none") == "none"
    # 0.5 + 2(e^{0.25} − 1) > 1: the cross estimate is above the edge from the first β
    assert none.cross_onset_at_start
    assert none.text(key="cross_onset") == \
        "≤ 0.5 (above the edge at the grid's first β)"
    one = outlier_onset.onset_summary(_onset_runs([np.exp([-2, -1, 1, 2.0])]))
    with pytest.raises(ValueError, match="key"):
        one.text(key="start")
    with pytest.raises(TypeError, match="none"):
        one.text(none=None)


def test_first_outliers_below_walks_down_the_run_to_the_onset():
    betas = [0.25, 0.5, 0.75, 1.0, 1.25]
    counts = [[0, 1, 0], [0, 0, 0], [2, 0, 1], [3, 1, 0], [4, 4, 4]]
    # onset 1.1: 1.0 and 0.75 have outliers, 0.5 none; the isolated count at 0.25 is not
    # part of the run
    assert outlier_onset.first_outliers_below(betas, counts, 1.1) == (2, 2)
    assert outlier_onset.first_outliers_below(betas, counts, 0.6) == (None, 0)
    assert outlier_onset.first_outliers_below(betas, counts, 0.3) == (0, 1)
    assert outlier_onset.first_outliers_below(betas, counts, 0.2) == (None, 0)
    assert outlier_onset.first_outliers_below(betas, counts, math.nan) == (None, 0)
    with pytest.raises(ValueError, match="increasing"):
        outlier_onset.first_outliers_below(betas[::-1], counts, 1.1)
    with pytest.raises(ValueError, match="shapes"):
        outlier_onset.first_outliers_below(betas, counts[:3], 1.1)


def test_first_outliers_below_refuses_non_numeric_input():
    with pytest.raises(attnspec.ParameterTypeError, match="betas"):
        outlier_onset.first_outliers_below(["a", "b"], [[0, 1], [1, 1]], 1.0)
