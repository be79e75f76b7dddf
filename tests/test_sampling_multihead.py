"""Tests of attnspec.sampling.multihead: closed-form moments, sharing and its law, wiring, bad input."""

import math
import re

import numpy as np
import pytest

import attnspec
from attnspec.sampling.multihead import multihead_output, shared_pattern_per_head_noise
from attnspec.sampling.ties import ACROSS_HEAD_TIES, TIE_KINDS, TIE_LABELS, TIES, UNTIED_LAW_TIES
from attnspec.spectra import ks_distance, moments_with_se, squared_singular_values

BETA = 1.0
ELL, D = 200, 400


# --- oracle: the closed forms of MATH.md §6, written here independently of the library -------

def formula_a(ell, d, heads, beta, d_head, d_value):
    """(a) independent heads and across-head sharing: (m₁, m₂)."""
    s = math.expm1(beta**2)
    m2 = s**2 * (1 + (1 + ell / d_value) / heads + ell / d) + ell * beta**4 / (heads * d_head)
    return s, m2


def formula_b(ell, d, heads, beta, d_head):
    """(b) key–value tie (d_v = d_h): (m₁, m₂)."""
    s = math.expm1(beta**2)
    a2 = s - beta**2
    y = d_head / ell
    mu2, mu3, mu4 = 1 + y, 1 + 3 * y + y**2, 1 + 6 * y + 6 * y**2 + y**3
    m1 = s + beta**2 / y
    m2 = ((beta**4 * mu4 / y + 2 * a2 * beta**2 * mu3 + a2**2 * y * mu2
           + (beta**2 * (1 + y) + a2 * y) ** 2) / (heads * y**2)
          + (1 - 1 / heads + ell / d) * m1**2)
    return m1, m2


def formula_c(ell, d, heads, beta, d_head, d_value):
    """(c) shared pattern: formula (a) with H → 1 and d_v → H d_v."""
    return formula_a(ell, d, 1, beta, d_head, heads * d_value)


def sample_moments(tie, heads, equivalent, draws, seed, **kwargs):
    """Mean and standard error of (m₁, m₂) over independent draws."""
    spectra = [squared_singular_values(multihead_output(ELL, D, heads, BETA, tie=tie,
                                                        equivalent=equivalent, rng=seed + r,
                                                        **kwargs))
               for r in range(draws)]
    return moments_with_se(spectra)


# Tolerance: 4 standard errors plus a finite-size allowance of 3/ℓ relative. The formulas are
# ℓ → ∞ limits; exact finite-ℓ means differ by O(1/ℓ) (e.g. the single-head linear model has
# E m₁ = s(1 − 1/ℓ) after centring and the Wishart factor 2 + 1/ℓ in m₂; measured GE biases
# at ℓ = 200: −1.3% to +1.4%, below 3/ℓ = 1.5%).
def tolerance(theory, se):
    return 4 * se + 3 / ELL * abs(theory)


CASES = [("none", formula_a, {}), ("mqa", formula_a, {}), ("kv", formula_b, {}),
         ("shared_pattern", formula_c, {})]


@pytest.mark.parametrize("heads", [1, 4], ids=lambda h: f"H={h}")
@pytest.mark.parametrize("tie, formula, kwargs", CASES, ids=[c[0] for c in CASES])
def test_closed_form_moments(tie, formula, kwargs, heads):
    """Gaussian-equivalent samples match the closed forms (a), (b), (c) of MATH.md §6."""
    d_head = D // heads
    if formula is formula_b:
        theory = formula(ELL, D, heads, BETA, d_head)
    else:
        theory = formula(ELL, D, heads, BETA, d_head, d_head)
    mean, se = sample_moments(tie, heads, True, draws=12, seed=1000 * heads, **kwargs)
    for k in range(2):
        assert abs(mean[k] - theory[k]) < tolerance(theory[k], se[k]), (k, mean, se, theory)


def test_shared_pattern_needs_shared_noise():
    """With H = 4 the shared-pattern m₂ (c) is far from the untied value (a) the GE would give
    with independent noise per head: the test above can tell the two apart."""
    shared = formula_c(ELL, D, 4, BETA, D // 4, D // 4)[1]
    untied = formula_a(ELL, D, 4, BETA, D // 4, D // 4)[1]
    mean, se = sample_moments("shared_pattern", 4, True, draws=12, seed=4000)
    assert abs(mean[1] - untied) > tolerance(untied, se[1])
    assert abs(mean[1] - shared) < tolerance(shared, se[1])


def test_key_value_tie_raises_the_mean_softmax():
    """Softmax model: the within-head tie adds β²ℓ/d_h to m₁ (vs independent heads)."""
    heads = 4
    tied, se_tied = sample_moments("kv", heads, False, draws=8, seed=50)
    free, se_free = sample_moments("none", heads, False, draws=8, seed=60)
    gap = BETA**2 * ELL / (D // heads)
    se = math.hypot(se_tied[0], se_free[0])
    assert abs((tied[0] - free[0]) - gap) < 4 * se + 3 / ELL * gap


# Across-head sharing preserves the law. KS null at 1% for two independent samples of sizes
# n, m: 1.63·√((n + m)/(nm)). We use n = m = (number of pooled eigenvalues) as the effective
# size. Eigenvalues of one matrix are not independent, but their repulsion makes the empirical
# CDF of a spectrum fluctuate *less* than that of an i.i.d. sample (measured: KS 0.009 between
# two independent 'none' samples vs the i.i.d. scale 0.043), so the threshold is conservative;
# it still rejects the ties that change the law (kv: KS 0.17, shared_pattern: 0.23).
KS_DRAWS = 4


def pooled_spectrum(tie, seed, **kwargs):
    return np.concatenate([squared_singular_values(multihead_output(ELL, D, 4, BETA, tie=tie,
                                                                    rng=seed + r, **kwargs))
                           for r in range(KS_DRAWS)])


@pytest.fixture(scope="module")
def independent_heads():
    return pooled_spectrum("none", seed=0)


def ks_threshold(n, m):
    return 1.63 * math.sqrt((n + m) / (n * m))


SHARING = [("mqa", {}), ("gqa", {"groups": 2}), ("shared_values", {}), ("cross_kv", {}),
           ("output_keys", {})]


@pytest.mark.parametrize("tie, kwargs", SHARING, ids=[s[0] for s in SHARING])
def test_across_head_sharing_keeps_the_law(independent_heads, tie, kwargs):
    """Softmax, H = 4: the spectrum under across-head sharing is KS-indistinguishable."""
    other = pooled_spectrum(tie, seed=100, **kwargs)
    assert ks_distance(independent_heads, other) < ks_threshold(independent_heads.size,
                                                                other.size)


@pytest.mark.parametrize("tie", ["kv", "shared_pattern"])
def test_within_head_tie_changes_the_law(independent_heads, tie):
    """Softmax, H = 4: the key–value tie and the shared pattern fail the same KS test."""
    other = pooled_spectrum(tie, seed=200)
    assert ks_distance(independent_heads, other) > ks_threshold(independent_heads.size,
                                                                other.size)


def test_grouped_query_limits_are_none_and_mqa():
    """gqa with groups = H is byte-identical to none, with groups = 1 to mqa."""
    def draw(tie, **kwargs):
        return multihead_output(20, 40, 4, BETA, tie=tie, rng=3, **kwargs).tobytes()
    assert draw("gqa", groups=4) == draw("none")
    assert draw("gqa", groups=1) == draw("mqa")
    assert draw("gqa", groups=2) not in (draw("none"), draw("mqa"))


@pytest.mark.parametrize("tie", TIES)
@pytest.mark.parametrize("equivalent", [False, True], ids=["softmax", "GE"])
def test_same_seed_same_bytes(tie, equivalent):
    """Every tie: float64 ℓ×d output, same seed same bytes, another seed differs."""
    kwargs = {"groups": 2} if tie == "gqa" else {}

    def draw(seed):
        return multihead_output(20, 40, 4, BETA, tie=tie, equivalent=equivalent, rng=seed,
                                **kwargs)
    Y = draw(5)
    assert Y.shape == (20, 40) and Y.dtype == np.float64
    assert Y.tobytes() == draw(5).tobytes() != draw(6).tobytes()


def test_standard_allocation_and_explicit_widths():
    """Widths default to d/H; explicit d_head, d_value lift the divisibility requirement."""
    Y = multihead_output(10, 30, 4, BETA, d_head=5, d_value=7, rng=0)
    assert Y.shape == (10, 30)


BAD_CALLS = [
    (dict(tie="bogus"), "tie must be one of 'none', 'mqa', 'gqa', 'shared_values', 'cross_kv', "
                        "'kv', 'output_keys', 'shared_pattern'; got tie='bogus'"),
    (dict(heads=3), "heads must divide d under the standard allocation d_head = d_value = "
                    "d/heads; got heads=3, d=40"),
    (dict(tie="gqa", groups=3), "groups must divide heads=4; got groups=3"),
    (dict(tie="gqa"), "groups is required with tie='gqa' (a number of groups >= 1 dividing "
                      "heads=4); got groups=None"),
    (dict(tie="gqa", groups=0), "groups must be an integer >= 1 and <= 4; got groups=0"),
    (dict(groups=2), "groups is only used with tie='gqa'; got groups=2 with tie='none'"),
    (dict(ell=1), "ell must be an integer >= 2; got ell=1"),
    (dict(ell=50), "ell must be <= d (the input X has orthonormal rows); got ell=50, d=40"),
    (dict(heads=0), "heads must be an integer >= 1; got heads=0"),
    (dict(beta=0.0), "beta must be a finite number > 0 and <= 26 (so that e^(beta^2) is a finite float64); got beta=0.0"),
    (dict(beta=float("nan")), "beta must be a finite number > 0 and <= 26 (so that e^(beta^2) is a finite float64); got beta=nan"),
    (dict(d_head=0, d_value=10), "d_head must be an integer >= 1; got d_head=0"),
    (dict(d_value=0, d_head=10), "d_value must be an integer >= 1; got d_value=0"),
    (dict(tie="kv", d_head=10, d_value=5), "tie='kv' needs d_value == d_head; got d_value=5, "
                                           "d_head=10"),
    (dict(equivalent=1), "equivalent must be True or False; got equivalent=1"),
]


@pytest.mark.parametrize("overrides, message", BAD_CALLS,
                         ids=["unknown-tie", "heads-not-dividing-d", "groups-not-dividing",
                              "groups-missing", "groups-zero", "groups-without-gqa", "ell<2",
                              "ell>d", "heads<1", "beta=0", "beta=nan", "d_head<1",
                              "d_value<1", "kv-widths", "equivalent-type"])
def test_bad_input_raises(overrides, message):
    """Bad input raises ValueError naming the parameter, its value and what is allowed."""
    arguments = dict(ell=20, d=40, heads=4, beta=1.0) | overrides
    with pytest.raises(ValueError, match=re.escape(message)):
        multihead_output(**arguments)


def test_per_head_noise_equals_rule_for_one_head():
    """With H = 1 one noise per head is the rule; weights are drawn in the same order."""
    rule = multihead_output(30, 60, 1, 1.0, tie="shared_pattern", equivalent=True,
                                     rng=11)
    per_head = shared_pattern_per_head_noise(30, 60, 1, 1.0, rng=11)
    np.testing.assert_array_equal(per_head, rule)  # one code path: the same bytes


def test_per_head_noise_is_seeded_and_differs_from_the_rule_for_several_heads():
    """Same seed, same bytes; with H > 1 independent noises give a different matrix."""
    rule = multihead_output(30, 60, 3, 1.0, tie="shared_pattern", equivalent=True, rng=5)
    per_head = shared_pattern_per_head_noise(30, 60, 3, 1.0, rng=5)
    np.testing.assert_array_equal(per_head, shared_pattern_per_head_noise(30, 60, 3, 1.0, rng=5))
    assert not np.allclose(per_head, rule)


def test_tie_registry_is_one_consistent_table():
    """Every tie has a label and a kind; the across-head ties are those of kind "across heads";
    the law treats them and the output tied to keys (a within-head tie) as independent heads."""
    assert set(TIE_LABELS) == set(TIE_KINDS) == set(TIES) and TIES[0] == "none"
    assert set(ACROSS_HEAD_TIES) == {t for t in TIES if TIE_KINDS[t] == "across heads"}
    assert set(UNTIED_LAW_TIES) == set(ACROSS_HEAD_TIES) | {"output_keys"}
    assert attnspec.TIES is TIES
