"""Property-based contract of the public functions (hypothesis): for any input, valid or not,
either a finite result that keeps the function's invariants, or a ValueError/TypeError whose
message names a parameter. Never a foreign exception, never a silent NaN or inf."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import attnspec

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

#: Anything a user might pass for a number: valid values, extremes, wrong types.
anything = st.one_of(
    st.integers(-3, 48),
    st.floats(-1e3, 1e3),
    st.sampled_from([0, 1, 2, 0.0, 1e-300, 1e-6, 26.0, 26.5, 1e300, 2**63, -(2**63),
                     float("nan"), float("inf"), -float("inf"), True, None, "1", "x",
                     1j, [1], np.float32(1.5), np.int64(3)]),
)
sizes = st.one_of(st.integers(-2, 40), st.sampled_from([2.0, 3.5, "4", None, True]))
seeds = st.one_of(st.integers(0, 2**32), st.sampled_from([None, -1, 1.5, "seed"]))


def _all_finite(value):
    if isinstance(value, dict):
        return all(_all_finite(v) for v in value.values())
    if isinstance(value, (tuple, list)):
        return all(_all_finite(v) for v in value)
    return bool(np.all(np.isfinite(np.asarray(value, dtype=float))))


def check_contract(call, names, invariant=None):
    """Run ``call``: a finite result keeping ``invariant``, or a named ValueError/TypeError."""
    try:
        result = call()
    except (ValueError, TypeError) as exc:
        message = str(exc)
        assert any(name in message for name in names), (
            f"{type(exc).__name__} does not name any of {names}: {message}")
        return
    assert _all_finite(result), f"non-finite result for a call that did not refuse: {result!r}"
    if invariant is not None:
        invariant(result)


def _row_stochastic(A):
    assert A.ndim == 2 and A.shape[0] == A.shape[1]
    np.testing.assert_allclose(A.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert (A >= 0).all()


@SETTINGS
@given(ell=sizes, d_qk=sizes, beta=anything, rng=seeds)
def test_softmax_attention(ell, d_qk, beta, rng):
    check_contract(lambda: attnspec.softmax_attention(ell, d_qk, beta, rng=rng),
                   ["ell", "d_qk", "beta", "rng"], _row_stochastic)


@SETTINGS
@given(ell=sizes, beta=anything, rng=seeds)
def test_iid_score_attention(ell, beta, rng):
    check_contract(lambda: attnspec.iid_score_attention(ell, beta, rng=rng),
                   ["ell", "beta", "rng"], _row_stochastic)


@SETTINGS
@given(ell=sizes, d_qk=sizes, beta=anything, rng=seeds)
def test_linear_equivalent(ell, d_qk, beta, rng):
    check_contract(lambda: attnspec.linear_equivalent(ell, d_qk, beta, rng=rng),
                   ["ell", "d_qk", "beta", "rng"])


@SETTINGS
@given(ell=sizes, d_qk=sizes, beta=anything, degree=sizes)
def test_stepwise_chain(ell, d_qk, beta, degree):
    check_contract(lambda: attnspec.stepwise_chain(ell, d_qk, beta, rng=0, degree=degree),
                   ["ell", "d_qk", "beta", "degree"])


@SETTINGS
@given(ell=sizes, beta=anything, rng=seeds)
def test_mp_surrogate(ell, beta, rng):
    check_contract(lambda: attnspec.mp_surrogate(ell, beta, rng=rng), ["ell", "beta", "rng"])


@SETTINGS
@given(ell=sizes, d=st.one_of(sizes, st.integers(40, 64)), heads=sizes, beta=anything,
       tie=st.sampled_from(list(attnspec.TIES) + ["bogus", None, 3]),
       equivalent=st.sampled_from([True, False]))
def test_multihead_output(ell, d, heads, beta, tie, equivalent):
    check_contract(lambda: attnspec.multihead_output(ell, d, heads, beta, tie=tie, rng=0,
                                                     equivalent=equivalent),
                   ["ell", "d", "heads", "beta", "tie", "groups", "d_head", "d_value"])


@SETTINGS
@given(beta=anything)
def test_hermite_constants(beta):
    def positive(value):
        assert value >= 0
    check_contract(lambda: attnspec.noise_variance(beta), ["beta"], positive)
    check_contract(lambda: attnspec.alpha(beta), ["beta"], positive)


@SETTINGS
@given(beta=anything, order=sizes)
def test_truncated_noise_variance(beta, order):
    check_contract(lambda: attnspec.truncated_noise_variance(beta, order), ["beta", "degree"])


matrices = st.one_of(
    st.integers(0, 6).flatmap(lambda m: st.integers(0, 6).flatmap(
        lambda n: st.sampled_from([1.0, 1e150, 1e-150, 1e160, 1e-200, float("nan")]).map(
            lambda scale: np.random.default_rng(m * 7 + n).standard_normal((m, n)) * scale))),
    st.sampled_from([None, "M", [[1, 2], [3]], np.ones(3), np.ones((2, 2), complex)]),
)


@SETTINGS
@given(M=matrices, drop_top=sizes)
def test_squared_singular_values(M, drop_top):
    def descending(values):
        assert (np.diff(values) <= 0).all() and (values >= 0).all()
    check_contract(lambda: attnspec.squared_singular_values(M, drop_top=drop_top),
                   ["M", "drop_top"], descending)


samples = st.one_of(
    st.lists(st.floats(-10, 10), min_size=0, max_size=20).map(np.array),
    st.sampled_from([None, "abc", np.array([1 + 1j]), np.array([np.nan, 1.0]), []]),
)
others = st.one_of(samples, st.sampled_from([
    lambda x: np.clip(x, 0, 1), lambda x: np.full_like(x, np.nan), lambda x: x * 0 + 2.0,
    attnspec.MarchenkoPastur(1.0, 1.0)]))


@SETTINGS
@given(sample=samples, other=others)
def test_ks_distance(sample, other):
    def in_unit_interval(value):
        assert 0 <= value <= 1
    check_contract(lambda: attnspec.ks_distance(sample, other), ["sample", "other"],
                   in_unit_interval)


@SETTINGS
@given(spectra=samples, orders=st.one_of(sizes, st.lists(st.integers(-1, 4), max_size=3)))
def test_moments_with_se(spectra, orders):
    check_contract(lambda: attnspec.moments_with_se([spectra, spectra], orders=orders)[0],
                   ["spectra", "orders"])


@pytest.mark.parametrize("beta", [1e-6, 1e-2, 1.0, 26.0])
def test_contract_holds_at_the_ends_of_the_domain(beta):
    """The documented corners, asserted directly (not left to the generator's luck)."""
    check_contract(lambda: attnspec.linear_equivalent(8, 8, beta, rng=0), ["beta"])
    check_contract(lambda: attnspec.multihead_output(8, 16, 2, beta, rng=0, equivalent=True),
                   ["beta"])
