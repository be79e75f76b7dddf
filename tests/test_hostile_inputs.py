"""Hostile inputs of issue 11 (items 4 and 10): refused up front, by name, never inf/NaN."""

import re
import warnings

import numpy as np
import pytest

import attnspec
from attnspec._validation import BETA_MAX
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


def test_hostile_catalogue_has_no_silent_or_foreign_outcome():
    """tools/hostile_inputs.py (quick library catalogue): every call is refused by name or
    correct by its own check; none silent (inf/NaN/wrong), none foreign (unnamed error)."""
    module = load_tool("hostile_inputs")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # quadrature warnings of the oracle, not failures
        counts, bad = module.run(quick=True, cli=False)
    assert counts["refused"] > 0 and counts["correct"] > 0
    assert bad == []
