"""Causal attention, its masked linear model, correlated tokens and the relaxation study.

Oracles: exact identities of the mask and of the row normalisation; the masked moments
s/2 and 2s²/3 + cβ⁴/6 (derived in chapter 9 by counting pairings, checked here by Monte
Carlo with standard-error tolerances); the unmasked limit n_i = ℓ.
"""

import math

import numpy as np
import pytest

import attnspec
from attnspec.experiments.realistic import relaxation_spectra, relaxation_study
from attnspec.sampling.inputs import gaussian_tokens, scores_linear_model
from attnspec.sampling.masked import (causal_attention, causal_centered,
                                      causal_linear_equivalent)


def test_causal_attention_is_lower_triangular_and_row_stochastic():
    A, S = causal_attention(40, 20, 1.3, rng=2, return_scores=True)
    assert np.all(np.triu(A, 1) == 0)
    assert np.allclose(A.sum(axis=1), 1.0, atol=1e-14)
    # row i is the softmax of the first i scores (an independent computation)
    i = 17
    row = np.exp(1.3 * S[i, : i + 1])
    assert np.allclose(A[i, : i + 1], row / row.sum(), rtol=1e-13)
    assert A[0, 0] == 1.0
    assert np.array_equal(causal_attention(40, 20, 1.3, rng=2), A)


def test_causal_attention_uses_the_scores_of_softmax_attention():
    _, S = causal_attention(30, 10, 1.0, rng=5, return_scores=True)
    _, S_full = attnspec.softmax_attention(30, 10, 1.0, rng=5, return_scores=True)
    assert np.allclose(S, S_full, rtol=1e-13)


def test_causal_attention_is_finite_at_huge_beta():
    A = causal_attention(30, 10, 1e6, rng=1)
    assert np.isfinite(A).all() and np.allclose(A.sum(axis=1), 1.0)


def test_causal_centered_identities():
    A = causal_attention(50, 50, 1.0, rng=3)
    Y = causal_centered(A)
    counts = np.arange(1, 51)
    assert np.all(np.triu(Y, 1) == 0)
    assert np.all(Y[0] == 0)
    assert np.allclose(Y.sum(axis=1), 0.0, atol=1e-13)
    expected = np.tril(counts[:, None] * A - 1.0) / math.sqrt(50)
    assert np.allclose(Y, expected, atol=1e-13)


def test_causal_centered_of_a_full_mask_is_the_books_observable():
    """With the last row only (n_ℓ = ℓ) the normalisation is √ℓ A^⊥ of the theorem."""
    A = causal_attention(30, 30, 1.0, rng=4)
    Y = causal_centered(A)
    assert np.allclose(Y[-1], attnspec.centered(A)[-1], atol=1e-13)


@pytest.mark.parametrize("bad, match", [
    (np.ones((3, 3)) / 3, "lower triangular"),
    (np.tril(np.ones((3, 3))), "row-stochastic"),
    (np.ones((3, 4)), "square"),
    (np.array([[1.0, 0.0], [np.nan, 0.5]]), "finite"),
])
def test_causal_centered_refuses_bad_input(bad, match):
    with pytest.raises(ValueError, match=match):
        causal_centered(bad)


def test_masked_linear_model_moments_match_the_derived_values():
    beta, ell, c = 1.0, 400, 2.0
    s = math.expm1(beta ** 2)
    m1, m2 = [], []
    for k in range(6):
        _, S = causal_attention(ell, int(ell / c), beta, rng=k, return_scores=True)
        values = attnspec.squared_singular_values(causal_linear_equivalent(S, beta, rng=100 + k))
        m1.append(values.mean())
        m2.append(np.mean(values ** 2))
    for sample, theory in ((m1, s / 2), (m2, 2 * s ** 2 / 3 + c * beta ** 4 / 6)):
        se = np.std(sample, ddof=1) / math.sqrt(len(sample))
        # 4 standard errors plus an O(1/ℓ) finite-size allowance
        assert abs(np.mean(sample) - theory) < 4 * se + 2.0 * theory / ell


def test_masked_linear_model_is_lower_triangular_and_seeded():
    S = np.random.default_rng(0).standard_normal((20, 20))
    Y = causal_linear_equivalent(S, 0.8, rng=7)
    assert np.all(np.triu(Y, 1) == 0)
    assert np.array_equal(Y, causal_linear_equivalent(S, 0.8, rng=7))
    with pytest.raises(ValueError, match="beta"):
        causal_linear_equivalent(S, -1.0)


def test_gaussian_tokens_norms_and_shared_direction():
    X = gaussian_tokens(300, 200, rng=1, shared=0.4)
    assert np.allclose(np.linalg.norm(X, axis=1), 1.0)
    cosines = (X @ X.T)[np.triu_indices(300, 1)]
    # x_i·x_j → ρ as d grows; at d = 200 the noise part is ~ 1/√d
    assert abs(cosines.mean() - 0.4) < 0.03
    iid = gaussian_tokens(300, 200, rng=1)
    assert abs((iid @ iid.T)[np.triu_indices(300, 1)].mean()) < 0.01
    with pytest.raises(ValueError, match="shared"):
        gaussian_tokens(10, 5, shared=1.0)


def test_scores_linear_model_is_linear_equivalent_on_gaussian_scores():
    rng = np.random.default_rng(9)
    Q, K = rng.standard_normal((30, 15)), rng.standard_normal((30, 15))
    Z = rng.standard_normal((30, 30))
    expected = (math.sqrt(attnspec.noise_variance(1.0)) * Z + Q @ K.T / math.sqrt(15)) \
        / math.sqrt(30)
    rng_again = np.random.default_rng(9)
    rng_again.standard_normal((30, 15))          # the stream after Q and K: Z comes next
    rng_again.standard_normal((30, 15))
    got = scores_linear_model(Q @ K.T / math.sqrt(15), 1.0, rng=rng_again)
    assert np.allclose(got, expected, rtol=1e-13)
    with pytest.raises(ValueError, match="S must"):
        scores_linear_model(np.ones((3, 2)), 1.0)


@pytest.mark.parametrize("relaxation", attnspec.RELAXATIONS)
def test_relaxation_spectra_are_seeded_and_sized(relaxation):
    first = relaxation_spectra(relaxation, 32, 1.0, 5, d_h=8)
    second = relaxation_spectra(relaxation, 32, 1.0, 5, d_h=8)
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
    with pytest.raises(TypeError, match="unknown options"):
        relaxation_study("causal", [16], width=3)


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


def test_scores_linear_model_with_exact_terms():
    """Degrees 1..Q kept as Hermite polynomials of S, the tail as noise, rows centred."""
    rng = np.random.default_rng(4)
    S = rng.standard_normal((25, 25))
    beta, Q = 0.9, 3
    got = scores_linear_model(S, beta, rng=11, exact_degree=Q)
    tail = sum(beta ** (2 * k) / math.factorial(k) for k in range(Q + 1, 60))
    Z = np.random.default_rng(11).standard_normal((25, 25))
    expected = (beta * S + beta ** 2 / 2 * (S ** 2 - 1) + beta ** 3 / 6 * (S ** 3 - 3 * S)
                + math.sqrt(tail) * Z)
    expected = (expected - expected.mean(axis=1, keepdims=True)) / 5.0
    assert np.allclose(got, expected, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="exact_degree"):
        scores_linear_model(S, beta, exact_degree=7)


def test_reweighted_model_reduces_to_the_linear_model_without_key_effects():
    """Scores with centred rows and columns and unit row scales: w ≡ 1, σ_i ≡ 1, so the
    reweighted model is the linear model with its rows centred."""
    from attnspec.sampling.inputs import reweighted_linear_model
    S = np.random.default_rng(2).standard_normal((30, 30))
    for _ in range(200):                                # alternate the two normalisations
        S -= S.mean(axis=0)
        S -= S.mean(axis=1, keepdims=True)
        S /= np.sqrt(np.mean(S ** 2, axis=1, keepdims=True))
    got = reweighted_linear_model(S, 1.2, rng=3)
    plain = scores_linear_model(S, 1.2, rng=3)
    assert np.allclose(got, plain - plain.mean(axis=1, keepdims=True), atol=1e-9)


def test_reweighted_model_carries_the_key_effect():
    """A pure key effect S_ij = a_j: softmax rows are all w = softmax(βa); the model's mean
    row is w − 1 (scaled), exactly, and it has no noise left (σ_i = 0)."""
    from attnspec.sampling.inputs import reweighted_linear_model
    a = np.linspace(-1, 1, 20)
    S = np.tile(a, (20, 1))
    Y = reweighted_linear_model(S, 1.5, rng=0)
    A = np.exp(1.5 * S)
    A /= A.sum(axis=1, keepdims=True)
    assert np.allclose(Y, attnspec.centered(A), atol=1e-12)


def test_sizes_beyond_memory_and_non_sequences_are_refused_by_name():
    with pytest.raises(ValueError, match="ell=10000000"):
        causal_attention(10_000_000, 4, 1.0)
    with pytest.raises(ValueError, match="ell=100000000"):
        gaussian_tokens(100_000_000, 10_000)
    with pytest.raises(TypeError, match="ells"):
        relaxation_study("causal", 16)
    with pytest.raises(TypeError, match="return_scores"):
        causal_attention(8, 4, 1.0, return_scores="yes")
