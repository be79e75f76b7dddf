"""Tests of attnspec.experiments.outliers: distances to the limit laws, outlier localisation."""

import math
import re

import numpy as np
import pytest

import attnspec
from attnspec.experiments import outliers


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
