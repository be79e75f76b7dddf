"""Tests of attnspec.laws.attention: ν_∞(β, c) against independent oracles, moments, Monte Carlo."""

import math
import re
import warnings
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from numpy.testing import assert_allclose

import attnspec
from attnspec.freeprob.series import free_cumulant_moments
from attnspec.laws.attention import AttentionLaw
from attnspec.laws.classical import MarchenkoPastur, ScoreProductLaw

BETAS = [0.25, 0.5, 1.0, 1.5, 2.0, 3.0]
CS = [0.25, 0.5, 1.0, 2.0, 4.0]
GRID = [(b, c) for b in BETAS for c in CS]
GRID_IDS = [f"beta={b}-c={c}" for b, c in GRID]

# ----- independent oracle: root tracking from infinity + mpmath polish ---------------------
# Recipe: the Cauchy transform G of the symmetrised law solves the quartic P(g; z) = 0 below
# (MATH.md §3). Follow the root that behaves like 1/z at z = x + iη, η large, by picking at
# each of 90 geometric steps of η (down to 1e-13 √s) the root of numpy.roots nearest to the
# previous one, then at η = 0; polish it with mpmath.findroot at 30 digits. Nothing here is
# shared with the library (no Ferrari, no "most negative imaginary part" rule).

def _quartic(x, beta, c, alpha2):
    B = beta * beta
    p = c * B
    return [-alpha2 * p, x * p, alpha2 + B - p, -x, 1]


def oracle_G(x, beta, c):
    mp.mp.dps = 30
    B = mp.mpf(beta) ** 2
    alpha2_mp = mp.expm1(B) - B
    alpha2 = float(alpha2_mp)
    scale = math.sqrt(math.expm1(beta * beta))
    g = 1 / complex(x, 8 * scale)
    for eta in list(np.geomspace(8 * scale, 1e-13 * scale, 90)) + [0.0]:
        roots = np.roots(_quartic(complex(x, eta), beta, c, alpha2))
        g = roots[np.argmin(np.abs(roots - g))]
    coeffs = _quartic(mp.mpf(x), mp.mpf(beta), mp.mpf(c), alpha2_mp)
    return complex(mp.findroot(lambda t: mp.polyval(coeffs[::-1], t, asc=True), mp.mpc(g)))


def oracle_density(t, beta, c):
    """ν_∞ density at t > 0 from the oracle."""
    return -oracle_G(math.sqrt(t), beta, c).imag / (math.pi * math.sqrt(t))


def oracle_edge_candidates(beta, c):
    """|K(g)| at all real critical points g > 0 of K, at 40 digits (mpmath.polyroots)."""
    mp.mp.dps = 40
    B = mp.mpf(beta) ** 2
    a = mp.expm1(B) - B
    p = mp.mpf(c) * B
    cubic = [a * p * p, B * p - p * p - 2 * a * p, 2 * p + a + B, -1]
    roots = mp.polyroots(cubic[::-1], maxsteps=200, extraprec=200, asc=True)
    out = []
    for u in roots:
        if abs(mp.im(u)) < mp.mpf(10) ** -30 and mp.re(u) > 0:
            g = mp.sqrt(mp.re(u))
            out.append((g, abs(1 / g + a * g + B * g / (1 - p * g * g))))
    return sorted(out)


def test_rvs_is_seeded_inversion():
    """rvs draws by inversion from rng: same seed, same values; KS small for 4000 draws."""
    law = AttentionLaw(1.0, 2.0)
    x = law.rvs(4000, rng=1)
    assert_allclose(x, law.rvs(4000, rng=np.random.default_rng(1)))
    assert attnspec.ks_distance(x, law) < 1.63 / math.sqrt(x.size)  # KS test at level 1%
    assert isinstance(law.rvs(rng=0), float)


def test_interval_and_stats():
    """interval, mean, var, std are consistent with ppf and moments."""
    law = AttentionLaw(1.5, 0.5)
    lo, hi = law.interval(0.9)
    assert_allclose([law.cdf(lo), law.cdf(hi)], [0.05, 0.95], atol=1e-13)
    assert law.mean() == pytest.approx(law.s, rel=1e-15)
    assert law.var() == pytest.approx(law.s ** 2 + law.c * law.beta ** 4, rel=1e-13)
    assert law.std() == pytest.approx(math.sqrt(law.var()))


# ----- accuracy against the independent oracle ------------------------------------------------

@pytest.mark.parametrize("beta,c", GRID, ids=GRID_IDS)
def test_density_matches_oracle(beta, c):
    """Bulk density within 1e-10 relative of the continuation oracle; gaps have no mass."""
    law = AttentionLaw(beta, c)
    edges = law.edges()
    points, gaps = [], []
    for lo, hi in zip(edges[::2], edges[1::2]):
        points += list(lo + (hi - lo) * np.array([0.03, 0.2, 0.5, 0.8, 0.97]))
    for lo, hi in zip(edges[1:-1:2], edges[2::2]):
        gaps.append(0.5 * (lo + hi))
    expected = [oracle_density(t, beta, c) for t in points]
    assert_allclose(law.pdf(np.array(points)), expected, rtol=1e-10, atol=0)
    for t in gaps + [edges[-1] * 1.01]:
        assert abs(oracle_G(math.sqrt(t), beta, c).imag) < 1e-12
        assert law.pdf(t) == 0.0


@pytest.mark.parametrize("beta,c", GRID, ids=GRID_IDS)
def test_edges_match_oracle(beta, c):
    """Every edge is a critical value of K (40-digit oracle) to 1e-12; the outer one is
    K(g*) with g* the smallest positive critical point."""
    law = AttentionLaw(beta, c)
    candidates = oracle_edge_candidates(beta, c)
    outer = float(candidates[0][1]) ** 2
    assert law.edges()[-1] == pytest.approx(outer, rel=1e-12)
    values = np.array([float(v) ** 2 for _, v in candidates])
    for edge in law.edges()[1:]:
        assert np.min(np.abs(values - edge)) <= 1e-12 * edge
    assert law.edges()[0] == 0.0


# z₊² of MATH.md §3 (c, β, printed value) and e_M(c)
EDGE_TABLE = [(1, 0.5, "1.79059"), (1, 1.0, "9.00954"), (1, 1.5, "36.5900"),
              (1, 2.0, "215.666"), (2, 1.0, "10.8975"), (0.5, 1.0, "7.9842")]
@pytest.mark.parametrize("c,beta,printed", EDGE_TABLE)
def test_math_md_edge_table(c, beta, printed):
    """The z₊² column of MATH.md §3 to its printed digits (and the MP edge 4s)."""
    law = AttentionLaw(beta, c)
    decimals = len(printed.split(".")[1])
    assert f"{law.support()[1]:.{decimals}f}" == printed
    assert law.mp_edge() == pytest.approx(4 * math.expm1(beta ** 2), rel=1e-15)


def test_split_support_for_large_c_small_beta():
    """For c > 1 and small β a gap opens inside the support; the density is ~ t^{-1/2} at 0."""
    law = AttentionLaw(0.25, 2.0)
    assert len(law.edges()) == 4
    t = np.array([1e-10, 1e-8])
    ratio = law.pdf(t) * np.sqrt(t)
    assert ratio[0] == pytest.approx(ratio[1], rel=1e-3) and ratio[0] > 0
    assert len(AttentionLaw(1.0, 2.0).edges()) == 2


# ----- moments ------------------------------------------------------------------------------

def _lagrange_moments(kappa, n):
    """Moments m_0..m_n by Lagrange inversion of g = w(1 + Σ κ_j g^j), exact in Fractions."""
    phi = [Fraction(1)] + [Fraction(kappa(j)) for j in range(1, n + 1)]

    def power(series, k):
        out = [Fraction(1)] + [Fraction(0)] * n
        for _ in range(k):
            out = [sum(out[i] * series[m - i] for i in range(m + 1)) for m in range(n + 1)]
        return out
    return [power(phi, k + 1)[k] / (k + 1) for k in range(n + 1)]


def test_free_cumulant_recursion_is_exact():
    """The recursion equals exact Lagrange inversion (rational cumulants, orders ≤ 16)."""
    s, B, c = Fraction(17, 10), Fraction(1), Fraction(3, 2)

    def kappa(j):
        if j % 2:
            return 0
        return s if j == 2 else c ** (j // 2 - 1) * B ** (j // 2)
    exact = _lagrange_moments(kappa, 16)
    approx = free_cumulant_moments(lambda j: float(kappa(j)), 16)
    assert_allclose(approx, [float(v) for v in exact], rtol=1e-14)


@pytest.mark.parametrize("beta,c", [(0.5, 1.0), (1.0, 0.5), (1.0, 2.0), (1.5, 4.0)])
def test_moments_closed_form_vs_density(beta, c):
    """moment(k) = ∫ t^k ρ(t) dt for k ≤ 8 (scipy.integrate.quad in s = √t as a check)."""
    from scipy.integrate import quad
    law = AttentionLaw(beta, c)
    s = math.expm1(beta ** 2)
    assert law.moment(1) == pytest.approx(s, rel=1e-14)
    assert law.moment(2) == pytest.approx(2 * s * s + c * beta ** 4, rel=1e-14)
    for k in range(1, 9):
        quadrature = law.expect(lambda t: t ** k)
        assert law.moment(k) == pytest.approx(quadrature, rel=1e-12)
    edges = np.sqrt(law.edges())
    for k in (1, 3):
        total = sum(quad(lambda r: 2 * r * r ** (2 * k) * law.pdf(r * r), lo, hi,
                         epsabs=0, epsrel=1e-12, limit=200)[0]
                    for lo, hi in zip(edges[::2], edges[1::2]))
        assert law.moment(k) == pytest.approx(total, rel=1e-9)


# ----- Monte Carlo of the linear model -------------------------------------------------------
# KS noise: for n i.i.d. draws E[KS] ≈ 0.8687/√n (the Kolmogorov law's mean / √n).
# Eigenvalues are far more rigid than i.i.d. draws, so pooling R = 4 independent matrices
# and using the i.i.d. scale is conservative; the finite-size bias is O(1/ℓ) ≈ 0.001.
# The test must be able to fail: the Marchenko–Pastur surrogate fails it at β = 1.

def _pooled_linear(beta, c, ell=1000, draws=4, seed=0):
    rng = np.random.default_rng(seed)
    d_qk = round(ell / c)
    return np.concatenate([attnspec.squared_singular_values(
        attnspec.linear_equivalent(ell, d_qk, beta, rng)) for _ in range(draws)])


@pytest.mark.parametrize("beta,c", [(1.0, 1.0), (0.25, 2.0)], ids=["beta=1-c=1", "beta=0.25-c=2"])
@pytest.mark.slow
def test_monte_carlo_linear_model(beta, c):
    """KS(linear model at ℓ = 1000, ν_∞) is within three times the KS noise; MP is not."""
    sample = _pooled_linear(beta, c)
    noise = 0.8687 / math.sqrt(sample.size)
    law = AttentionLaw(beta, c)
    assert attnspec.ks_distance(sample, law) < 3 * noise
    mp_law = MarchenkoPastur(1.0, law.s)
    assert attnspec.ks_distance(sample, mp_law) > 3 * noise


# ----- bad input ----------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs,name", [
    ({"beta": 0.0}, "beta"), ({"beta": -1.0}, "beta"), ({"beta": math.inf}, "beta"),
    ({"beta": math.nan}, "beta"), ({"beta": 40.0}, "beta"), ({"beta": 1.0, "c": 0.0}, "c"),
    ({"beta": 1.0, "c": -2.0}, "c"), ({"beta": "1"}, "beta"),
])
def test_bad_parameters_raise_named(kwargs, name):
    """Invalid parameters raise ValueError naming the parameter."""
    with pytest.raises(ValueError, match=re.escape(f"{name} must be")):
        AttentionLaw(**kwargs)


@pytest.mark.parametrize("k", [-1, 1.5, "2", True])
def test_bad_moment_order(k):
    """moment(k) needs an integer k ≥ 0."""
    with pytest.raises(ValueError, match="k must be"):
        AttentionLaw(1.0).moment(k)


def test_outside_support_no_warnings():
    """Far outside, in gaps and at edges: density 0 (never NaN), no warnings."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for law in (AttentionLaw(3.0, 4.0), AttentionLaw(0.25, 4.0), ScoreProductLaw(4.0)):
            edges = np.array(getattr(law, "edges", lambda: law.support())())
            x = np.concatenate([[-1e300, -1.0, 1e300], edges[1:], 2 * edges[-1:]])
            assert np.all(law.pdf(x) == 0.0)
            assert np.all(np.isfinite(law.cdf(np.linspace(-1, 2 * edges[-1], 500))))


@pytest.mark.parametrize("beta,c", [(1e-6, 1.0), (1e-6, 1.01), (1e-20, 0.99), (0.03, 0.99),
                                    (0.01, 1.02)])
def test_small_beta_near_c_one_is_graded(beta, c):
    """At small β and c ≈ 1 the density keeps one power law over many decades above a
    change near 0: the first piece is cut there and mapped geometrically ("log"), so the
    CDF needs at most four pieces (13 graded by bisection before); their Chebyshev tails
    stay far below the mass tolerance."""
    law = AttentionLaw(beta, c)
    kinds = [p.kind for p in law._pieces]
    assert "log" in kinds and len(kinds) <= 4
    assert law._cdf_error < 1e-12


@pytest.mark.parametrize("beta,c", [(1e-7, 0.999), (1e-20, 1.001), (1e-30, 0.999999)])
def test_small_beta_form_at_c_near_one(beta, c):
    """The small-beta form at c within 1e-3 of 1 (it refused: it built ScoreProductLaw(c),
    whose single-piece series cannot resolve c ≈ 1): mass, mean and second moment by the
    build check; pdf = β⁻²·ρ_M(t/β²) against the root of M's cubic by mpmath (c ≤ 1, where
    the form is β²·M), ppf∘cdf."""
    law = AttentionLaw(beta, c)
    assert law.form == "small-beta"
    q = np.linspace(0.01, 0.99, 33)
    assert_allclose(law.cdf(law.ppf(q)), q, atol=1e-12)
    if c <= 1:
        mp.mp.dps = 60
        for f in (0.2, 0.5, 0.8):
            x = f * law.support()[1] / beta ** 2
            X, C = mp.mpf(x), mp.mpf(c)
            roots = mp.polyroots([1, -X, (1 - C) * X, C * X * X], maxsteps=400,
                                 extraprec=400, asc=True)
            expected = float(-min(mp.im(r) for r in roots) / mp.pi) / beta ** 2
            assert law.pdf(x * beta ** 2) == pytest.approx(expected, rel=1e-9)
        mp.mp.dps = 15


@pytest.mark.parametrize("beta,c", [(1e-4, 2.0), (1e-4, 100.0), (1e-6, 1.01), (0.01, 100.0),
                                    (1.0, 4.0), (0.03, 100.0)])
def test_support_decision_matches_the_careful_solver(beta, c):
    """At the midpoints between critical values (where the support is decided), the
    companion-matrix roots, Newton-polished when unclear, agree with the careful solver
    (closed form, then the η-ladder): a root with Im h < 0 exactly where the law says
    "inside"."""
    from attnspec.laws import attention
    law = AttentionLaw(beta, c)
    candidates = law._critical_values()[0]
    bounds = np.concatenate([[0.0], candidates])
    mids = 0.5 * (bounds[:-1] + bounds[1:])
    h = attention._physical_root_scaled(mids, law._ka, law._kb, law.c)
    careful = -h.imag > 1e-8 * np.abs(h)
    np.testing.assert_array_equal(law._has_complex_root(mids), careful)


@pytest.mark.parametrize("beta", [1e-10, 1e-7, 4e-7, 4.4e-7])
def test_small_beta_domain_just_above_c_1_and_its_edge(beta):
    """Issue 24: AttentionLaw(4e-7, 1.00001) raised LawAccuracyError inside the documented
    domain. For β in the small-beta form, 1 < c < 1 + 116.2β (about) is now outside it,
    refused by name with the exact bound; at that bound the law builds, its noise piece holds
    the mass 1 − 1/c (the atom of M at 0, spread by the noise), and c = 1 builds."""
    with pytest.raises(attnspec.ParameterError, match=r"^c must be <= 1 or >= ") as refused:
        AttentionLaw(beta, 1 + 1e-3 * beta)            # inside the gap
    edge = float(re.search(r">= ([0-9.e+-]+) at beta", str(refused.value)).group(1))
    assert edge - 1 == pytest.approx(116.2 * beta, rel=1e-3)
    law = AttentionLaw(beta, edge)
    assert law.form == "small-beta" and len(law.intervals()) == 2
    assert law.cdf(law.intervals()[0][1]) == pytest.approx(1 - 1 / edge, rel=1e-6)
    inside = math.nextafter(edge, 1.0)
    with pytest.raises(attnspec.ParameterError,
                       match=re.escape(f"c must be <= 1 or >= {edge!r} at beta={beta!r}")):
        AttentionLaw(beta, inside)
    assert AttentionLaw(beta, 1.0).form == "small-beta"
    with pytest.raises(attnspec.ParameterError, match=r"^c must be <= 1 or >="):
        AttentionLaw(beta, 1 + 10 * beta)


@pytest.mark.parametrize("c", [0.5, 0.999, 0.9999, 1.0, "first above 1", 1.01, 1.5])
def test_small_form_error_bounds_its_cdf_error(monkeypatch, c):
    """``form_error`` of the small-β form bounds its CDF's distance to the exact law, also
    near c = 1 where that distance grows to about 0.15β (it reported 250a there, far below).
    At β = 1e-5 both forms can be built: the small one by lowering the form's threshold."""
    from attnspec.laws import attention

    beta = 1e-5
    if c == "first above 1":
        c = attention._small_beta_c_min(beta) * 1.0001
    exact = AttentionLaw(beta, c)
    monkeypatch.setattr(attention, "_SMALL_FORM_BELOW", {False: 1.0, True: 1.0})
    small = AttentionLaw(beta, c)
    assert (exact.form, small.form) == ("exact", "small-beta")
    low, high = exact.support()
    x = np.concatenate([np.linspace(low, high, 1001), np.geomspace(1e-16, 1.0, 1601) * high])
    x = x[(x >= low) & (x <= high)]   # the error sits near 0, where the densities differ
    distance = np.max(np.abs(exact.cdf(x) - small.cdf(x)))
    assert distance <= small.form_error
    assert distance >= small.form_error / 10    # the bound is not vacuous
