"""The interface every law shares (laws/base.py and scipy.stats' conventions), on every law.

LAWS is the registry that drives these generic checks: each law of the package with sane
parameters, covering the regimes of its lower edge (hard edge at 0, soft edge, an atom at 0,
a law on ℝ). A new law gets an entry here. Laws are built once, on first use.
"""

import functools
import math
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose

import attnspec
from attnspec import (AttentionLaw, MarchenkoPastur, MultiHeadLaw, ScoreProductLaw, Semicircle,
                      TriangularProfileLaw)

LAWS = {
    "AttentionLaw(1, 1)": lambda: AttentionLaw(1.0, 1.0),
    "AttentionLaw(0.25, 2)": lambda: AttentionLaw(0.25, 2.0),
    "AttentionLaw(2, 0.25)": lambda: AttentionLaw(2.0, 0.25),
    "AttentionLaw(1e-6, 1.01)": lambda: AttentionLaw(1e-6, 1.01),      # graded, with a gap
    "AttentionLaw(1e-20, 0.99)": lambda: AttentionLaw(1e-20, 0.99),    # small-beta, graded
    "MarchenkoPastur(1, 2)": lambda: MarchenkoPastur(1.0, 2.0),
    "MarchenkoPastur(0.5)": lambda: MarchenkoPastur(0.5),
    "MarchenkoPastur(3, 0.5)": lambda: MarchenkoPastur(3.0, 0.5),
    "ScoreProductLaw(0.5)": lambda: ScoreProductLaw(0.5),
    "ScoreProductLaw(1)": lambda: ScoreProductLaw(1.0),
    "ScoreProductLaw(2)": lambda: ScoreProductLaw(2.0),
    "Semicircle(2)": lambda: Semicircle(2.0),
    "TriangularProfileLaw(1)": lambda: TriangularProfileLaw(1.0),
    "TriangularProfileLaw(0.3)": lambda: TriangularProfileLaw(0.3),
    "MultiHeadLaw(none)": lambda: MultiHeadLaw(50, 100, 2, 1.0),
    "MultiHeadLaw(shared_pattern, l=d)": lambda: MultiHeadLaw(100, 100, 4, 0.5,
                                                                tie="shared_pattern"),
}


@functools.cache
def law_named(name):
    return LAWS[name]()


@pytest.fixture(params=sorted(LAWS))
def law(request):
    return law_named(request.param)


def test_every_public_law_is_in_the_registry():
    """Each law class of attnspec.__all__ has at least one entry (so none escapes the checks)."""
    classes = {name for name in attnspec.__all__
               if isinstance(getattr(attnspec, name), type) and hasattr(getattr(attnspec, name),
                                                                          "ppf")}
    assert classes == {name.split("(")[0] for name in LAWS}


def test_edge_semantics(law):
    """pdf 0 outside, cdf exactly 0 below and 1 at/above the top, ppf edges, NaN handling."""
    a, b = law.support()
    below = a - 1.0 - abs(a)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert law.pdf(below) == 0.0 and law.pdf(b) == 0.0 and law.pdf(2 * abs(b) + 1) == 0.0
        assert law.cdf(np.nextafter(a, -np.inf)) == 0.0 and law.cdf(-np.inf) == 0.0
        assert law.cdf(b) == 1.0 and law.cdf(np.inf) == 1.0
        assert law.ppf(0.0) == a and law.ppf(1.0) == b
        assert np.isnan(law.ppf(-0.1)) and np.isnan(law.ppf(1.1))
        assert np.isnan(law.pdf(np.nan)) and np.isnan(law.cdf(np.nan))
        assert np.isnan(law.ppf(np.nan))
        x = np.linspace(below, 2 * abs(b) + 1, 301)
        assert np.all(np.isfinite(law.pdf(x[(x != 0) & (x != a)])))
    middle = law.ppf(0.5)
    assert isinstance(law.pdf(middle), float) and isinstance(law.cdf(middle), float)
    assert isinstance(middle, float)
    assert law.pdf(np.ones((2, 3))).shape == (2, 3)
    assert law.cdf([1, 2]).dtype == np.float64


def test_cdf_ppf_roundtrip_and_mass(law):
    """ppf(cdf(x)) = x in the support, cdf(ppf(q)) = q, total mass 1 to 1e-10."""
    a, b = law.support()
    atom = getattr(law, "atom", 0.0)
    if hasattr(law, "expect"):                # the laws built from Chebyshev pieces
        assert law.expect(np.ones_like) == pytest.approx(1.0, rel=0, abs=1e-12)
    q = np.linspace(atom, 1, 201)
    assert_allclose(law.cdf(law.ppf(q)), q, rtol=0, atol=1e-13)
    x = law.ppf(np.linspace(atom + 1e-3, 1 - 1e-3, 101))  # points of the support
    x = x[law.pdf(x) * (b - a) > 1e-2]  # ppf is ill-conditioned (dx = dq/ρ) at inner edges
    assert_allclose(law.ppf(law.cdf(x)), x, rtol=1e-11, atol=1e-14 * (b - a))
    assert 1 - law.cdf(b - 1e-15 * (b - a)) < 1e-10


def test_pdf_is_derivative_of_cdf(law):
    """Central differences of the cdf reproduce the pdf inside the support."""
    a, b = law.support()
    x = law.ppf(np.linspace(getattr(law, "atom", 0.0) + 0.05, 0.95, 9))
    h = 1e-4 * (x - a)   # relative to the distance from the lower edge
    keep = (law.pdf(x - h) > 0) & (law.pdf(x + h) > 0)  # not straddling an edge
    x, h = x[keep], h[keep]
    assert x.size >= 5
    assert_allclose((law.cdf(x + h) - law.cdf(x - h)) / (2 * h), law.pdf(x), rtol=1e-6)


@pytest.mark.parametrize("name", ["MarchenkoPastur(3, 0.5)", "AttentionLaw(1, 1)",
                                  "ScoreProductLaw(2)"])
def test_expect_is_the_atom_plus_the_integral_of_the_density(name):
    """E f(X) = atom·f(0) + ∫ f ρ: against adaptive quadrature of the public pdf (scipy),
    for a function that is not a polynomial and is not 0 at the atom (MP with ratio 3 has
    mass 2/3 at 0, the score product at c = 2 mass 1/2)."""
    from scipy.integrate import quad
    law = law_named(name)
    integral = sum(quad(lambda x: math.cos(x) * float(law.pdf(x)), a, b, limit=200,
                        epsabs=1e-13, epsrel=1e-12)[0] for a, b in law.intervals())
    assert law.expect(np.cos) == pytest.approx(law.atom + integral, rel=1e-9, abs=1e-12)
    atoms = {"MarchenkoPastur(3, 0.5)": 2 / 3, "ScoreProductLaw(2)": 0.5}
    assert law.atom == pytest.approx(atoms.get(name, 0.0), rel=1e-15)


def test_moments_mean_var_and_interval_agree(law):
    """mean = moment(1), var = moment(2) − mean², interval(p) is the equal-tailed quantiles."""
    assert law.mean() == pytest.approx(law.moment(1), rel=1e-12, abs=1e-15)
    assert law.var() == pytest.approx(law.moment(2) - law.moment(1) ** 2, rel=1e-9, abs=1e-15)
    assert_allclose(law.interval(0.9), law.ppf([0.05, 0.95]), rtol=1e-14)


def test_rvs_is_seeded_and_follows_the_law(law):
    """Same seed, same draws; 1000 draws pass a KS test at level 1 %."""
    x = law.rvs(1000, rng=1)
    np.testing.assert_array_equal(x, law.rvs(1000, rng=np.random.default_rng(1)))
    assert attnspec.ks_distance(x, law) < 1.63 / np.sqrt(x.size)
    assert isinstance(law.rvs(rng=0), float)


def test_repr_is_parameter_only():
    """repr shows only the parameters, as in the constructor call."""
    assert repr(AttentionLaw(1.0, 2.0)) == "AttentionLaw(beta=1.0, c=2.0)"
    assert repr(MarchenkoPastur(0.5, 3)) == "MarchenkoPastur(ratio=0.5, scale=3.0)"
    assert repr(ScoreProductLaw(1)) == "ScoreProductLaw(c=1.0)"
    assert repr(Semicircle(2)) == "Semicircle(var=2.0)"
    assert repr(law_named("MultiHeadLaw(none)")).startswith(
        "MultiHeadLaw(ell=50, d=100, heads=2, beta=1.0, tie='none'")


class CubeOfUniform(attnspec.laws.base.SpectralLaw):
    """Law of U³, U ~ Uniform(0, 1): F(x) = x^(1/3), ρ(x) = x^(-2/3)/3 on [0, 1], a power
    law over every decade: cut at 1e-12 and 0.6 with a geometric ("log") middle piece."""

    def _params(self):
        return {}

    def _support(self):
        return 0.0, 1.0

    def _pdf(self, x):
        return x ** (-2 / 3) / 3

    def _intervals(self):
        return [(0.0, 1e-12, "hard23"), (1e-12, 0.6, "log"), (0.6, 1.0, "inner")]


def test_log_pieces_against_the_closed_form():
    """A "log" piece (x = o + (a − o)((b − o)/(a − o))^(θ/π)) integrates a power law over 12
    decades with one short series: cdf = x^(1/3) to 1e-14, ppf inverts it, mass 1."""
    law_ = CubeOfUniform()
    law_._check_accuracy()
    log_piece = next(p for p in law_._pieces if p.kind == "log")
    assert log_piece.n == law_._cheb_points[0] and log_piece.error < 1e-14   # first try
    x = np.concatenate([np.geomspace(1e-30, 1.0, 200), np.linspace(0.01, 0.99, 99)])
    assert_allclose(law_.cdf(x), np.cbrt(x), rtol=0, atol=1e-14)
    q = np.linspace(0.0, 1.0, 401)
    assert_allclose(law_.ppf(q), q ** 3, rtol=1e-12, atol=1e-300)
    assert law_.pdf(1e-12) == pytest.approx(1e-12 ** (-2 / 3) / 3, rel=1e-15)
    assert law_.intervals() == ((0.0, 1.0),)


def test_log_piece_needs_an_origin_below_it():
    """A "log" piece whose left end is its support interval's left end is refused."""
    class Bad(CubeOfUniform):
        def _intervals(self):
            return [(0.0, 0.6, "log"), (0.6, 1.0, "inner")]
    with pytest.raises(ValueError, match="origin"):
        Bad()._check_accuracy()


@pytest.mark.slow
def test_series_sum_against_mpmath_on_the_laws_series():
    """The block-Horner sum of the Chebyshev series (``laws/chebyshev_stack.py``, ``series_sum``) of the
    CDF pieces of AttentionLaw(1e-6, 1.01) (four pieces, 30 to 83 terms): at points of all
    pieces in random order, within 1e-15 of the sum by mpmath at 40 digits (the stated
    accuracy 4e-16 plus its rounding of y), the same for a few points (the cos(kφ) form)
    and in chunks (more than 2^15 points)."""
    import mpmath
    from attnspec.laws.chebyshev_stack import series_sum
    law_ = law_named("AttentionLaw(1e-6, 1.01)")
    stack = law_._stack
    rng = np.random.default_rng(4)
    y = np.concatenate([rng.uniform(-1, 1, 150), [-1.0, 1.0, -1 + 1e-12, 1 - 1e-12]])
    j = rng.integers(0, stack.cumulative.shape[1], y.size)
    mpmath.mp.dps = 40
    exact = np.array([float(mpmath.fsum(mpmath.mpf(c) * mpmath.chebyt(k, mpmath.mpf(x))
                                        for k, c in enumerate(stack.cumulative[:, piece])))
                      for x, piece in zip(y, j)])
    mpmath.mp.dps = 15
    assert np.abs(series_sum(y, stack.cumulative, j) - exact).max() < 1e-15
    assert np.abs(series_sum(y[:9], stack.cumulative, j[:9]) - exact[:9]).max() < 1e-15
    many = np.tile(y, 250)
    assert_allclose(series_sum(many, stack.cumulative, np.tile(j, 250)),
                    np.tile(exact, 250), rtol=0, atol=1e-15)


def _newton_free_density(law_, x):
    """The law's own density at x, never from its CDF series (MultiHeadLaw: −Im G/π by
    Newton's method; the others: their closed forms)."""
    if isinstance(law_, MultiHeadLaw):
        return np.maximum(-law_.cauchy(x).imag / np.pi, 0.0)
    return law_._pdf(x)


SERIES_LAWS = sorted(name for name in LAWS
                     if not name.startswith(("Semicircle", "TriangularProfileLaw")))
# (Semicircle and TriangularProfileLaw are not SpectralLaws: closed-form and Dyson-equation
# laws without CDF series)


@pytest.mark.parametrize("name", SERIES_LAWS)
def test_series_density_against_the_laws_own_density(name):
    """``Stack.pdf``, the density as the derivative of the built CDF series: where it says
    the series is within 1e-11 (its tail estimate plus rounding, over dC/dy), it agrees with
    the law's own density to 2e-10 (relative; the samples it was built from carry the law's
    own error near edges), on 400 points per interval plus points 1e-2..1e-12 of the length
    from each end; it covers at least 95% of the evenly spaced points; next to a soft edge
    (1e-12 of the length) and outside the pieces (gaps, beyond the support, NaN) it declines."""
    law = law_named(name)
    stack = law._stack
    rtol = 1e-11
    for a, b in law.intervals():
        near = (b - a) * np.geomspace(1e-2, 1e-12, 11)
        even = np.linspace(a, b, 402)[1:-1]
        x = np.concatenate([even, a + near, b - near])
        rho, ok = stack.pdf(x, rtol)
        assert ok[:even.size].mean() >= 0.95
        assert not ok[-1]                                  # b − 1e-12 (b − a): a soft edge
        own = _newton_free_density(law, x[ok])
        assert_allclose(rho[ok], own, rtol=2e-10, atol=0)
    intervals = law.intervals()
    gaps = [0.5 * (b + a) for (_, b), (a, _) in zip(intervals[:-1], intervals[1:])]
    outside = np.array([-1.0, law.support()[1] * 1.5, np.nan, *[b for _, b in intervals], *gaps])
    rho, ok = stack.pdf(outside, rtol)
    assert not ok.any()
