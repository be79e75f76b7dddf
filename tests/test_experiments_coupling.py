"""Tests of attnspec.experiments.coupling: softmax attention and two linear models, one Q, K."""

import math

import numpy as np
import pytest

import attnspec
from attnspec.experiments import coupling


def sorted_gap(a, b, drop_top=3):
    """Mean |difference| of two descending spectra, value by value, without the top values."""
    return float(np.mean(np.abs(a[drop_top:] - b[drop_top:])))


def test_coupled_spectra_are_seeded_sorted_and_complete():
    """Three descending spectra of length ℓ; same seed, same bytes; another seed differs."""
    out = coupling.coupled_spectra(60, 40, 1.0, rng=13)
    assert sorted(out) == ["linear", "softmax", "wrong"]
    assert all(v.shape == (60,) and np.all(np.diff(v) <= 0) for v in out.values())
    again = coupling.coupled_spectra(60, 40, 1.0, rng=13)
    assert all(np.array_equal(out[k], again[k]) for k in out)
    assert not np.array_equal(out["softmax"], coupling.coupled_spectra(60, 40, 1.0, rng=14)
                              ["softmax"])


def test_coupled_spectra_share_one_seed_and_use_both_noise_variances(monkeypatch):
    """The three matrices are drawn from one and the same seed (so one Q, K, and one Z for the
    two linear models), with noise variances α² (right) and s = e^{β²} − 1 (wrong): the calls
    are recorded, whatever seed coupled_spectra derives from rng."""
    calls = []

    def record(name, function):
        def wrapper(*args, **kwargs):
            calls.append((name, args, kwargs))
            return function(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(coupling, "softmax_attention",
                        record("softmax", coupling.softmax_attention))
    monkeypatch.setattr(coupling, "linear_model_with_noise",
                        record("linear", coupling.linear_model_with_noise))
    coupling.coupled_spectra(30, 20, 1.5, rng=7)
    assert [name for name, _, _ in calls] == ["softmax", "linear", "linear"]
    seeds = {kwargs["rng"] for _, _, kwargs in calls}
    assert len(seeds) == 1 and isinstance(seeds.pop(), int)
    right, wrong = [args[3] for name, args, _ in calls if name == "linear"]
    assert right == attnspec.noise_variance(1.5)
    assert wrong == pytest.approx(math.expm1(1.5 ** 2), rel=1e-15)
