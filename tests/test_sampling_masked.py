"""Causal attention and its masked linear model (sampling/masked.py).

Oracles: exact identities of the mask and of the row normalisation; the masked moments
s/2 and 2s²/3 + cβ⁴/6 (derived in chapter 8 by counting pairings, checked here by Monte
Carlo with standard-error tolerances); the unmasked limit n_i = ℓ.
"""

import math

import numpy as np
import pytest

import attnspec
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
