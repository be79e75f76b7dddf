"""Tests of attnspec.outliers: stepwise bulks, bulk distances, outlier localisation, scales."""

import math
import re

import numpy as np
import pytest

import attnspec
from attnspec.experiments import outliers, stepwise


def test_stepwise_spectra_match_the_chain():
    """Each spectrum is the squared singular values of the chain's matrix, top removed."""
    spectra = stepwise.stepwise_spectra(40, 40, 1.0, rng=3, degree=3, drop_top=2)
    chain = attnspec.stepwise_chain(40, 40, 1.0, rng=3, degree=3)
    assert list(spectra) == list(attnspec.STEPWISE_KEYS) + ["mp"]
    for key in attnspec.STEPWISE_KEYS:
        expected = np.linalg.svd(chain[key], compute_uv=False) ** 2
        np.testing.assert_allclose(spectra[key], expected[2:], rtol=1e-10, atol=1e-12)
    assert spectra["mp"].shape == (38,)
    assert set(stepwise.STEPWISE_LABELS) == set(spectra)


def test_stepwise_spectra_without_surrogate():
    """surrogate=False leaves the MP surrogate out."""
    assert "mp" not in stepwise.stepwise_spectra(20, 20, 0.5, rng=0, surrogate=False)


def test_stepwise_means_are_close_to_their_limits():
    """Mean of all values: s for the s-family, s_Q for the truncated pair (ℓ = 300, β = 1)."""
    spectra = stepwise.stepwise_spectra(300, 300, 1.0, rng=1, degree=3, drop_top=0)
    s, s_q = math.e - 1, 1 + 1 / 2 + 1 / 6
    for key in ("softmax", "Y_f_lin", "mp"):
        assert abs(spectra[key].mean() - s) < 0.1, key
    for key in ("Y_Q", "Y_Q_lin"):
        assert abs(spectra[key].mean() - s_q) < 0.1, key


def test_compare_bulks_identities():
    """Zero distance to itself; sorted gap = W1 for one draw; sorted gap >= W1 of the pools."""
    rng = np.random.default_rng(0)
    a = [rng.exponential(size=50) for _ in range(3)]
    b = [rng.exponential(size=50) * 1.2 for _ in range(3)]
    same = stepwise.compare_bulks(a, a)
    assert same == {"ks": 0.0, "w1": 0.0, "sorted_gap": 0.0}
    one = stepwise.compare_bulks(a[:1], b[:1])
    assert one["sorted_gap"] == pytest.approx(one["w1"], rel=1e-12)
    several = stepwise.compare_bulks(a, b)
    assert several["sorted_gap"] >= several["w1"] - 1e-12
    assert 0 < several["ks"] <= 1


def test_compare_bulks_shift():
    """Shifting every value by t gives W1 = sorted gap = t."""
    x = [np.linspace(0, 1, 11)]
    d = stepwise.compare_bulks([x[0] + 0.25], x)
    assert d["w1"] == pytest.approx(0.25) and d["sorted_gap"] == pytest.approx(0.25)


@pytest.mark.parametrize("spectra, reference, message", [
    ([], [], "spectra and reference must be non-empty lists"),
    ([np.ones(3)], [np.ones(3), np.ones(3)], "got 1 and 2"),
    ([np.ones(3)], [np.ones(4)], "got 3 and 4 in draw 0"),
])
def test_compare_bulks_rejects_mismatched_draws(spectra, reference, message):
    """Different numbers of draws or of values per draw are refused by name."""
    with pytest.raises(ValueError, match=re.escape(message)):
        stepwise.compare_bulks(spectra, reference)


def test_spectrum_distances_fields_and_limits():
    """Per-draw lists, the edge of ν_∞ and s; the structural zero is left out of m1."""
    result = outliers.spectrum_distances(120, 0.5, rng=0, draws=2)
    assert set(result) == {"ks_law", "ks_mp", "outliers", "m1", "top", "edge", "s"}
    assert all(len(result[k]) == 2 for k in ("ks_law", "ks_mp", "outliers", "m1", "top"))
    assert result["edge"] == pytest.approx(attnspec.AttentionLaw(0.5, 1.0).support()[1])
    assert result["s"] == pytest.approx(math.expm1(0.25))
    # at small beta the law is much closer than MP (MATH.md §5: 0.003 vs 0.118 at ℓ = 1000)
    assert max(result["ks_law"]) < 0.06 < min(result["ks_mp"])
    assert all(isinstance(n, int) for n in result["outliers"])


def test_spectrum_distances_is_reproducible_and_sweepable():
    """The same seed gives the same numbers directly and through attnspec.sweep."""
    direct = outliers.spectrum_distances(
        60, 1.0, rng=np.random.default_rng(np.random.SeedSequence(4).spawn(1)[0]))
    (record,) = attnspec.sweep(outliers.spectrum_distances, {"ell": [60], "beta": [1.0]},
                               executor="serial", seed=4, progress=False)
    assert record.result == direct


def test_outlier_localisation_finds_a_planted_entry():
    """A single huge entry gives the top pair: localised on its row and column, rank 1,
    and s² ≈ ‖row‖² + ‖col‖² − m² (the cross prediction)."""
    rng = np.random.default_rng(0)
    M = rng.standard_normal((200, 200)) / np.sqrt(200)
    M[17, 42] = 8.0
    loc = outliers.outlier_localisation(M, k=2)
    assert loc["row"][0] == 17 and loc["col"][0] == 42 and loc["entry_rank"][0] == 1
    assert loc["entry"][0] == 8.0
    assert loc["ipr"][0] > 0.9 and loc["ipr_right"][0] > 0.9
    cross = loc["row_norm2"][0] + loc["col_norm2"][0] - 64.0
    assert loc["values"][0] == pytest.approx(cross, rel=0.02)
    np.testing.assert_allclose(loc["values"], np.linalg.svd(M, compute_uv=False) ** 2,
                               rtol=1e-10, atol=1e-12)
    assert np.median(loc["ipr"][1:]) < 10 / 200     # the rest is delocalised (≈ 3/ℓ)


def test_outlier_localisation_rejects_tall_matrices_and_bad_k():
    """Named errors for ℓ > n and k out of range."""
    with pytest.raises(ValueError, match=re.escape("at most as many rows as columns")):
        outliers.outlier_localisation(np.ones((5, 3)))
    with pytest.raises(ValueError, match=re.escape("k must be an integer >= 1 and <= 4")):
        outliers.outlier_localisation(np.eye(4), k=5)


def test_outlier_study_counts_above_the_edge():
    """count = number of values above the edge of ν_∞; outliers at β = 1.5 are localised."""
    result = outliers.outlier_study(300, 1.5, rng=2)
    assert result["count"] == int(np.sum(result["values"] > result["edge"]))
    assert result["count"] >= 1
    assert len(result["row"]) == result["count"]
    assert np.max(result["ipr"][:result["count"]]) > 0.2
    assert np.median(result["ipr"][result["count"]:]) < 10 / 300


def test_histogram_over_sorted_builds_every_panel():
    """Two rows of axes per row of panels; common scales; unused panels hidden."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(0)
    spectra = {name: [rng.exponential(size=40) for _ in range(2)] for name in "abcd"}
    labels = {name: name.upper() for name in spectra}
    law = attnspec.MarchenkoPastur(1.0, 1.0)
    fig = attnspec.plotting.histogram_over_sorted(spectra, labels, law=law,
                                                  reference={"b": "a"}, offset=2,
                                                  law_label="law", reference_label="prev")
    axes = fig.axes
    assert len(axes) == 4 * 3                       # 2 rows of panels × (hist + sorted) × 3
    assert sum(ax.get_visible() for ax in axes) == 8
    assert len({ax.get_ylim() for ax in axes[:3]}) == 1   # histograms share the scale
    sorted_b = axes[4]
    assert sorted_b.lines[0].get_xdata()[0] == 3          # ranks start after the offset
    assert len(sorted_b.lines) == 3                       # simulated, reference, quantiles
    assert {t.get_text() for t in fig.legends[0].get_texts()} == {"simulated", "law", "prev"}
    plt.close(fig)


def test_heat_map_sorts_cells_and_annotates():
    """Cells follow sorted grids; one number per cell; a colour bar when labelled."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    values = np.array([[0.1, 0.2, 0.3], [0.01, 0.02, 0.03]])
    mesh = attnspec.plotting.heat_map(ax, [500, 125, 250], [2.0, 1.0], values,
                                      colorbar_label="KS")
    grid = mesh.get_array().reshape(2, 3)
    np.testing.assert_allclose(grid, [[0.02, 0.03, 0.01], [0.2, 0.3, 0.1]])
    assert len(ax.texts) == 6 and ax.get_xscale() == "log" and len(fig.axes) == 2
    plt.close(fig)
