"""Tests of attnspec.laws: scipy conventions, independent oracles, moments, Monte Carlo."""

import argparse
import math
import re
import warnings
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from numpy.testing import assert_allclose

import attnspec
from attnspec.book import cli_law as _cli_law
from attnspec.laws.attention import AttentionLaw, free_cumulant_moments
from attnspec.laws.classical import MarchenkoPastur, ScoreProductLaw, Semicircle

BETAS = [0.25, 0.5, 1.0, 1.5, 2.0, 3.0]
CS = [0.25, 0.5, 1.0, 2.0, 4.0]
GRID = [(b, c) for b in BETAS for c in CS]
GRID_IDS = [f"beta={b}-c={c}" for b, c in GRID]

# Every SpectralLaw of the package, with the regimes of its lower edge.
SPECTRAL_LAWS = [
    AttentionLaw(1.0, 1.0), AttentionLaw(0.25, 2.0), AttentionLaw(2.0, 0.25),
    MarchenkoPastur(1.0, 2.0), MarchenkoPastur(0.5), MarchenkoPastur(3.0, 0.5),
    ScoreProductLaw(0.5), ScoreProductLaw(1.0), ScoreProductLaw(2.0),
]
LAW_IDS = [repr(law) for law in SPECTRAL_LAWS]


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


# ----- scipy conventions --------------------------------------------------------------------

@pytest.mark.parametrize("law", SPECTRAL_LAWS, ids=LAW_IDS)
def test_edge_semantics(law):
    """pdf 0 outside, cdf exactly 0 below and 1 at/above the top, ppf edges, NaN handling."""
    a, b = law.support()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert law.pdf(-1.0) == 0.0 and law.pdf(b) == 0.0 and law.pdf(2 * b + 1) == 0.0
        assert law.cdf(-1e-300) == 0.0
        assert law.cdf(b) == 1.0 and law.cdf(np.inf) == 1.0
        assert law.ppf(0.0) == a and law.ppf(1.0) == b
        assert np.isnan(law.ppf(-0.1)) and np.isnan(law.ppf(1.1))
        assert np.isnan(law.pdf(np.nan)) and np.isnan(law.cdf(np.nan))
        assert np.isnan(law.ppf(np.nan))
        x = np.linspace(-1, 2 * b, 301)
        assert np.all(np.isfinite(law.pdf(x[x != 0])))
    assert isinstance(law.pdf(0.5 * b), float) and isinstance(law.cdf(0.5 * b), float)
    assert isinstance(law.ppf(0.5), float)
    assert law.pdf(np.ones((2, 3))).shape == (2, 3)
    assert law.cdf([1, 2]).dtype == np.float64


@pytest.mark.parametrize("law", SPECTRAL_LAWS, ids=LAW_IDS)
def test_cdf_ppf_roundtrip_and_mass(law):
    """ppf(cdf(x)) = x in the support, cdf(ppf(q)) = q, total mass 1 to 1e-10."""
    a, b = law.support()
    assert abs(law._mass_error) < 1e-12 and law._cdf_error < 1e-12
    q = np.linspace(law.atom, 1, 201)
    assert_allclose(law.cdf(law.ppf(q)), q, rtol=0, atol=1e-13)
    x = law.ppf(np.linspace(law.atom + 1e-3, 1 - 1e-3, 101))  # points of the support
    x = x[law.pdf(x) * b > 1e-2]  # ppf is ill-conditioned (dx = dq/ρ) at inner edges
    assert_allclose(law.ppf(law.cdf(x)), x, rtol=1e-11, atol=1e-14 * b)
    assert 1 - law.cdf(b * (1 - 1e-15)) < 1e-10


@pytest.mark.parametrize("law", SPECTRAL_LAWS, ids=LAW_IDS)
def test_pdf_is_derivative_of_cdf(law):
    """Central differences of the cdf reproduce the pdf inside the support."""
    x = law.ppf(np.linspace(law.atom + 0.05, 0.95, 9))
    h = 1e-4 * x
    keep = (law.pdf(x - h) > 0) & (law.pdf(x + h) > 0)  # not straddling an edge
    x, h = x[keep], h[keep]
    assert_allclose((law.cdf(x + h) - law.cdf(x - h)) / (2 * h), law.pdf(x), rtol=1e-6)


def test_repr_is_parameter_only():
    """repr shows only the parameters, as in the constructor call."""
    assert repr(AttentionLaw(1.0, 2.0)) == "AttentionLaw(beta=1.0, c=2.0)"
    assert repr(MarchenkoPastur(0.5, 3)) == "MarchenkoPastur(ratio=0.5, scale=3.0)"
    assert repr(ScoreProductLaw(1)) == "ScoreProductLaw(c=1.0)"
    assert repr(Semicircle(2)) == "Semicircle(var=2.0)"
    assert attnspec.AttentionLaw is AttentionLaw


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
EM_TABLE = [(0.25, "4.8481"), (0.5, "5.5451"), (1, "6.75"), (2, "8.8183"), (4, "12.3928")]


@pytest.mark.parametrize("c,beta,printed", EDGE_TABLE)
def test_math_md_edge_table(c, beta, printed):
    """The z₊² column of MATH.md §3 to its printed digits (and the MP edge 4s)."""
    law = AttentionLaw(beta, c)
    decimals = len(printed.split(".")[1])
    assert f"{law.support()[1]:.{decimals}f}" == printed
    assert law.mp_edge() == pytest.approx(4 * math.expm1(beta ** 2), rel=1e-15)


@pytest.mark.parametrize("c,printed", EM_TABLE)
def test_math_md_score_product_edges(c, printed):
    """e_M(c) = 1/max z/((1+z)²(1+cz)) of MATH.md §3 to its printed digits."""
    decimals = len(printed.split(".")[1])
    assert f"{ScoreProductLaw(c).support()[1]:.{decimals}f}" == printed
    z = np.linspace(1e-4, 10, 200001)  # brute-force maximisation as a second check
    assert ScoreProductLaw(c).support()[1] == pytest.approx(
        1 / np.max(z / ((1 + z) ** 2 * (1 + c * z))), rel=1e-8)


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
        quadrature = sum(p.integrate(lambda t: t ** k) for p in law._pieces)
        assert law.moment(k) == pytest.approx(quadrature, rel=1e-12)
    edges = np.sqrt(law.edges())
    for k in (1, 3):
        total = sum(quad(lambda r: 2 * r * r ** (2 * k) * law.pdf(r * r), lo, hi,
                         epsabs=0, epsrel=1e-12, limit=200)[0]
                    for lo, hi in zip(edges[::2], edges[1::2]))
        assert law.moment(k) == pytest.approx(total, rel=1e-9)


def test_other_laws_moments():
    """Closed-form moments of MP, the semicircle and M (Fuss–Catalan at c = 1)."""
    assert [ScoreProductLaw(1).moment(k) for k in range(5)] == [1, 1, 3, 12, 55]
    assert ScoreProductLaw(2).moment(2) == 2 + 2  # 2 + c
    assert MarchenkoPastur(0.5, 2).moment(3) == pytest.approx(8 * (1 + 3 * 0.5 + 0.25))
    assert [Semicircle(2).moment(k) for k in range(7)] == [1, 0, 2, 0, 8, 0, 40]
    for law in (MarchenkoPastur(3.0, 0.5), ScoreProductLaw(0.5), ScoreProductLaw(2.0)):
        for k in (1, 2, 3):
            quadrature = sum(p.integrate(lambda t: t ** k) for p in law._pieces)
            assert law.moment(k) == pytest.approx(quadrature, rel=1e-12)


def test_semicircle_conventions():
    """Semicircle: closed-form cdf, quantile round trip, edges, NaN, moments."""
    law = Semicircle(2.0)
    r = 2 * math.sqrt(2)
    assert law.support() == (-r, r)
    x = np.linspace(-r, r, 101)
    assert_allclose(law.ppf(law.cdf(x)), x, atol=1e-13)
    assert law.cdf(r) == 1.0 and law.cdf(-r) == 0.0 and law.pdf(3.0) == 0.0
    assert np.isnan(law.ppf(2.0)) and np.isnan(law.cdf(np.nan))
    assert law.var() == 2.0 and law.mean() == 0.0
    assert attnspec.ks_distance(law.rvs(2000, rng=0), law) < 1.63 / math.sqrt(2000)


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
def test_monte_carlo_linear_model(beta, c):
    """KS(linear model at ℓ = 1000, ν_∞) is within three times the KS noise; MP is not."""
    sample = _pooled_linear(beta, c)
    noise = 0.8687 / math.sqrt(sample.size)
    law = AttentionLaw(beta, c)
    assert attnspec.ks_distance(sample, law) < 3 * noise
    mp_law = MarchenkoPastur(1.0, law.s)
    assert attnspec.ks_distance(sample, mp_law) > 3 * noise


def test_monte_carlo_score_product_atom():
    """M = WWᵀ/ℓ at c = 2: atom 1 − 1/c at 0 and the gapped bulk match simulation."""
    rng = np.random.default_rng(3)
    ell, d_qk = 800, 400
    values = []
    for _ in range(3):
        Q, K = rng.standard_normal((ell, d_qk)), rng.standard_normal((ell, d_qk))
        values.append(attnspec.squared_singular_values(Q @ K.T / math.sqrt(d_qk * ell)))
    values = np.concatenate(values)
    law = ScoreProductLaw(2.0)
    assert np.mean(values < 1e-8) == pytest.approx(law.atom)
    bulk = values[values >= 1e-8]  # KS of the continuous part: cdf conditioned on x > 0
    noise = 0.8687 / math.sqrt(bulk.size)

    def conditional(other):
        return lambda x: (other.cdf(x) - other.atom) / (1 - other.atom)
    assert attnspec.ks_distance(bulk, conditional(law)) < 3 * noise
    assert attnspec.ks_distance(bulk, conditional(ScoreProductLaw(1.5))) > 3 * noise


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


@pytest.mark.parametrize("cls,kwargs,name", [
    (MarchenkoPastur, {"ratio": 0}, "ratio"), (MarchenkoPastur, {"scale": -1}, "scale"),
    (Semicircle, {"var": 0}, "var"), (ScoreProductLaw, {"c": math.inf}, "c"),
])
def test_bad_parameters_other_laws(cls, kwargs, name):
    """Invalid parameters of the other laws raise ValueError naming the parameter."""
    with pytest.raises(ValueError, match=re.escape(f"{name} must be")):
        cls(**kwargs)


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


# ----- command line ---------------------------------------------------------------------------

def test_cli_law_run(capsys):
    """`attnspec law` prints edges, MP edge, ratio, exact moments and a density table."""
    args = argparse.Namespace(beta=1.0, c=1.0, moments=3, table=5)
    assert _cli_law.run(args) == 0
    out = capsys.readouterr().out
    assert "AttentionLaw(beta=1.0, c=1.0)" in out
    assert re.search(r"right edge\s+9\.00954", out) and re.search(r"MP edge 4s\s+6\.87312", out)
    assert re.search(r"ratio\s+1\.31", out)
    assert re.search(r"m2\s+" + re.escape(f"{2 * math.expm1(1) ** 2 + 1:.12g}"), out)
    assert len([line for line in out.splitlines() if re.match(r"\s+\d\.\d+\s+\d", line)]) == 5


def test_cli_law_parser_and_bad_input(capsys):
    """The subcommand registers its options; bad β exits 2 with a named message."""
    parser = argparse.ArgumentParser()
    _cli_law.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["law", "--beta", "-1", "--c", "2"])
    assert args.func(args) == 2
    assert "beta must be" in capsys.readouterr().err
