"""AttentionLaw over its whole documented domain (issue 11, items 1, 2, 8; MATH.md §2–§3).

Grid: β ∈ {1e-6, …, 26} (log-spaced, with both ends of ``hermite.BETA_MAX``'s domain) and
c ∈ {0.01, 0.1, 1, 4, 100} (both ends of ``C_MIN``/``C_MAX``). For every case, against
oracles that share no code with the law:

- total mass 1 to 1e-9, mean s and second moment 2s² + cβ⁴ to 1e-8 relative, by composite
  Gauss–Legendre quadrature of the pdf over each support interval on panels graded
  geometrically towards both ends (hp-graded, so square-root and power-law end behaviour
  is integrated to high accuracy), with the ~t^(-1/2) edge at 0 removed by t = t₁v²;
- the pdf at three points per interval to 1e-9 relative against the root of the quartic
  K(g) = √t computed by ``mpmath.polyroots`` (physical root: the one with the most negative
  imaginary part);
- ppf(cdf(x)) = x to 1e-9 relative where the density is not tiny;
- the support against a Monte Carlo sample of the linear model (ℓ = 400): every squared
  singular value within 25 % of an interval's width of an interval, every interval
  populated.
"""

import math
import subprocess
import sys
import warnings

import mpmath as mp
import numpy as np
import pytest
from numpy.testing import assert_allclose

import attnspec
from attnspec.hermite import BETA_MAX
from attnspec.laws.attention import AttentionLaw
from attnspec.laws.base import C_MAX, C_MIN, LawAccuracyError
from attnspec.laws.classical import MarchenkoPastur, ScoreProductLaw, Semicircle
from attnspec.sampling.equivalents import linear_equivalent

BETAS = [1e-6, 1e-4, 1e-2, 0.1, 0.5, 1.0, 2.0, 5.0, 8.75, 10.0, 20.0, 26.0]
CS = [0.01, 0.1, 1.0, 4.0, 100.0]
# c on both sides of 1 at small β: the first piece is graded (a "log" piece spanning the
# decades between the change of power law near 0 and the right edge), both forms
NEAR_ONE = [(1e-20, 0.99), (1e-20, 1.01), (1e-6, 0.99), (1e-6, 1.01), (0.03, 0.99),
            (0.1, 1.01)]
# graded after a near-cusp: a narrow feature inside the support, which the fixed graded
# quadrature below does not resolve (mass checked by adaptive quadrature instead)
AFTER_CUSP = [(0.01, 1.02), (0.06, 1.06), (0.25, 1.6)]
GRID = [(b, c) for b in BETAS for c in CS] + NEAR_ONE
IDS = [f"beta={b}-c={c}" for b, c in GRID]
ALL_GRID = GRID + AFTER_CUSP
ALL_IDS = [f"beta={b}-c={c}" for b, c in ALL_GRID]
_LAWS = {}


def law(beta, c):
    if (beta, c) not in _LAWS:
        _LAWS[beta, c] = AttentionLaw(beta, c)
    return _LAWS[beta, c]


# ----- oracle: the quartic in G by mpmath ---------------------------------------------------
def oracle_density(t, beta, c):
    """ρ(t) = −Im G(√t)/(π√t), G the root of Im < 0 of the quartic of MATH.md §3,
    −α²cβ²G⁴ + zcβ²G³ + (α² + β² − cβ²)G² − zG + 1 = 0, by mpmath.polyroots with 40 digits
    more than the spread of its coefficients (written for h = √s·G so that they are O(1)
    and O(β²/s); physical root: the most negative imaginary part)."""
    mp.mp.dps = 40
    B = mp.mpf(beta) ** 2
    s = mp.expm1(B)
    a, b = (s - B) / s, B / s
    p = mp.mpf(c) * b
    mp.mp.dps = 40 + int(max(0, -mp.log10(a * p)))
    s = mp.expm1(B)
    a, b = (s - B) / s, B / s
    p = mp.mpf(c) * b
    xi = mp.sqrt(mp.mpf(t) / s)
    roots = mp.polyroots([1, -xi, a + b - p, xi * p, -a * p], maxsteps=800,   # ascending
                         extraprec=2 * mp.mp.dps, asc=True)
    h = min(roots, key=lambda r: mp.im(r))
    density = float(-mp.im(h) / (mp.pi * xi * s))
    mp.mp.dps = 15
    return density


# ----- quadrature of the pdf over the support intervals --------------------------------------
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(24)


def graded_panels(levels=48, inner=16):
    """Panels of [0, 1] graded geometrically (ratio 2) towards both ends, uniform inside."""
    ends = 0.5 ** np.arange(levels, 0, -1) * 0.5          # 2^-49 … 1/4
    cuts = np.concatenate([[0.0], ends, np.linspace(0.25, 0.75, inner + 1), 1 - ends[::-1],
                           [1.0]])
    return np.unique(cuts)


def gauss_graded(func):
    """∫₀¹ func(u) du by 24-point Gauss–Legendre on geometrically graded panels (exact for
    algebraic end singularities up to the grading's finest panel, 2^-49)."""
    cuts = graded_panels()
    lo, hi = cuts[:-1, None], cuts[1:, None]
    u = 0.5 * (lo + hi) + 0.5 * (hi - lo) * _NODES[None, :]
    w = 0.5 * (hi - lo) * _WEIGHTS[None, :]
    values = func(u.ravel())                     # shape (n, k)
    return (values * w.ravel()[:, None]).sum(axis=0)


def quadrature(law_):
    """(mass, m₁/s, m₂/s²) of the pdf over each interval, in units of the interval."""
    s = law_.s
    total = np.zeros(3)
    for lo, hi in law_.intervals():
        if lo == 0.0:             # t = hi v²: removes the t^(-1/2) edge at 0
            def f(v, hi=hi):
                t = hi * v * v
                return (2 * hi * v * law_.pdf(t))[:, None] * np.stack(
                    [np.ones_like(t), t / s, (t / s) ** 2], axis=1)
        else:
            def f(u, lo=lo, hi=hi):
                t = lo + (hi - lo) * u
                return ((hi - lo) * law_.pdf(t))[:, None] * np.stack(
                    [np.ones_like(t), t / s, (t / s) ** 2], axis=1)
        total += gauss_graded(f)
    return total


@pytest.mark.parametrize("beta,c", GRID, ids=IDS)
def test_mass_and_moments_by_independent_quadrature(beta, c):
    """Mass 1 to 1e-9; m₁ = s and m₂ = 2s² + cβ⁴ to 1e-8 relative (MATH.md §3)."""
    law_ = law(beta, c)
    mass, m1, m2 = quadrature(law_)
    b = beta * beta / law_.s
    assert abs(mass - 1) < 1e-9
    assert abs(m1 - 1) < 1e-8
    assert abs(m2 / (2 + c * b * b) - 1) < 1e-8
    assert law_.moment(1) == pytest.approx(law_.s, rel=1e-13)


@pytest.mark.parametrize("beta,c", AFTER_CUSP)
@pytest.mark.slow
def test_mass_and_moments_after_a_near_cusp_by_adaptive_quadrature(beta, c):
    """Mass 1 to 1e-9 and m₁ = s, m₂ = 2s² + cβ⁴ to 1e-8 relative by scipy's adaptive
    quadrature of the pdf on panels graded geometrically around the near-cusp t_c (at
    distances |Im t_c|·10^k) and towards both ends (t = t₁v² at 0)."""
    from scipy.integrate import quad
    law_ = law(beta, c)
    (lo, hi), = law_.intervals()
    mp.mp.dps = 30                      # the near-cusp, independently: K′(g) = 0 by mpmath
    B = mp.mpf(beta) ** 2
    s_mp = mp.expm1(B)
    a, b = (s_mp - B) / s_mp, B / s_mp
    p = mp.mpf(c) * b
    cubic = [-1, 2 * p + a + b, b * p - p * p - 2 * a * p, a * p * p]       # ascending
    cusp = max((s_mp * (1 / mp.sqrt(u) + a * mp.sqrt(u) + b * mp.sqrt(u) / (1 - p * u)) ** 2
                for u in mp.polyroots(cubic, maxsteps=200, extraprec=100, asc=True)
                if abs(mp.im(u)) > 0), key=lambda t: mp.im(t))
    mp.mp.dps = 15
    t_c, width = float(mp.re(cusp)), abs(float(mp.im(cusp)))
    assert lo < t_c < hi
    steps = np.geomspace(1e-3, 1.0, 16)
    cuts = np.unique(np.concatenate([
        t_c - width * np.geomspace(1e-3, (t_c - lo) / width, 40)[:-1], [t_c],
        t_c + width * np.geomspace(1e-3, (hi - t_c) / width, 60)[:-1],
        hi - (hi - t_c) * steps[:-1]]))
    cuts = np.concatenate([[lo], cuts[(cuts > lo) & (cuts < hi)], [hi]])
    s = law_.s
    total = np.zeros(3)
    for x0, x1 in zip(cuts[:-1], cuts[1:]):
        for k in range(3):
            if x0 == 0.0:         # t = x1 v²: removes the t^(-1/2) edge at 0
                f = lambda v, k=k: 2 * x1 * v * law_.pdf(x1 * v * v) * (x1 * v * v / s) ** k
                total[k] += quad(f, 0.0, 1.0, epsabs=1e-15, epsrel=1e-13, limit=200)[0]
            else:
                f = lambda t, k=k: law_.pdf(t) * (t / s) ** k
                total[k] += quad(f, x0, x1, epsabs=1e-16, epsrel=1e-13, limit=200)[0]
    bb = beta * beta / s
    assert abs(total[0] - 1) < 1e-9
    assert abs(total[1] - 1) < 1e-8
    assert abs(total[2] / (2 + c * bb * bb) - 1) < 1e-8


@pytest.mark.parametrize("beta,c", ALL_GRID, ids=ALL_IDS)
@pytest.mark.slow
def test_density_against_mpmath_roots(beta, c):
    """pdf at 20 %, 50 %, 80 % of each interval within 1e-9 relative of the oracle."""
    law_ = law(beta, c)
    points = [lo + f * (hi - lo) for lo, hi in law_.intervals() for f in (0.2, 0.5, 0.8)]
    expected = [oracle_density(t, beta, c) for t in points]
    assert_allclose(law_.pdf(np.array(points)), expected, rtol=1e-9, atol=0)


@pytest.mark.parametrize("beta,c", [(5e-7, 1.6), (1e-6, 1.05), (1e-4, 100.0), (0.25, 100.0),
                                    (1.0, 1.0)])
def test_density_near_the_hard_edge_against_mpmath_roots(beta, c):
    """pdf at 1e-16 to 1e-2 of the first interval's length from 0 (at small β the quartic's
    physical pair is there far smaller than its other roots, and is re-solved from its
    Taylor quadratic) within 1e-9 relative of the oracle."""
    law_ = law(beta, c)
    t = law_.intervals()[0][1] * np.geomspace(1e-16, 1e-2, 8)
    assert_allclose(law_.pdf(t), [oracle_density(x, beta, c) for x in t], rtol=1e-9, atol=0)


@pytest.mark.parametrize("beta,c", [(1.0, 0.01), (1.0, 1.0), (1e-4, 100.0), (0.03, 1.6)])
def test_density_within_rounding_of_an_edge(beta, c):
    """At 1 to 4 ulp inside each soft edge the quartic's pair is double to rounding: the
    density is 0 or below 1e-5 of its interval's mean density (mass/length; the exact value
    is ~1e-8 to 1e-6 of it, the square root of a few ulp relative), finite, without warnings
    and without the η-ladder (the closed form decides)."""
    from attnspec.laws import attention
    law_ = law(beta, c)
    t, scale = [], []
    for i, (lo, hi) in enumerate(law_.intervals()):
        mean = (law_.cdf(hi) - law_.cdf(lo)) / (hi - lo)
        for edge, direction in [(hi, -np.inf)] + ([(lo, np.inf)] if i else []):
            for _ in range(4):
                edge = np.nextafter(edge, direction)
                t.append(edge)
                scale.append(mean)
    original = attention.continue_to_axis
    try:
        attention.continue_to_axis = None                # calling it would fail
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            values = law_.pdf(np.array(t))
    finally:
        attention.continue_to_axis = original
    assert np.all(np.isfinite(values)) and np.all(values >= 0)
    assert np.all(values <= 1e-5 * np.array(scale))


@pytest.mark.parametrize("beta,c", ALL_GRID, ids=ALL_IDS)
def test_ppf_inverts_cdf(beta, c):
    """ppf(cdf(x)) = x to 1e-9 relative at quantiles where ρ·x > 1e-3; cdf(ppf(q)) = q."""
    law_ = law(beta, c)
    q = np.linspace(0.01, 0.99, 99)
    x = law_.ppf(q)
    assert_allclose(law_.cdf(x), q, atol=1e-10)
    x = x[law_.pdf(x) * x > 1e-3]
    assert_allclose(law_.ppf(law_.cdf(x)), x, rtol=1e-9)
    assert law_.cdf(law_.support()[1]) == 1.0 and law_.cdf(-1.0) == 0.0


MC_GRID = [(b, c) for b in (1e-6, 1e-2, 0.5, 2.0, 10.0, 26.0) for c in (0.01, 1.0, 4.0, 100.0)]


@pytest.mark.parametrize("beta,c", MC_GRID, ids=[f"beta={b}-c={c}" for b, c in MC_GRID])
def test_support_against_linear_model(beta, c):
    """Squared singular values of one linear-model draw (ℓ = 400, d_qk = ℓ/c; ℓ = 100 at
    c = 0.01) lie within 25 % of an interval's width of an interval, and each interval
    holds at least a quarter of its expected count."""
    law_ = law(beta, c)
    ell = 400 if c >= 0.1 else 100
    d_qk = round(ell / c)
    y = linear_equivalent(ell, d_qk, beta, rng=0)
    t = np.linalg.svd(y, compute_uv=False) ** 2
    intervals = law_.intervals()
    inside = np.zeros(t.size, dtype=bool)
    for lo, hi in intervals:
        slack = 0.25 * (hi - lo)
        here = (t >= lo - slack) & (t <= hi + slack)
        inside |= here
        mass = law_.cdf(hi) - law_.cdf(lo)
        assert here.sum() >= 0.25 * mass * t.size
    assert inside.all(), t[~inside]


# ----- the cases of issue 11 -----------------------------------------------------------------
def test_large_c_small_beta_keeps_the_scores_interval():
    """c = 100, β = 0.03: the scores' interval near 0.1 (1 % of the mass) is part of the law."""
    law_ = AttentionLaw(0.03, 100.0)
    (lo1, hi1), (lo2, hi2) = law_.intervals()
    assert lo1 == 0.0 and hi1 < 2e-6 < lo2 < 0.1 < hi2
    assert law_.support() == (0.0, hi2)
    assert law_.pdf(0.1) == pytest.approx(oracle_density(0.1, 0.03, 100.0), rel=1e-9)
    assert law_.cdf(hi2) - law_.cdf(lo2) == pytest.approx(0.01, abs=1e-10)
    assert law_.cdf(0.5 * (hi1 + lo2)) == pytest.approx(0.99, abs=1e-10)   # the gap
    assert law_.pdf(0.5 * (hi1 + lo2)) == 0.0


@pytest.mark.parametrize("beta", [1e-4, 1e-6])
def test_small_beta_density_near_zero_and_median(beta):
    """Near 0 the density matches the oracle (it was 7× off at β = 1e-4); the cdf of a
    linear-model sample's median is ≈ 1/2 (it was 1.000)."""
    law_ = AttentionLaw(beta, 1.0)
    t = 1e-3 * law_.support()[1]
    assert law_.pdf(t) == pytest.approx(oracle_density(t, beta, 1.0), rel=1e-9)
    sample = np.linalg.svd(linear_equivalent(400, 400, beta, rng=1), compute_uv=False) ** 2
    assert abs(law_.cdf(np.median(sample)) - 0.5) < 0.05


@pytest.mark.parametrize("beta,c,form", [(1e-7, 1.0, "small-beta"), (1e-7, 100.0, "small-beta"),
                                         (1e-6, 1.0, "exact"), (5.0, 0.01, "marchenko-pastur"),
                                         (26.0, 100.0, "marchenko-pastur")])
def test_forms_are_stated_and_accurate(beta, c, form):
    """The form used is an attribute and in str(); its error bound is below 1e-10, except for
    the small-β form at c = 1, where the form's CDF error is about 0.15β (bound 0.2β); its
    density matches the oracle to 1e-9 in the middle of the support."""
    law_ = AttentionLaw(beta, c)
    assert law_.form == form and form in str(law_)
    assert law_.form_error == (0.2 * beta if (form, c) == ("small-beta", 1.0)
                               else pytest.approx(0.0, abs=1e-10))
    lo, hi = law_.intervals()[-1]
    t = lo + 0.5 * (hi - lo)
    assert law_.pdf(t) == pytest.approx(oracle_density(t, beta, c), rel=1e-9)


@pytest.mark.parametrize("beta", [8.75, 10.0, BETA_MAX])
def test_large_beta_is_marchenko_pastur_to_rounding(beta):
    """β ≥ 8.75 works (it raised RuntimeError): ν_∞ = MP(1, s) to rounding there."""
    law_ = AttentionLaw(beta, 1.0)
    mp_law = MarchenkoPastur(1.0, law_.s)
    x = mp_law.ppf(np.linspace(0.05, 0.95, 7))
    assert_allclose(law_.pdf(x), mp_law.pdf(x), rtol=1e-12)
    assert_allclose(law_.cdf(x), mp_law.cdf(x), atol=1e-12)


@pytest.mark.parametrize("kwargs,name", [
    (dict(beta=1e-300), "beta"), (dict(beta=30.0), "beta"), (dict(beta=0.0), "beta"),
    (dict(beta=1.0, c=200.0), "c"), (dict(beta=1.0, c=0.001), "c"),
])
def test_out_of_domain_refused_with_a_named_value_error(kwargs, name):
    """Outside the domain (or out of reach of floats): a ValueError naming the parameter."""
    with pytest.raises(ValueError, match=name):
        AttentionLaw(**kwargs)
    assert issubclass(LawAccuracyError, ValueError)
    assert (C_MIN, C_MAX) == (0.01, 100.0)


def test_self_check_refuses_a_wrong_density():
    """A law whose density is 1 % off fails its own build check with LawAccuracyError."""
    class Broken(AttentionLaw):
        def _pdf(self, t):
            return 1.01 * super()._pdf(t)
    with pytest.raises(LawAccuracyError, match="mass"):
        Broken(1.0, 1.0)


# ----- law methods: bad input (every law) ------------------------------------------------------
ALL_LAWS = [AttentionLaw(1.0, 2.0), MarchenkoPastur(0.5), ScoreProductLaw(1.0), Semicircle(),
            attnspec.MultiHeadLaw(64, 128, 4, 1.0)]


@pytest.mark.parametrize("law_", ALL_LAWS, ids=[repr(x) for x in ALL_LAWS])
@pytest.mark.parametrize("bad", [None, "0.5", 1j, [0.1, "a"]], ids=["None", "str", "complex",
                                                                    "mixed"])
def test_bad_points_raise_type_errors_naming_x_or_q(law_, bad):
    """pdf/cdf/ppf of None, strings, complex values: a TypeError naming x or q."""
    for method, name in (("pdf", "x"), ("cdf", "x"), ("ppf", "q")):
        with pytest.raises(TypeError, match=f"^{name} must"):
            getattr(law_, method)(bad)


@pytest.mark.parametrize("law_", ALL_LAWS, ids=[repr(x) for x in ALL_LAWS])
def test_bad_size_is_named(law_):
    """rvs(size=-1) and rvs(size=2.5): a ValueError naming size; NaN in, NaN out."""
    for size in (-1, 2.5, (3, -2)):
        with pytest.raises(ValueError, match="size"):
            law_.rvs(size=size, rng=0)
    assert law_.rvs(size=(2, 3), rng=0).shape == (2, 3)
    assert np.isnan(law_.ppf(np.nan)) and np.isnan(law_.ppf(1.5))


def test_marchenko_pastur_at_huge_scale():
    """MP(1, 1e300) works (it raised OverflowError): edges, cdf, ppf, mean; moment(2) is
    beyond floats and raises a ValueError naming k; a right edge beyond floats is refused."""
    law_ = MarchenkoPastur(1.0, 1e300)
    assert law_.support() == (0.0, 4e300) and law_.mean() == 1e300
    assert law_.cdf(law_.ppf(0.3)) == pytest.approx(0.3, abs=1e-12)
    assert law_.pdf(1e300) == pytest.approx(math.sqrt(3) / (2 * math.pi) / 1e300, rel=1e-12)
    with pytest.raises(ValueError, match="k=2"):
        law_.moment(2)
    with pytest.raises(ValueError, match="scale"):
        MarchenkoPastur(1.0, 1e308)


@pytest.mark.parametrize("c", [0.01, 0.1, 0.99, 0.995, 0.9999, 1.0, 1.0001, 1.005, 1.01, 4.0,
                               100.0])
def test_score_product_law_over_its_domain(c):
    """ScoreProductLaw: ac mass 1 − atom and mean 1 to 1e-9 by graded Gauss–Legendre;
    density to 1e-9 relative against the root of Im < 0 of the cubic
    c x² G³ + (1 − c) x G² − x G + 1 = 0 solved by mpmath."""
    law_ = ScoreProductLaw(c)
    lo, hi = law_.intervals()[0]
    if lo == 0.0:                 # x = hi v²
        f = lambda v: (2 * hi * v * law_.pdf(hi * v * v))[:, None] * np.stack(
            [np.ones_like(v), hi * v * v], axis=1)
    else:
        f = lambda u: ((hi - lo) * law_.pdf(lo + (hi - lo) * u))[:, None] * np.stack(
            [np.ones_like(u), lo + (hi - lo) * u], axis=1)
    mass, m1 = gauss_graded(f)
    assert mass == pytest.approx(1 - law_.atom, abs=1e-9)
    assert m1 == pytest.approx(1.0, rel=1e-9)
    mp.mp.dps = 40
    for x in (lo + 0.3 * (hi - lo), lo + 0.7 * (hi - lo)):
        X = mp.mpf(x)
        roots = mp.polyroots([1, -X, (1 - c) * X, c * X * X], maxsteps=200, extraprec=200,
                             asc=True)
        expected = float(-min(mp.im(r) for r in roots) / mp.pi)
        assert law_.pdf(x) == pytest.approx(expected, rel=1e-9)


# ----- the CLI ---------------------------------------------------------------------------------
@pytest.mark.parametrize("beta,status", [("10", 0), ("26", 0), ("1e-6", 0), ("30", 2)])
@pytest.mark.slow
def test_cli_law_over_the_domain(beta, status):
    """`attnspec law` works at β = 10, 26, 1e-6 and refuses β = 30 with one line."""
    done = subprocess.run([sys.executable, "-m", "attnspec", "law", "--beta", beta],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == status, done.stderr
    if status:
        assert "beta" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    else:
        assert "Traceback" not in done.stderr and "  form  " in done.stdout
