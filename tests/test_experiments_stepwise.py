"""Tests of attnspec.experiments.stepwise: the stepwise chain's bulks and bulk distances."""

import math
import re

import numpy as np
import pytest
import scipy.stats

import attnspec
import attnspec.sampling.equivalents
from attnspec.experiments import stepwise


def test_stepwise_spectra_match_the_chain():
    """Each spectrum is the squared singular values of the chain's matrix, top removed."""
    spectra = stepwise.stepwise_spectra(40, 40, 1.0, rng=3, degree=3, drop_top=2)
    chain = attnspec.stepwise_chain(40, 40, 1.0, rng=3, degree=3)
    assert list(spectra) == list(attnspec.sampling.equivalents.STEPWISE_KEYS) + ["mp"]
    for key in attnspec.sampling.equivalents.STEPWISE_KEYS:
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
    assert several["ks"] == pytest.approx(scipy.stats.ks_2samp(
        np.concatenate(a), np.concatenate(b)).statistic, abs=1e-12)


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
