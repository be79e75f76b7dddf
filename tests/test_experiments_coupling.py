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


def test_coupled_moments_match_the_spectra_of_the_same_draw():
    """m₁, m₂ by traces equal the moments of the spectra coupled_spectra gives for one seed."""
    spectra = coupling.coupled_spectra(50, 30, 1.0, rng=3)
    moments = coupling.coupled_moments(50, 30, 1.0, rng=3)
    for key in ("softmax", "linear"):
        values = spectra[key]
        assert moments[key] == pytest.approx((values.mean(), np.mean(values**2)), rel=1e-10)


@pytest.mark.parametrize("beta, ell, d_qk", [(1.0, 40, 20), (1.5, 30, 60)])
def test_linear_model_m2_is_the_finite_size_mean(beta, ell, d_qk):
    """The exact finite-ℓ E m₂ against 3000 simulated linear models (within 4 standard errors),
    and its limit 2s² + cβ⁴; at these sizes it differs from the limit by many standard errors."""
    rng = np.random.default_rng(11)
    m2 = np.array([coupling.coupled_moments(ell, d_qk, beta, rng=rng)["linear"][1]
                   for _ in range(3000)])
    se = m2.std(ddof=1) / math.sqrt(m2.size)
    expected = coupling.linear_model_m2(beta, ell, d_qk)
    assert abs(m2.mean() - expected) < 4 * se
    limit = attnspec.AttentionLaw(beta, ell / d_qk).moment(2)
    assert abs(expected - limit) > 4 * se
    assert coupling.linear_model_m2(beta, 10**9, 10**9) == pytest.approx(
        attnspec.AttentionLaw(beta, 1.0).moment(2), rel=1e-6)


def test_linear_model_m2_refuses_beyond_the_float_range():
    """At β = 26 α⁴ ≈ e^{2β²} overflows: a ParameterError naming beta, not inf."""
    with pytest.raises(attnspec.ParameterError, match="beta"):
        coupling.linear_model_m2(26.0, 10, 10)
    assert math.isfinite(coupling.linear_model_m2(18.0, 10, 10))
