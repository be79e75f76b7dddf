"""Tests of attnspec.laws.multihead: the free-probability law of the multi-head output (MATH.md §6).

Oracles: the closed forms (a)–(c) of MATH.md §6, Monte Carlo samples of the Gaussian-equivalent
model, and two second methods for the Cauchy transform in ``multihead_oracles.py`` (polynomial
method, forward fixed point), independent of the law's solver.
"""

import functools
import math
import warnings
import re

import numpy as np
import pytest
from numpy.testing import assert_allclose

from multihead_oracles import cauchy_forward, cauchy_polynomial, critical_value

from attnspec.freeprob.chains import Chain, chain_moments
from attnspec.hermite import BETA_MAX
from attnspec.laws.multihead import _SERIES_RTOL, MultiHeadLaw, UnresolvedLawError
from attnspec.laws.multihead_moments import BETA_MIN, closed_form_moments, multihead_moments
from attnspec.sampling.multihead import multihead_output
from attnspec.sampling.ties import TIES, UNTIED_LAW_TIES
from attnspec.spectra import ks_distance, squared_singular_values

ELL, D, BETA = 1000, 1000, 1.0        # Monte Carlo size (ℓ = d: the hardest edges at 0)
HEADS = (1, 2, 4, 8)

# Sampling noise of KS(one GE draw at ℓ = 1000, limiting law): measured over 24 draws
# (ties none/kv/output_keys/shared_pattern/mqa, H = 1..8, ℓ = 1000, d = 2000, β = 1):
# mean 0.0038, range 0.0031–0.0048; the two-sample KS of independent draws was 0.004–0.006
# (≈ √2 × 0.004). Eigenvalues are rigid, so this is far below the i.i.d. value 1/√ℓ ≈ 0.03.
# Rechecked at the tests' ℓ = d = 1000 (ties none, kv, shared_pattern with H = 4 and none with
# H = 1, 4 draws each, seeds 100–103): 0.0027–0.0043, the same size.
KS_NOISE = 0.004
KS_TOL = 3 * KS_NOISE


def groups_for(tie, heads):
    return max(1, heads // 2) if tie == "gqa" else None


@functools.lru_cache(maxsize=None)
def ge_spectrum(tie, heads, seed, ell=ELL, d=D):
    """Squared singular values of one draw of the Gaussian-equivalent model (cached)."""
    Y = multihead_output(ell, d, heads, BETA, tie, groups=groups_for(tie, heads),
                         equivalent=True, rng=seed)
    return squared_singular_values(Y)


@functools.lru_cache(maxsize=None)
def law_for(tie, heads, ell=ELL, d=D):
    return MultiHeadLaw(ell, d, heads, BETA, tie, groups=groups_for(tie, heads))


# ---- bad input -----------------------------------------------------------------------------
BAD = [
    (dict(heads=3), "heads must divide d"),
    (dict(tie="sideways"), "tie must be one of"),
    (dict(d_head=0, d_value=10), "d_head must be an integer >= 1"),
    (dict(d_head=10, d_value=-2), "d_value must be an integer >= 1"),
    (dict(beta=0.0), "beta must be a finite number > 0"),
    (dict(beta=float("inf")), "beta must be a finite number > 0"),
    (dict(beta=float("nan")), "beta must be a finite number > 0"),
    (dict(beta=50.0), f"beta must be a finite number > 0 and <= {BETA_MAX:g}"),
    (dict(beta=26.000001), f"beta must be a finite number > 0 and <= {BETA_MAX:g}"),
    (dict(beta=1e-200), f"beta must be >= {BETA_MIN:g}"),
    (dict(tie="gqa"), "groups is required with tie='gqa'"),
    (dict(tie="gqa", groups=3), "groups must divide heads"),
    (dict(tie="kv", d_head=100, d_value=50), "tie='kv' needs d_value == d_head"),
    (dict(ell=200, d=100, heads=1), "ell must be <= d"),
]


@pytest.mark.parametrize("make", [MultiHeadLaw, multihead_moments], ids=["law", "moments"])
@pytest.mark.parametrize("bad, message", BAD, ids=[m for _, m in BAD])
def test_bad_input_raises_naming_the_parameter(make, bad, message):
    """Invalid parameters raise ValueError naming the parameter, before any computation."""
    args = dict(ell=100, d=200, heads=4, beta=1.0) | bad
    with pytest.raises(ValueError, match=re.escape(message)):
        make(**args)


def test_bad_order_raises():
    """order must be a positive integer; scaled must be a bool."""
    with pytest.raises(ValueError, match="order must be an integer >= 1"):
        multihead_moments(100, 200, 4, 1.0, order=0)
    with pytest.raises(TypeError, match="scaled must be True or False"):
        multihead_moments(100, 200, 4, 1.0, scaled="no")


@pytest.mark.parametrize("tie", ["none", "kv", "shared_pattern"])
def test_huge_beta_moments_are_finite_or_refused(tie):
    """Issue 11 item 4: at β = 26 the scaled moments m_k/s^k are finite and equal the closed
    forms (a)–(c) divided by s^k (s = e^{β²} − 1 computed in log form); unscaled moments that
    overflow float64 are refused with a message naming the order and beta, never inf/NaN."""
    beta = 26.0
    scaled = multihead_moments(64, 128, 4, beta, tie, order=4, scaled=True)
    assert np.all(np.isfinite(scaled)) and np.all(np.array(scaled) > 0)
    # at β = 26, β²/s ≈ 1e-290: the core is pure noise, α²/s = 1, so m/s^k is the law of
    # a noise-only chain: (a) gives 1 + (1 + ℓ/d_v)/H + ℓ/d for m₂/s² (also for kv and (c))
    y = {"none": 1 + (1 + 64 / 32) / 4 + 0.5, "kv": 1 + (1 + 64 / 32) / 4 + 0.5,
         "shared_pattern": 1 + (1 + 64 / 128) + 0.5}[tie]
    assert scaled[0] == pytest.approx(1.0, rel=1e-12) and scaled[1] == pytest.approx(y, rel=1e-12)
    m1 = multihead_moments(64, 128, 4, beta, tie, order=1)[0]
    assert m1 == pytest.approx(math.expm1(beta ** 2))
    with pytest.raises(ValueError, match="moment order 2 overflows float64 at beta=26.0"):
        multihead_moments(64, 128, 4, beta, tie, order=4)


# ---- moments ---------------------------------------------------------------------------------
def test_closed_forms_match_math_md_check_values():
    """MATH.md §6 check values (ℓ = 500, d = 1000, β = 1, H = 4): 7.143 and 36.33."""
    m1, m2 = multihead_moments(500, 1000, 4, 1.0)
    assert_allclose([m1, m2], [math.expm1(1.0), 7.143108], rtol=1e-6)
    m1, m2 = multihead_moments(500, 1000, 4, 1.0, tie="kv")
    assert_allclose([m1, m2], [math.expm1(1.0) + 2.0, 36.325926], rtol=1e-6)
    # (c): shared pattern is (a) with H -> 1, d_v -> H d_v
    assert_allclose(multihead_moments(500, 1000, 4, 1.0, tie="shared_pattern"),
                    multihead_moments(500, 1000, 1, 1.0, d_head=250, d_value=1000), rtol=1e-14)


CONFIGS = [(500, 1000, 4, 1.0, t) for t in TIES] + [
    (1000, 1000, 1, 0.5, "none"), (300, 2000, 8, 1.5, "kv"), (1000, 1000, 8, 1.0, "kv"),
    (200, 400, 2, 2.0, "shared_pattern"), (1000, 1000, 4, 1.0, "none")]


@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_series_moments_agree_with_closed_forms(config):
    """The free-cumulant series reproduces the closed forms (a)–(c) for m₁, m₂."""
    ell, d, H, beta, tie = config
    groups = groups_for(tie, H)
    closed = multihead_moments(ell, d, H, beta, tie, groups=groups)
    law = MultiHeadLaw(ell, d, H, beta, tie, groups=groups)
    unit = law.chain.unit                 # the chain works in units of s
    assert_allclose(chain_moments(law.chain, 2) * unit ** np.arange(1, 3), closed, rtol=1e-12)


@pytest.mark.parametrize("config", CONFIGS[5:], ids=str)
def test_density_moments_agree_with_series(config):
    """∫ x^k ρ(x) dx of the computed density equals the exact series moment (k ≤ 4)."""
    ell, d, H, beta, tie = config
    law = MultiHeadLaw(ell, d, H, beta, tie)
    for k in range(1, 5):
        quadrature = law.expect(lambda x: x ** k)
        assert_allclose(quadrature, law.moment(k), rtol=1e-10)
    assert law.moment(3) == pytest.approx(multihead_moments(ell, d, H, beta, tie, order=3)[2],
                                          rel=1e-14)


MOMENT_TIES = ("none", "kv", "shared_pattern")    # formulas (a), (b), (c)
MOMENT_DRAWS = 4
T_99 = 5.841  # two-sided 99% quantile of Student's t with MOMENT_DRAWS − 1 = 3 dof


@pytest.mark.parametrize("tie", MOMENT_TIES)
@pytest.mark.slow
def test_moments_against_monte_carlo(tie):
    """m₁..m₃ within t₀.₉₉₅·SE (4 draws, ℓ = 1000) plus the O(k/ℓ) finite-size bias allowance
    (exact for k = 1: the centring P makes E m̂₁ = m₁(1 − 1/ℓ))."""
    per_draw = np.array([[np.mean(ge_spectrum(tie, 4, seed) ** k) for k in (1, 2, 3)]
                         for seed in range(MOMENT_DRAWS)])
    mean = per_draw.mean(axis=0)
    se = per_draw.std(axis=0, ddof=1) / math.sqrt(MOMENT_DRAWS)
    theory = np.array(multihead_moments(ELL, D, 4, BETA, tie, order=3))
    tol = T_99 * se + np.arange(1, 4) * theory / ELL
    assert np.all(np.abs(mean - theory) <= tol), (mean, theory, tol)
    if tie == "kv":   # the test can fail: the untied formula is far off for the kv sample
        untied = np.array(multihead_moments(ELL, D, 4, BETA, "none", order=3))
        assert np.all(np.abs(mean - untied) > 10 * tol)


# ---- the law ---------------------------------------------------------------------------------
@pytest.mark.parametrize("tie", UNTIED_LAW_TIES)
@pytest.mark.slow
def test_untied_law_ties_sample_the_independent_law(tie):
    """mqa, gqa, shared values, cross kv (derived) and output-tied keys (taken: this Monte Carlo
    is its only support): a Gaussian-equivalent sample of the tie (H = 4, ℓ = d = 1000) is
    within KS_TOL of the law of independent heads (which the library returns for them); the
    same sample is far from the kv-tied law."""
    sample = ge_spectrum(tie, 4, 0)
    assert ks_distance(sample, law_for("none", 4)) <= KS_TOL
    assert ks_distance(sample, law_for("kv", 4)) > 2 * KS_TOL


@pytest.mark.parametrize("tie", UNTIED_LAW_TIES)
def test_untied_law_ties_get_the_untied_moments(tie):
    """The library gives every tie of UNTIED_LAW_TIES (output_keys included) exactly the
    moments of independent heads (H = 4), and not those of the kv tie."""
    groups = groups_for(tie, 4)
    moments = multihead_moments(ELL, D, 4, BETA, tie, groups=groups, order=3)
    assert moments == multihead_moments(ELL, D, 4, BETA, "none", order=3)
    assert moments != multihead_moments(ELL, D, 4, BETA, "kv", order=3)


def test_shared_pattern_is_one_head_with_wider_values():
    """Formula (c) for the whole law: a shared-pattern sample (H = 4, ℓ = d = 1000) matches the
    law of ONE head with d_v → H d_v, built from that other parametrisation, and not the law of
    four independent heads."""
    sample = ge_spectrum("shared_pattern", 4, 0)
    one = MultiHeadLaw(ELL, D, 1, BETA, d_head=D // 4, d_value=D)
    assert ks_distance(sample, one) <= KS_TOL
    assert ks_distance(sample, law_for("none", 4)) > 2 * KS_TOL


def test_cross_kv_with_one_head_is_the_kv_tie():
    """With H = 1, V₁ = K_{1+1 mod 1} = K₁: a cross key–value sample matches the kv law and
    its mean s + β²ℓ/d_h (formula (b)), not the untied law."""
    sample = ge_spectrum("cross_kv", 1, 0)
    assert ks_distance(sample, law_for("kv", 1)) <= KS_TOL
    assert ks_distance(sample, law_for("none", 1)) > 2 * KS_TOL
    assert np.mean(sample) == pytest.approx(math.expm1(BETA ** 2) + BETA ** 2, rel=0.02)


def test_single_head_limit_is_the_attention_law():
    """H = 1 with ℓ/d_v, ℓ/d -> 0 is ν∞(β, c): right edge 9.00954 at c = 1, β = 1 (MATH.md §3)."""
    big = 10 ** 9
    law = MultiHeadLaw(1000, big, 1, 1.0, d_head=1000, d_value=big)
    assert law.support()[1] == pytest.approx(9.00954, rel=2e-5)
    assert law.mean() == pytest.approx(math.expm1(1.0), rel=1e-12)
    assert law.moment(2) == pytest.approx(2 * math.expm1(1.0) ** 2 + 1.0, rel=1e-5)


EDGE_CASES = [(1000, 1000, 1, "none", "hard34"), (500, 1000, 1, "none", "hard"),
              (1000, 1000, 4, "none", "hard23"), (500, 1000, 4, "kv", "soft"),
              (1000, 1000, 1, "kv", "hard34")]


@pytest.mark.parametrize("ell, d, H, tie, kind", EDGE_CASES, ids=str)
def test_edges_mass_and_scipy_semantics(ell, d, H, tie, kind):
    """Left-edge kind, total mass 1 to 1e-12, cdf/ppf round trip, scipy edge semantics."""
    law = MultiHeadLaw(ell, d, H, 1.0, tie)
    assert law._intervals()[0][2] == kind
    assert law.expect(np.ones_like) == pytest.approx(1.0, rel=0, abs=1e-12)
    assert law._cdf_error < 1e-10
    a, b = law.support()
    assert law.cdf(b) == 1.0 and law.cdf(a - 1e-9) == 0.0 and law.pdf(b * 1.01) == 0.0
    assert law.ppf(0.0) == a and law.ppf(1.0) == b and np.isnan(law.ppf(1.5))
    q = np.linspace(0.01, 0.99, 11)
    assert_allclose(law.cdf(law.ppf(q)), q, atol=1e-12)
    x = law.ppf(0.4)
    h = 1e-6 * b
    assert (law.cdf(x + h) - law.cdf(x - h)) / (2 * h) == pytest.approx(law.pdf(x), rel=1e-6)
    assert isinstance(law.cdf(1.0), float)
    assert repr(law).startswith(f"MultiHeadLaw(ell={ell}, d={d}, heads={H}, beta=1.0")


def test_atom_at_zero_from_ranks():
    """Narrow values (H d_v < ℓ) give an atom 1 − H d_v/ℓ at 0; the density carries the rest."""
    law = MultiHeadLaw(1000, 1000, 2, 1.0, d_head=500, d_value=50)
    assert law.atom == pytest.approx(0.9)
    assert law.expect(np.ones_like) == pytest.approx(1.0, rel=0, abs=1e-12)   # atom included
    assert law.cdf(0.0) == pytest.approx(0.9) and law.support()[0] == 0.0


def test_kv_tie_raises_mean_with_heads():
    """kv tie: m₁ = s + β²ℓ/d_h grows with H at fixed d (MATH.md §6)."""
    means = [MultiHeadLaw(500, 1000, H, 1.0, "kv").mean() for H in (1, 2, 4)]
    assert_allclose(means, [math.expm1(1.0) + 500 / dh for dh in (1000, 500, 250)], rtol=1e-12)


# ---- second methods ----------------------------------------------------------------------------
@pytest.mark.parametrize("config", [(1000, 2000, 8, "none"), (1000, 1000, 1, "none"),
                                    (500, 1000, 4, "shared_pattern")], ids=str)
def test_newton_agrees_with_polynomial_method(config):
    """Untied chain: Newton + η-ladder equals the polynomial method (companion-matrix roots,
    Nevanlinna selection) to 1e-10 at η = 0.01·m₁."""
    ell, d, H, tie = config
    law = MultiHeadLaw(ell, d, H, 1.0, tie)
    x = np.linspace(0.02 * law.mean(), 1.05 * law.support()[1], 15) / law.chain.unit
    eta = 0.01 * law.mean() / law.chain.unit
    G, _ = law.chain.cauchy_on_axis(x, closed_form_moments(law.chain)[0], eta=eta)
    assert_allclose(cauchy_polynomial(law.chain, x + 1j * eta), G, rtol=1e-10)


@pytest.mark.parametrize("config", [(1000, 2000, 8), (1000, 1000, 1)], ids=str)
def test_newton_agrees_with_forward_fixed_point_kv(config):
    """kv chain: Newton + closed-form MP integral equals a forward Silverstein–Bai fixed point
    with quadrature to 1e-10 at η = 0.1·m₁."""
    law = MultiHeadLaw(*config, 1.0, "kv")
    x = np.linspace(0.02 * law.mean(), 1.05 * law.support()[1], 7) / law.chain.unit
    eta = 0.1 * law.mean() / law.chain.unit
    G, _ = law.chain.cauchy_on_axis(x, closed_form_moments(law.chain)[0], eta=eta)
    assert_allclose(cauchy_forward(law.chain, x + 1j * eta, sweeps=2000, nodes=1000), G,
                    rtol=1e-10)


@pytest.mark.parametrize("config", [(1000, 2000, 8, "none"), (1000, 1000, 8, "none"),
                                    (1000, 2000, 8, "kv"), (1000, 1000, 8, "kv"),
                                    (1000, 1000, 1, "shared_pattern")], ids=str)
def test_density_agrees_with_the_long_ladder_on_the_axis(config):
    """The law's density (Newton from remembered solutions, the hard-edge series near 0) equals
    a solve without starting points on the real axis, the long, fine η-ladder (η from 100·m₁
    down by 1.5 per level, 4 Newton steps each, 8 at η = 0): to 1e-9 of the maximum density on
    200 points of the support plus 10 within 1e-2..1e-6 of its edges."""
    ell, d, H, tie = config
    law = MultiHeadLaw(ell, d, H, 1.0, tie)
    a, b = law.support()
    near = np.geomspace(1e-2, 1e-6, 5)
    x = np.concatenate([a + (b - a) * np.linspace(0, 1, 201)[1:-1] ** 2, b * (1 - near),
                        a + (b - a) * near])
    rho = law.pdf(x)
    unit = law.chain.unit
    G = law.chain._ladder(x / unit, closed_form_moments(law.chain)[0], 0.0, top=100.0,
                          ratio=1.5, iters=4, final=8)[0]
    ref = -G.imag / np.pi / unit
    assert np.max(np.abs(rho - ref)) <= 1e-9 * np.max(ref)


def test_fast_ladder_agrees_with_long_ladder():
    """The fast η-ladder gives the long, fine ladder's boundary values to 1e-10."""
    chain = Chain("untied", 8, 1.0, 8.0, 8.0, 1.0)
    x = np.linspace(1e-3, 15, 301)
    fast, _ = chain.cauchy_on_axis(x, 1.7)
    slow = chain._ladder(x, 1.7, 0.0, top=100.0, ratio=1.5, iters=4, final=8)[0]
    assert_allclose(fast, slow, rtol=1e-10)


EDGE_LAWS = [(1000, 2000, 8, 1.0, "none"), (1000, 1000, 2, 1.0, "none", 10, 50),
             (1000, 1000, 2, 1.0, "shared_pattern", 64, 200), (64, 64, 8, 0.5, "shared_pattern"),
             (64, 128, 2, 26.0, "none"), (1000, 2000, 8, 1.0, "kv"), (64, 128, 2, 3.0, "kv"),
             (1000, 1000, 8, 1.0, "kv"), (2, 64, 64, 5.0, "kv")]   # the last: the right-edge
# scan needs more than its first four decades of p


@pytest.mark.parametrize("config", EDGE_LAWS, ids=str)
def test_edges_are_critical_values(config):
    """Every edge e > 0 of the support (right edge, gaps, soft left edges) is a critical value
    z(p*), z′(p*) = 0: to 1e-14 relative against the 40-digit critical point (mpmath) next to
    the law's solution there (untied chains, whose backward map is rational); and, for every
    chain, 1e-9·e inside each edge the density is above 1e-6 of its value mid-interval
    (√1e-9 ≈ 3e-5 at a square-root edge), 1e-9·e outside below 1e-2 of that (0 up to the
    solver's rounding)."""
    law = MultiHeadLaw(*config)
    unit, (known_x, known_lp) = law.chain.unit, law._known
    for a, b in law.intervals():
        for edge, side in ((a, 1.0), (b, -1.0)):
            if edge == 0:
                continue
            rho = law.density(edge * (1 + side * np.array([-1e-9, 1e-9])))
            assert rho[0] <= 1e-2 * rho[1] and rho[1] >= 1e-6 * law.density(0.5 * (a + b))
            if law.chain.kind == "untied":
                p0 = np.exp(known_lp[np.argmin(np.abs(known_x - edge / unit))])
                exact = critical_value(law.chain, p0).real * unit
                assert edge == pytest.approx(exact, rel=1e-14, abs=0.0)


# ---- Monte Carlo of the Gaussian-equivalent model ------------------------------------------------
@pytest.mark.parametrize("heads", HEADS)
@pytest.mark.parametrize("tie", TIES)
@pytest.mark.slow
def test_law_matches_monte_carlo(tie, heads):
    """KS(one GE draw at ℓ = d = 1000, law) ≤ 3 × the measured sampling noise."""
    ks = ks_distance(ge_spectrum(tie, heads, 0), law_for(tie, heads))
    assert ks <= KS_TOL, ks


def test_ks_noise_level_is_honest():
    """Two independent draws differ by ≈ √2·KS_NOISE: the tolerance is neither lax nor tight."""
    ks = ks_distance(ge_spectrum("none", 4, 0), ge_spectrum("none", 4, 1))
    assert 0.4 * math.sqrt(2) * KS_NOISE <= ks <= 3 * math.sqrt(2) * KS_NOISE, ks


@pytest.mark.parametrize("sample, law", [(("kv", 4), ("none", 4)),
                                         (("shared_pattern", 4), ("none", 4)),
                                         (("none", 8), ("none", 2)),
                                         (("none", 4), ("kv", 4))], ids=str)
def test_monte_carlo_test_can_fail(sample, law):
    """The KS test rejects a wrong law: within-head tie, shared pattern, wrong H."""
    ks = ks_distance(ge_spectrum(*sample, 0), law_for(*law))
    assert ks > 2 * KS_TOL, ks


# ---- the documented domain (issue 11): right, or a named refusal --------------------------------
DOMAIN_BETAS = (1e-3, 0.5, 1.0, 3.0, 10.0, BETA_MAX)
DOMAIN_SHAPES = ((64, 128), (64, 64), (40, 1000))      # standard, ℓ = d (hard edges), ℓ ≪ d
DOMAIN = ([(ell, d, H, tie, beta) for ell, d in DOMAIN_SHAPES for H in (1, 2, 8)
           for tie in ("none", "kv", "shared_pattern") for beta in DOMAIN_BETAS]
          + [(64, 128, H, tie, 1.0) for H in (1, 2, 8) for tie in UNTIED_LAW_TIES])
# Where the solver may refuse (chapter A1, "What is exact and what is not"): β = 1e-3 (the
# noise scale α² ≈ β⁴/2 sits ~1e-6 of the support below the scores) and ℓ = d − 1.
MAY_REFUSE = {1e-3, BETA_MIN}
NEAR_DEGENERATE = [(63, 64, 1, "none", 1.0), (63, 64, 8, "none", 1.0)]
# β = BETA_MIN at ℓ = d and ℓ = d − 1: once refused with a bare numpy broadcasting error (a
# point without a starting guess next to an array of Newton roots), now named
TINY_BETA = [(63, 64, 1, "none", BETA_MIN), (8, 8, 8, "kv", BETA_MIN),
             (64, 64, 4, "kv", BETA_MIN), (2, 4, 2, "shared_pattern", BETA_MIN)]


def quadrature(law, func, nodes=400):
    """∫ func(x) ρ(x) dx over the support by Gauss–Legendre, independent of the law's CDF
    series: each interval is cut at its midpoint; the left half in x = a + (m − a) t^q (q = 2
    for a soft or x^{-1/2} edge, 3 for x^{-2/3}, 4 for x^{-3/4}: a smooth integrand in t), the
    right half in x = b − (b − m) t² (the square-root edge)."""
    t, w = np.polynomial.legendre.leggauss(nodes)
    t, w = 0.5 * (t + 1), 0.5 * w
    total = 0.0
    for a, b, kind in law._intervals():     # support intervals, cut where scales change
        m = 0.5 * (a + b)
        q = {"soft": 2, "inner": 2, "hard": 2, "hard23": 3, "hard34": 4}[kind]
        x = a + (m - a) * t ** q
        total += np.sum(w * func(x) * law.pdf(x) * (m - a) * q * t ** (q - 1))
        x = b - (b - m) * t ** 2
        total += np.sum(w * func(x) * law.pdf(x) * (b - m) * 2 * t)
    return total


def build_or_refusal(ell, d, H, tie, beta):
    groups = groups_for(tie, H)
    try:
        return MultiHeadLaw(ell, d, H, beta, tie, groups=groups)
    except UnresolvedLawError as error:
        assert isinstance(error, ValueError) and "MultiHeadLaw(ell=" in str(error)
        assert "beta" in str(error) or "ell" in str(error)
        return None


@pytest.mark.parametrize("config", DOMAIN + NEAR_DEGENERATE + TINY_BETA, ids=str)
@pytest.mark.slow
def test_domain_mass_and_moments_by_independent_quadrature(config):
    """Over the documented domain: mass 1 − atom and m₁, m₂ (in units of s, so that β = 26 does
    not overflow) by Gauss–Legendre quadrature of the pdf, against multihead_moments (closed
    forms (a)–(c)); or, only where documented, a named UnresolvedLawError."""
    ell, d, H, tie, beta = config
    law = build_or_refusal(*config)
    if law is None:
        assert beta in MAY_REFUSE or config in NEAR_DEGENERATE, config
        return
    s = math.expm1(beta * beta)
    mass = law.atom + quadrature(law, np.ones_like)
    m1, m2 = (quadrature(law, lambda x, k=k: (x / s) ** k) for k in (1, 2))
    exact = multihead_moments(ell, d, H, beta, tie, groups=groups_for(tie, H), scaled=True)
    assert mass == pytest.approx(1.0, abs=1e-8)
    assert [m1, m2] == pytest.approx(exact, rel=1e-8)


@pytest.mark.parametrize("config", TINY_BETA + [(64, 128, 2, "none", BETA_MIN)], ids=str)
def test_beta_min_density_overflows_quietly_and_refusals_say_why(config):
    """At β = BETA_MIN (s = 1e-300) the density, of order 1/s near its edges, may exceed the
    float range: no RuntimeWarning; a law that cannot then meet its accuracy is refused
    naming β and the float range; a law that builds has finite moments and a density beyond
    the support of 0 (x/s = inf included)."""
    ell, d, H, tie, beta = config
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        try:
            law = MultiHeadLaw(ell, d, H, beta, tie)
        except UnresolvedLawError as error:
            assert f"beta={beta!r}" in str(error) and "float range" in str(error)
            return
        assert law.pdf(np.array([1e300]))[0] == 0.0 and law.density(np.array([-1.0]))[0] == 0.0
        assert np.isfinite(law.mean()) and law.mean() > 0


def test_density_beyond_the_float_range_is_inf_without_warnings():
    """At a hard edge at 0 (kv, ℓ = d: ρ ~ x^{-2/3}) and β = 1e-140 (s = 1e-280) the true
    density at x = 5e-324 is ≈ 1.6e309, beyond the float range: pdf gives inf, quietly; at
    1e-320 it is ≈ 2e306, finite, and the density falls as x^{-2/3} between them."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        law = MultiHeadLaw(64, 64, 2, 1e-140, "kv")
        rho = law.pdf(np.array([5e-324, 1e-320, 1e-310]))
    assert rho[0] == np.inf and np.all(np.isfinite(rho[1:]))
    assert rho[1] / rho[2] == pytest.approx(1e-10 ** (-2 / 3), rel=1e-3)


SUPPORT_CASES = [(64, 128, H, tie, beta) for H in (1, 2, 8)
                 for tie in ("none", "kv", "shared_pattern") for beta in (0.5, 1.0, 3.0)]


@pytest.mark.parametrize("config", SUPPORT_CASES, ids=str)
def test_domain_support_against_monte_carlo(config):
    """The support holds a Gaussian-equivalent sample (ℓ = 64, 4 draws): at most 3% of its
    eigenvalues fall outside the support widened by 25% (edge fluctuations at ℓ = 64), and the
    largest one reaches beyond half the right edge."""
    ell, d, H, tie, beta = config
    law = MultiHeadLaw(ell, d, H, beta, tie)
    sample = np.concatenate([squared_singular_values(multihead_output(
        ell, d, H, beta, tie, equivalent=True, rng=seed)) for seed in range(4)])
    a, b = law.support()
    outside = (sample < 0.75 * a - 1e-12 * b) | (sample > 1.25 * b)
    assert np.mean(outside) <= 0.03 and sample.max() >= 0.5 * b


def test_split_intervals_keep_the_density_at_their_cuts():
    """A soft left edge very close to 0 (ℓ = d − 1) is integrated on pieces cut at a·100^k
    ("inner" left ends); the cuts lie inside the support, so pdf there is the density
    (positive), and intervals() gives the uncut interval."""
    law = MultiHeadLaw(63, 64, 8, 1.0)
    pieces = law._intervals()
    assert len(pieces) > len(law.intervals()) == 1
    cuts = np.array([a for a, _, kind in pieces if kind == "inner"])
    assert cuts.size and np.all(law.pdf(cuts) > 0)
    assert_allclose(law.pdf(cuts), law.density(cuts), rtol=1e-12)
    assert law.support() == law.intervals()[0]


def test_unresolved_law_error_is_the_base_accuracy_error():
    """UnresolvedLawError is a LawAccuracyError (hence a ValueError), exported at the top
    level: code that catches either name catches the multi-head refusals."""
    import attnspec
    from attnspec.laws.base import LawAccuracyError

    assert attnspec.UnresolvedLawError is UnresolvedLawError
    assert issubclass(UnresolvedLawError, LawAccuracyError)
    assert issubclass(UnresolvedLawError, ValueError)


def test_guesses_towards_a_hard_edge_follow_the_power_law():
    """Below the lowest solutions, where p → p₀ as x → 0 (z ≈ C(p − p₀)^k), the starting
    points lie on p₀ + (p₁ − p₀)(x/x₁)^{1/k}: exact for an exact power law (k = 3 here), and
    none where the three lowest solutions fit no k ∈ {2, 3, 4} (then the nearest solution)."""
    from attnspec.laws.multihead_starts import toward_limit

    p0, amplitude = 0.3 - 0.8j, 0.05 - 0.02j
    xs = np.array([1e-6, 1e-5, 1e-4])
    x = np.array([1e-12, 1e-9, 3e-7])
    exact = p0 + amplitude * x ** (1 / 3)
    assert_allclose(toward_limit(xs, p0 + amplitude * xs ** (1 / 3), x), exact, rtol=1e-12)
    assert toward_limit(xs, p0 + amplitude * np.log(xs), x) is None


def test_coordinate_near_a_diverging_hard_edge_is_logarithmic():
    """Towards a hard edge at 0 where p → ∞ (kv tie, ℓ = d) the interpolation variable is
    θ above θ_c and θ_c(1 + log(θ/θ_c)) below (continuous with its slope at θ_c), so that a
    power law p ∝ θ^{-2} is linear in it; untied heads (p → p₀ there) keep θ."""
    from attnspec.laws.chebyshev_pieces import sin_map_inverse
    from attnspec.laws.multihead_starts import R_LOG, log_near_zero

    theta_c = sin_map_inverse(R_LOG, 0.0, 1.0, 3)
    theta = theta_c * np.array([1e-4, 1e-2, 0.5, 1 - 1e-9, 1 + 1e-9, 2.0])
    c = log_near_zero(theta, 3)
    assert_allclose(c[3:], theta[3:], rtol=1e-8)
    log_p = -2 * np.log(theta[:3])
    assert_allclose(np.diff(log_p) / np.diff(c[:3]), -2 / theta_c, rtol=1e-12)
    assert law_for("kv", 8)._diverges and not law_for("none", 8)._diverges


def test_edge_start_is_the_projection_on_the_axis():
    """The start of Newton's method at an inner edge is the inside solution projected on the
    line through 0 and the outside one when that lies on the real or imaginary axis, else
    (or when the projection is 0) the inside solution itself."""
    from attnspec.laws.multihead_starts import on_axis

    assert on_axis(0.3 - 0.2j, -0.5 + 0j) == pytest.approx(0.3 + 0j)
    assert on_axis(0.1 - 0.4j, 0.0 - 0.6j) == pytest.approx(-0.4j)
    assert on_axis(0.3 - 0.2j, 0.4 - 0.3j) == 0.3 - 0.2j
    assert on_axis(0.3 - 0.2j, np.nan) == 0.3 - 0.2j
    assert on_axis(-0.2j, 0.5 + 0j) == -0.2j


@pytest.mark.parametrize("config", [(1000, 2000, 8, 1.0, "none"), (1000, 1000, 8, 1.0, "none"),
                                    (1000, 2000, 8, 1.0, "kv"), (100, 3000, 2, 1.0, "kv"),
                                    (900, 1000, 8, 0.3, "shared_pattern"),
                                    (64, 64, 8, 0.5, "shared_pattern"),
                                    (64, 128, 2, 26.0, "none")], ids=str)
def test_built_density_from_the_series_agrees_with_newton(config):
    """Once built, the density inside the support is the CDF series' derivative where its
    bound allows (``_SERIES_RTOL``), else Newton's method: it equals Newton's density
    (−Im G/π from :meth:`MultiHeadLaw.cauchy`) to 2e-10 pointwise (relative) where the series
    is used, on 400 points per interval plus points 1e-2..1e-10 of the length from each end;
    the points next to a soft edge fall back to Newton's method, whose results there depend on
    its starting points at 1e-9 of the maximum (as in the long-ladder test above)."""
    law = MultiHeadLaw(*config)
    x = np.concatenate([np.concatenate([np.linspace(a, b, 402)[1:-1],
                                        a + (b - a) * np.geomspace(1e-2, 1e-10, 9),
                                        b - (b - a) * np.geomspace(1e-2, 1e-10, 9)])
                        for a, b in law.intervals()])
    rho = law.density(x)
    newton = np.maximum(-law.cauchy(x).imag / np.pi, 0.0)
    _, series = law._stack.pdf(x, _SERIES_RTOL)
    assert series.mean() > 0.9 and not series.all()
    assert np.max(np.abs(rho - newton)) <= 1e-9 * np.max(newton)
    assert_allclose(rho[series], newton[series], rtol=2e-10, atol=0)


# ---- high orders (issue 24): right or refused for the right reason -----------------------------
@pytest.mark.parametrize("tie", ["none", "kv"])
@pytest.mark.slow
def test_high_order_moments_agree_with_low_orders_and_quadrature(tie):
    """Issue 24: multihead_moments(400, 800, 4, 1.0, order=200)[2] was NaN (the series
    coefficients overflowed in units of s) and m₃ is 40.6105 at order=40.  Now each moment
    does not depend on how many are asked for, and m₈₀ (a number near 1e77, found through
    series arithmetic) equals Gauss–Legendre quadrature of the law's density."""
    few = multihead_moments(400, 800, 4, 1.0, tie, order=40)
    many = multihead_moments(400, 800, 4, 1.0, tie, order=100)
    assert np.all(np.isfinite(many)) and np.all(np.array(many) > 0)
    assert_allclose(many[:40], few, rtol=1e-12)
    if tie == "none":
        assert few[2] == pytest.approx(40.6105, abs=1e-4)
    law = MultiHeadLaw(400, 800, 4, 1.0, tie)
    top = law.support()[1]
    for k in (30, 80):      # in units of the right edge, so that x^k neither over- nor underflows
        scaled = quadrature(law, lambda x, k=k: (x / top) ** k, nodes=800)
        assert scaled * top ** k == pytest.approx(many[k - 1], rel=1e-7)
        assert law.moment(k) == pytest.approx(many[k - 1], rel=1e-12)


@pytest.mark.slow
def test_moment_orders_beyond_the_series_accuracy_are_refused_saying_so():
    """Orders whose rounding error exceeds the stated accuracy are refused as such (naming the
    parameter and the highest accurate order), not as overflowing the float range (which
    MultiHeadLaw(400, 800, 4, 1.0).moment(160), about 1e155, is not)."""
    with pytest.raises(ValueError, match=r"order=140: .* rounding .* order must be <= \d+") as info:
        multihead_moments(400, 800, 4, 1.0, order=140)    # was returned without a word
    with pytest.raises(ValueError, match=r"order=200: .* rounding .* order must be <= \d+"):
        multihead_moments(400, 800, 4, 1.0, order=200)    # m₃ on were NaN
    highest = int(re.search(r"<= (\d+)", str(info.value)).group(1))
    assert 40 <= highest < 140
    assert len(multihead_moments(400, 800, 4, 1.0, order=highest)) == highest
    with pytest.raises(ValueError, match=r"k=160: .* rounding") as info:
        MultiHeadLaw(400, 800, 4, 1.0).moment(160)
    assert "float range" not in str(info.value)


@pytest.mark.parametrize("ell, d, heads, beta", [(500, 1000, 4, 1.0), (300, 1200, 6, 0.7),
                                                 (800, 800, 2, 1.3)])
def test_kv_second_moment_as_written_in_a1(ell, d, heads, beta):
    """A1 'Moments': under the key–value tie m₂ = (1 + ℓ/d)(s + β²/y)² + E σ(t)²/(yH), with
    σ(t) = (β²/y)t² + α²t, t ~ MP(y), y = d_h/ℓ — against the library's series, to 1e-13."""
    y, s = (d // heads) / ell, math.expm1(beta * beta)
    alpha2, c1 = s - beta * beta, beta * beta / y
    t_moments = (1.0, 1.0, 1 + y, 1 + 3 * y + y * y, 1 + 6 * y + 6 * y * y + y ** 3)
    e_sigma2 = c1 * c1 * t_moments[4] + 2 * c1 * alpha2 * t_moments[3] + alpha2 ** 2 * t_moments[2]
    m2 = (1 + ell / d) * (s + c1) ** 2 + e_sigma2 / (y * heads)
    m1_series, m2_series = multihead_moments(ell, d, heads, beta, "kv", order=2)
    assert m1_series == pytest.approx(s + c1, rel=1e-13)
    assert m2_series == pytest.approx(m2, rel=1e-13)
