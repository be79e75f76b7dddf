"""The relaxation study of chapter 8 and the resolved KS distance (experiments/realistic.py)."""

import math

import numpy as np
import pytest

import attnspec
from attnspec.experiments.realistic import relaxation_spectra, relaxation_study
from attnspec.sampling.inputs import gaussian_tokens
from attnspec.sampling.masked import causal_attention


@pytest.mark.parametrize("relaxation", attnspec.experiments.realistic.RELAXATIONS)
def test_relaxation_spectra_are_seeded_and_sized(relaxation):
    tokens = np.random.default_rng(1).standard_normal((32, 20))
    first = relaxation_spectra(relaxation, 32, 1.0, 5, d_h=8, tokens=tokens)
    second = relaxation_spectra(relaxation, 32, 1.0, 5, d_h=8, tokens=tokens)
    keys = {"softmax", "linear"} | ({"corrected"} if relaxation != "causal" else set())
    assert set(first) == keys
    for key in keys:
        assert first[key].shape == (32,)
        assert np.array_equal(first[key], second[key])
        assert np.all(np.diff(first[key]) <= 0)


def test_relaxation_study_rows_and_out_of_reach(monkeypatch):
    rows = relaxation_study("head_width", [16, 32], draws=1, seed=1, drop_top=1, d_h=2)
    assert [row["ell"] for row in rows] == [16, 32] and rows[1]["c"] == 16
    assert all(row["law"] is not None for row in rows)
    # a (β, c) that AttentionLaw refuses with ValueError is reported as out of reach (NaN)
    def refuse(beta, c):
        raise ValueError(f"c must be <= 100; got c={c}")
    monkeypatch.setattr("attnspec.experiments.realistic.AttentionLaw", refuse)
    far = relaxation_study("head_width", [16], draws=1, seed=1, drop_top=0, d_h=2)
    assert far[0]["law"] is None
    assert math.isnan(far[0]["ks"]["softmax_law"]) and math.isnan(far[0]["ks"]["linear_law"])
    assert math.isfinite(far[0]["ks"]["softmax_mp"])
    monkeypatch.undo()
    causal = relaxation_study("causal", [16], draws=2, seed=0, drop_top=0)
    assert set(causal[0]["ks"]) >= {"softmax_linear", "softmax_masked_iid", "softmax_mp"}
    assert len(causal[0]["spectra"]["softmax"]) == 2


def test_relaxation_study_refuses_bad_input():
    with pytest.raises(ValueError, match="relaxation"):
        relaxation_study("nope", [16])
    with pytest.raises(ValueError, match="drop_top"):
        relaxation_study("causal", [16], drop_top=4)
    with pytest.raises(ValueError, match="ells"):
        relaxation_study("causal", [4])
    with pytest.raises(attnspec.ParameterTypeError, match=r"unknown option\(s\) width=3"):
        relaxation_study("causal", [16], width=3)
    with pytest.raises(ValueError, match="bogus=1"):   # also a ValueError, as A3 promises
        relaxation_study("causal", [32], bogus=1)


def test_resolved_ks_ignores_rounding_noise_of_tiny_singular_values():
    """A lower-triangular Gaussian matrix has ~6 % of its squared singular values below 1e-9
    of the largest (F(t) ≈ 1/log(1/t)); computed two ways (XXᵀ, XᵀX) they differ in noise.
    The plain KS distance depends on that noise, the resolved one must not, and the fraction
    below the floor must be the law's F(floor)."""
    from attnspec.experiments.realistic import ks_distance_resolved
    rng = np.random.default_rng(5)
    n = 600
    X = np.tril(rng.standard_normal((n, n))) / math.sqrt(n)
    law = attnspec.TriangularProfileLaw(1.0)
    one = np.clip(np.linalg.eigvalsh(X @ X.T), 0, None)
    two = np.clip(np.linalg.eigvalsh(X.T @ X), 0, None)
    assert ks_distance_resolved(one, law) == pytest.approx(ks_distance_resolved(two, law),
                                                           abs=1e-12)
    floor = 1e-9 * one.max()
    assert abs(np.mean(one < floor) - law.cdf(floor)) < 3 * math.sqrt(law.cdf(floor) / n)
    assert ks_distance_resolved(one, two) < 2.0 / n
    with pytest.raises(ValueError, match="floor_ratio"):
        ks_distance_resolved(one, law, floor_ratio=0.5)
    with pytest.raises(ValueError, match="sample"):
        ks_distance_resolved(np.zeros(3), law)


def test_sizes_beyond_memory_and_non_sequences_are_refused_by_name():
    with pytest.raises(ValueError, match="ell=10000000"):
        causal_attention(10_000_000, 4, 1.0)
    with pytest.raises(ValueError, match="ell=100000000"):
        gaussian_tokens(100_000_000, 10_000)
    with pytest.raises(TypeError, match="ells"):
        relaxation_study("causal", 16)
    with pytest.raises(TypeError, match="return_scores"):
        causal_attention(8, 4, 1.0, return_scores="yes")


def test_given_tokens_uses_the_rows_of_the_token_matrix():
    """Rows are normalised, so scaling the tokens changes nothing; too few rows, a zero row or
    no tokens at all are refused by name."""
    X = np.random.default_rng(0).standard_normal((40, 12))
    first = relaxation_study("given_tokens", [16, 40], draws=1, seed=3, drop_top=1, c=2.0,
                             tokens=X)
    scaled = relaxation_study("given_tokens", [16, 40], draws=1, seed=3, drop_top=1, c=2.0,
                              tokens=5.0 * X)
    for a, b in zip(first, scaled):
        assert np.allclose(a["spectra"]["softmax"][0], b["spectra"]["softmax"][0], rtol=1e-10)
        assert set(a["ks"]) >= {"softmax_linear", "softmax_corrected", "softmax_law"}
    with pytest.raises(ValueError, match="tokens"):
        relaxation_study("given_tokens", [64], tokens=X)
    with pytest.raises(TypeError, match="tokens"):
        relaxation_study("given_tokens", [16])
    X[3] = 0.0
    with pytest.raises(ValueError, match="non-zero rows"):
        relaxation_study("given_tokens", [16], tokens=X)


def test_draw_distances_per_draw_and_noise_reference():
    """Per-draw distances are the coupled softmax/model KS of each draw; the noise reference
    is the KS between independent draws of the model, NaN for one draw."""
    from attnspec.experiments.realistic import draw_distances, ks_distance_resolved
    rows = relaxation_study("shared_mean", [64], draws=3, seed=2, drop_top=2, c=2.0)
    per_draw, noise = draw_distances(rows[0], "softmax", "linear", drop_top=2)
    spectra = rows[0]["spectra"]
    assert per_draw.shape == (3,)
    assert per_draw[1] == ks_distance_resolved(spectra["softmax"][1][2:],
                                               spectra["linear"][1][2:])
    expected = np.mean([ks_distance_resolved(spectra["linear"][k][2:],
                                             spectra["linear"][k + 1][2:]) for k in (0, 1)])
    assert noise == pytest.approx(expected)
    # with a shared mean the plain model is far from softmax, well beyond the draw noise
    assert per_draw.min() > 2 * noise
    same, zero_noise = draw_distances(rows[0], "linear", "linear", drop_top=2)
    assert np.all(same == 0) and zero_noise > 0
    single = relaxation_study("causal", [32], draws=1, seed=0, drop_top=0)
    assert math.isnan(draw_distances(single[0], drop_top=0)[1])
    with pytest.raises(ValueError, match="second='corrected'"):
        draw_distances(single[0], "softmax", "corrected")
    with pytest.raises(ValueError, match="drop_top"):
        draw_distances(single[0], drop_top=8)
