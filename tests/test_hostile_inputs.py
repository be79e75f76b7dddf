"""Hostile inputs of issue 11 (items 4 and 10): refused up front, by name, never inf/NaN."""

import re
import warnings

import numpy as np
import pytest

import attnspec
from attnspec.hermite import BETA_MAX
from helpers import load_tool
from attnspec.book.chapters import ParameterError, parse_assignments

SAMPLERS = {
    "linear_equivalent": lambda beta: attnspec.linear_equivalent(30, 30, beta, rng=0),
    "stepwise_chain": lambda beta: attnspec.stepwise_chain(12, 12, beta, rng=0),
    "mp_surrogate": lambda beta: attnspec.mp_surrogate(12, beta, rng=0),
    "multihead_output": lambda beta: attnspec.multihead_output(16, 32, 4, beta, rng=0),
    "multihead_output-equivalent": lambda beta: attnspec.multihead_output(
        16, 32, 4, beta, rng=0, equivalent=True),
    "noise_variance": lambda beta: attnspec.noise_variance(beta),
}


@pytest.mark.parametrize("name", SAMPLERS)
@pytest.mark.parametrize("beta", [30.0, 50.0, np.inf, np.nan, 0.0, -1.0])
def test_beta_outside_the_documented_domain_is_refused_by_name(name, beta):
    """β outside (0, 26] is a ValueError naming beta (β = 50 used to give inf/NaN matrices)."""
    with pytest.raises(ValueError, match=r"beta must be a finite number > 0"):
        SAMPLERS[name](beta)


SOFTMAX = {
    "softmax_attention": lambda beta: attnspec.softmax_attention(12, 12, beta, rng=0),
    "iid_score_attention": lambda beta: attnspec.iid_score_attention(12, beta, rng=0),
}


@pytest.mark.parametrize("name", SOFTMAX)
@pytest.mark.parametrize("beta", [1e-300, 1.0, BETA_MAX, 1e3, 1e300])
def test_softmax_samplers_take_any_finite_beta(name, beta):
    """Softmax rows saturate (one-hot) but never overflow: any finite β > 0 is valid there."""
    A = SOFTMAX[name](beta)
    assert np.isfinite(A).all() and np.allclose(A.sum(axis=1), 1.0)


def _finite(value):
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, tuple):
        return all(_finite(v) for v in value)
    return bool(np.all(np.isfinite(value)))


@pytest.mark.parametrize("name", SAMPLERS)
@pytest.mark.parametrize("beta", [1e-6, 1.0, 8.0, BETA_MAX])
def test_every_beta_in_the_domain_gives_finite_output(name, beta):
    """At the ends of the documented range, samplers return finite numbers only."""
    assert _finite(SAMPLERS[name](beta))


@pytest.mark.parametrize("beta", [1e-6, 1.0, BETA_MAX])
def test_linear_model_spectrum_is_finite_at_the_top_of_the_domain(beta):
    """At β = 26 the spectrum of Y_lin (~e^676 ≈ 1e293) is still finite and positive."""
    values = attnspec.squared_singular_values(attnspec.linear_equivalent(30, 30, beta, rng=0))
    assert np.isfinite(values).all() and values[0] > 0


@pytest.mark.parametrize("call, name", [
    (lambda: attnspec.softmax_attention(10**6, 1, 1.0), "ell"),
    (lambda: attnspec.linear_equivalent(10**6, 4, 1.0), "ell"),
    (lambda: attnspec.stepwise_chain(10**5, 4, 1.0), "ell"),
    (lambda: attnspec.iid_score_attention(10**6, 1.0), "ell"),
    (lambda: attnspec.mp_surrogate(10**6, 1.0), "ell"),
    (lambda: attnspec.multihead_output(10**6, 8, 2, 1.0), "ell"),
])
def test_sizes_beyond_memory_are_refused_by_name_before_allocation(call, name):
    """ℓ = 10⁶ asks for terabytes: a ValueError naming ℓ, not numpy's allocation failure."""
    with pytest.raises(ValueError, match=rf"{name}=\d+ needs about [\d,]+ GiB"):
        call()


@pytest.mark.parametrize("value", ["no", 0, 1, None, "False"])
def test_return_scores_must_be_a_bool(value):
    """return_scores="no" used to count as true; every non-bool is refused by name."""
    with pytest.raises(TypeError, match=re.escape(f"return_scores must be True or False; "
                                                  f"got return_scores={value!r}")):
        attnspec.softmax_attention(4, 4, 1.0, rng=0, return_scores=value)


def test_a_parameter_given_twice_is_refused():
    """`attnspec rerun 03 ell=200 ell=300` used to keep 300 silently."""
    with pytest.raises(ParameterError, match="parameter ell is given twice"):
        parse_assignments("03_single_head_theorem", ["ell=200", "ell=300"])


@pytest.mark.slow
def test_hostile_catalogue_has_no_silent_or_foreign_outcome():
    """tools/hostile_inputs.py (quick library catalogue): every call is refused by name or
    correct by its own check; none silent (inf/NaN/wrong), none foreign (unnamed error)."""
    module = load_tool("hostile_inputs")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # quadrature warnings of the oracle, not failures
        counts, bad = module.run(quick=True, cli=False)
    assert counts["refused"] > 0 and counts["correct"] > 0
    assert bad == []


# ---- issue 24: the last silent or foreign answers -----------------------------------------------
@pytest.mark.parametrize("call, name", [
    (lambda: attnspec.AttentionLaw(10**400, 1), "beta"),
    (lambda: attnspec.AttentionLaw(1.0, 10**400), "c"),
    (lambda: attnspec.experiments.row_sums.row_sum_fluctuation(1.0, 10, 10**400), "d_qk"),
    (lambda: attnspec.experiments.row_sums.row_sum_fluctuation(1.0, 10**400, 10), "ell"),
    (lambda: attnspec.noise_variance(10**400), "beta"),
    (lambda: attnspec.experiments.thresholds.threshold_scales(10**400), "ell"),
])
def test_integers_beyond_the_float_range_are_refused_by_name(call, name):
    """Python ints beyond 1.8e308 used to raise a bare OverflowError from float()."""
    with pytest.raises(attnspec.ParameterError,
                       match=rf"^{name} must be .*; got {name} = an integer of about 10\^400, "
                             r"beyond the float64 range"):
        call()


@pytest.mark.parametrize("ell", [10**400, np.array([1000 + 1j]), np.datetime64("2020-01-01"),
                                 np.array(["2020-01-01"], dtype="datetime64[D]"), [1000, 1j]])
def test_threshold_scales_refuses_what_is_not_a_real_number(ell):
    """A complex array used to lose its imaginary part (with only a numpy warning), a date
    was read as ℓ = 18262 days, and 10**400 raised a bare OverflowError."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(attnspec.ParameterError, match=r"^ell must be a finite number > 1"):
            attnspec.experiments.thresholds.threshold_scales(ell)


def test_attention_law_moments_below_or_beyond_the_float_range_say_which():
    """At β = 1e-5 order 450 was refused as overflowing and order 40 returned 0.0: both
    underflow (m_k ≈ (β²·edge)^k), and are refused saying so; beyond, saying that."""
    law = attnspec.AttentionLaw(1e-5, 0.5)
    assert law.moment(30) > 0
    with pytest.raises(ValueError, match=r"^k=40: .* is about 1e-3\d\d, below the range"):
        law.moment(40)
    with pytest.raises(ValueError, match=r"^k=450: .* is about 1e-4\d\d\d, below the range"):
        law.moment(450)                  # the hostile run's case: refused as overflowing
    with pytest.raises(ValueError, match=r"^k=2: .* is about 1e33\d, beyond the float range"):
        attnspec.AttentionLaw(19.5, 1.0).moment(2)


@pytest.mark.slow   # order 300: the moment–cumulant recursion costs O(k⁴)
def test_attention_law_moment_near_the_top_of_the_float_range():
    """Orders 295 to 300 at β = 0.77, c = 7.3 are finite (about 4.5e307 at order 300) and
    were refused as exceeding the float range."""
    law = attnspec.AttentionLaw(0.77, 7.3)
    assert np.isfinite(law.moment(295))          # the hostile run's case
    moment = law.moment(300)
    # between the k-th power of the mean and of the right edge; the hostile run's value
    assert 300 * np.log(law.mean()) < np.log(moment) < 300 * np.log(law.support()[1])
    assert moment == pytest.approx(4.5e307, rel=0.01)


def test_variance_beyond_the_float_range_names_the_law_not_k():
    """At β ≥ 19.5 var() named a parameter k the caller never passed; std() is finite."""
    law = attnspec.AttentionLaw(19.5, 1.0)
    with pytest.raises(ValueError, match=r"^the variance of AttentionLaw\(beta=19.5, c=1.0\) "
                                         r"is about 1e330, beyond the float range") as info:
        law.var()
    assert "k=" not in str(info.value)
    # var = s²(1 + cβ⁴/s²) for ν_∞ (m₁ = s, m₂ = 2s² + cβ⁴), s = e^{β²} − 1
    assert law.std() == pytest.approx(law.s, rel=1e-15)
    assert attnspec.AttentionLaw(1.0, 2.0).var() == pytest.approx(
        np.expm1(1.0) ** 2 + 2.0, rel=1e-14)
