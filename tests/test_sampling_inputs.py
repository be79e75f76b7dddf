"""Token inputs and the linear models on given scores (sampling/inputs.py).

Oracles: the Hermite polynomials written out by hand; the reduction of the reweighted model to
the plain one without key effects; the exact softmax of a pure key effect; cosines of tokens.
"""

import math

import numpy as np
import pytest

import attnspec
from attnspec.sampling.inputs import gaussian_tokens, scores_linear_model


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


@pytest.mark.parametrize("beta", [26.0001, 30.0, 0.0, -1.0, math.nan, math.inf])
def test_models_on_given_scores_refuse_beta_outside_zero_to_26(beta):
    """0 < β ≤ 26 (BETA_MAX) as documented: e^{β²} and α² stay finite float64 numbers."""
    from attnspec.sampling.inputs import reweighted_linear_model
    from attnspec.sampling.masked import causal_linear_equivalent
    S = np.random.default_rng(0).standard_normal((6, 6))
    for model in (reweighted_linear_model, causal_linear_equivalent,
                  attnspec.scores_linear_model):
        with pytest.raises(attnspec.ParameterError, match="beta"):
            model(S, beta, rng=0)
    # the end of the range is accepted
    assert np.all(np.isfinite(causal_linear_equivalent(S, 26.0, rng=0)))
