"""Chapter 9's measurements of trained heads, each against a value known from theory."""

import math

import numpy as np
import pytest

import attnspec
import attnspec.pretrained.passages
import attnspec.pretrained.minilm
from attnspec.experiments import trained_heads


def test_effective_beta_of_the_theorems_head_is_beta():
    """Gaussian q, k: each row of βS has standard deviation β(1 + O(1/√d_qk))."""
    _, S = attnspec.softmax_attention(400, 400, 1.0, rng=1, return_scores=True)
    assert trained_heads.effective_beta(S, 1.5) == pytest.approx(1.5, rel=0.03)
    stack = np.stack([S, 2 * S])
    np.testing.assert_allclose(trained_heads.effective_beta(stack),
                               [trained_heads.effective_beta(S),
                                2 * trained_heads.effective_beta(S)])


@pytest.mark.parametrize("bad", [np.zeros(3), np.zeros((2, 3)), np.zeros((1, 1))])
def test_effective_beta_refuses_non_square_scores(bad):
    with pytest.raises(ValueError, match="scores"):
        trained_heads.effective_beta(bad)


def test_standard_initialisation_beta_on_gaussian_rows():
    """N(0, 1) rows of width 384: ‖x‖² ≈ 384, mean row ≈ 0, so β_eff ≈ 0.02² · 384."""
    X = np.random.default_rng(3).standard_normal((300, 384))
    measured, predicted = trained_heads.standard_init_beta(X, rng=0, draws=8)
    assert predicted == pytest.approx(0.02 ** 2 * 384, rel=0.03)
    assert measured == pytest.approx(predicted, rel=0.05)


def test_shared_mean_direction_lowers_the_initialisation_beta():
    """Rows x_i = u + z_i: the within-row spread only sees the z part (‖x̄‖² ≈ ‖u‖²)."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((300, 384)) + 3.0 * rng.standard_normal(384)
    measured, predicted = trained_heads.standard_init_beta(X, rng=1, draws=8)
    assert measured == pytest.approx(predicted, rel=0.1)
    norms = np.linalg.norm(X, axis=1)
    assert predicted < 0.5 * 0.02 ** 2 * (norms ** 2).mean()


def test_law_out_of_reach_is_nan_not_an_error():
    """Outside AttentionLaw's domain (c > 100, or β > 26) the distance is NaN, not an error;
    β = 20 is inside it now and gives a number (KS ≈ 1: the law sits at scale e^400)."""
    values = attnspec.squared_singular_values(
        attnspec.centered(attnspec.softmax_attention(64, 32, 1.0, rng=0)))
    ks_nu, ks_mp = trained_heads.law_distances(values, 1.0, 200.0)
    assert math.isnan(ks_nu) and 0 < ks_mp < 1
    ks_nu, ks_mp = trained_heads.law_distances(values, 30.0, 2.0)
    assert math.isnan(ks_nu) and math.isnan(ks_mp)
    ks_nu, ks_mp = trained_heads.law_distances(values, 20.0, 2.0)
    assert ks_nu > 0.99 and ks_mp > 0.99   # both laws at scale e^400 - 1, far above every value
    near, _ = trained_heads.law_distances(values, 1.0, 2.0)
    assert 0 < near < 0.3


def test_a_one_hot_sink_head():
    """A = 1 e_1ᵀ: sink mass 1 on token 0, entropy 0, one squared singular value ℓ(ℓ − 1)."""
    ell = 40
    A = np.zeros((ell, ell))
    A[:, 0] = 1.0
    S = np.where(A > 0, 50.0, 0.0)
    m = trained_heads.head_measurements(A, S, tokens=["[CLS]"] + ["w"] * (ell - 1), rng=0)
    assert m["sink_mass"] == 1.0 and m["sink_token"] == "[CLS]"
    assert m["entropy"] == 0.0
    assert m["values"][0] == pytest.approx(ell * (ell - 1), rel=1e-12)
    assert m["top_share"] == pytest.approx(1.0, abs=1e-12)


def test_uniform_head_has_full_entropy():
    ell = 30
    A = np.full((ell, ell), 1 / ell)
    m = trained_heads.head_measurements(A, np.zeros((ell, ell)) + np.eye(ell) * 1e-3, rng=0)
    assert m["entropy"] == pytest.approx(1.0, abs=1e-12)
    assert m["sink_mass"] == pytest.approx(1 / ell)


def test_passage_study_rungs_and_the_theorems_rung_is_close():
    study = trained_heads.passage_study("It was the best of times, it was the worst of "
                                        "times, it was the age of wisdom.", rng=0, draws=1)
    rungs = study["rungs"]
    assert [len(rungs[name]) for name in trained_heads.RUNGS] == [1, 1, 12, 60]
    assert rungs[trained_heads.RUNGS[0]][0]["beta_eff"] == pytest.approx(1.0, rel=0.15)
    table = trained_heads.trained_array([study], "beta_eff")
    assert table.shape == (1, 6, 12)
    np.testing.assert_allclose(table[0], trained_heads.effective_beta(study["output"].scores))


def test_passage_study_refuses_bad_arguments_before_work():
    with pytest.raises(ValueError, match="beta_random"):
        trained_heads.passage_study("hello", beta_random=0)
    with pytest.raises(ValueError, match="draws"):
        trained_heads.passage_study("hello", draws=0)
    with pytest.raises(ValueError, match="non-blank"):
        trained_heads.passage_study(" ")


def test_multihead_comparison_of_a_layer_and_its_refusals():
    out = attnspec.pretrained.minilm.minilm_forward("The squared singular values of the centred attention "
                                  "matrix follow a law.")
    row = trained_heads.multihead_comparison(out, 0, rng=0)
    assert row["values"].mean() == pytest.approx(1.0)
    assert 0 <= row["ks_trained"] <= 1 and 0 <= row["ks_random"] <= 1
    with pytest.raises(ValueError, match="layer"):
        trained_heads.multihead_comparison(out, 6)
    long = attnspec.pretrained.minilm.minilm_forward(attnspec.pretrained.passages.minilm_passages()["book"])
    with pytest.raises(ValueError, match="ell <= d"):
        trained_heads.multihead_comparison(long, 0)


def test_beta_matched_references_bin_the_trained_heads_and_refuse_bad_edges():
    study = trained_heads.passage_study("It was the best of times, it was the worst of "
                                        "times, it was the age of wisdom.", rng=0, draws=1)
    rows = trained_heads.beta_matched_references([study], rng=0, edges=(1.0, 2.0), draws=1)
    betas = trained_heads.trained_array([study], "beta_eff")
    assert sum(row["heads"] for row in rows) == 72
    for row in rows:
        inside = (betas >= row["low"]) & (betas < row["high"])
        assert row["heads"] == inside.sum()
        assert 0 <= row["reference"] <= row["reference_max"] <= 1
        assert 0 <= row["within"] <= 1
    # below β = 1 the theorem's own heads are close to ν∞ (chapter 5): a reference, not noise
    if rows[0]["high"] == 1.0:
        assert rows[0]["reference"] < 0.3
    with pytest.raises(ValueError, match="edges"):
        trained_heads.beta_matched_references([study], edges=(2.0, 1.0))
    with pytest.raises(ValueError, match="draws"):
        trained_heads.beta_matched_references([study], draws=0)


def test_sink_bound_of_a_one_hot_sink_and_of_random_heads():
    """A = 1e_1ᵀ: sink mass 1, σ₁² = ℓ(ℓ − 1), so (ℓ·1 − 1)²/σ₁² = (ℓ − 1)/ℓ; for any head the
    test vector 1/√ℓ gives σ₁² ≥ (ℓm − 1)², so the share is at most 1."""
    ell = 40
    A = np.zeros((ell, ell))
    A[:, 0] = 1.0
    m = trained_heads.head_measurements(A, np.where(A > 0, 50.0, 0.0), rng=0)
    assert m["sink_bound"] == pytest.approx((ell - 1) / ell, rel=1e-12)
    for beta in (0.5, 2.0, 4.0):
        A, S = attnspec.softmax_attention(120, 32, beta, rng=2, return_scores=True)
        share = trained_heads.head_measurements(A, S, beta=beta, rng=0)["sink_bound"]
        assert 0 <= share <= 1 + 1e-12


def test_random_layer_mean_is_the_mean_of_its_heads():
    """E mean σ² of Y = (1/H) Σ_h m₁(A_h), m₁ ≈ e^{β²} − 1 at β of order one."""
    betas = [0.5, 1.0, 1.0, 0.5]
    values = attnspec.squared_singular_values(trained_heads.random_layer(300, betas, rng=4))
    expected = np.mean([math.expm1(b ** 2) for b in betas])
    assert values.mean() == pytest.approx(expected, rel=0.1)
    with pytest.raises(ValueError, match="betas"):
        trained_heads.random_layer(50, [1.0, 0.0])
    with pytest.raises(ValueError, match="ell"):
        trained_heads.random_layer(500, [1.0])


def test_own_beta_layers_at_one_beta_match_the_law():
    """With every head at the layer's median β the random layer is an untied multihead_output:
    close to the normalised law, as multihead_comparison's draw; at the trained heads' own
    β_eff the distance is a measurement, so only its range is checked."""
    out = attnspec.pretrained.minilm.minilm_forward(
        attnspec.pretrained.passages.minilm_passages(max_words=60)["dickens"])
    row = trained_heads.multihead_comparison(out, 5, rng=0)
    ell, law, mean = len(out.tokens), row["law"], row["law_mean"]
    same = attnspec.squared_singular_values(trained_heads.random_layer(ell, [row["beta"]] * 12,
                                                                        rng=2))
    assert attnspec.ks_distance(same / same.mean(), lambda x: law.cdf(x * mean)) < 0.15
    own = trained_heads.own_beta_layers(out, 5, row, rng=1, draws=2)
    np.testing.assert_allclose(own["betas"], trained_heads.effective_beta(out.scores[5]))
    assert own["ks"].shape == (2,) and np.all((0 <= own["ks"]) & (own["ks"] <= 1))
    assert np.all(own["tops"] >= 1)
    with pytest.raises(ValueError, match="draws"):
        trained_heads.own_beta_layers(out, 5, row, draws=0)
