"""Tests of attnspec.freeprob.chains: the backward map of the multi-head law and its solvers.

Oracles: finite differences for the exact derivatives of ``Chain.evaluate``; the theory of
Newton's method at a zero of order k (linear convergence with ratio 1 − 1/k on z, quadratic on
z^{1/k}) for ``Chain.solve_from``; the law's own validated solutions (``tests/test_laws_multihead.py``
checks them against a long η-ladder and second methods) as the reference roots.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from attnspec.freeprob.chains import Chain, Point
from attnspec.freeprob.roots import FEW_POINTS
from multihead_oracles import Jet, z_of
from attnspec.laws.multihead import MultiHeadLaw

CHAINS = [Chain("untied", 4, 1.0, 2.0, 1.5, 0.7, unit=float(np.expm1(1.0))),
          Chain("kv", 4, 1.0, 2.0, 2.0, 0.5, unit=float(np.expm1(1.0))),
          Chain("kv", 2, 3.0, 1.0, 1.0, 1.0, unit=float(np.expm1(9.0)))]


@pytest.mark.parametrize("chain", CHAINS, ids=lambda c: f"{c.kind}-beta{c.beta}")
def test_evaluate_derivatives_match_finite_differences(chain):
    """z′(p) and G_Y′(p) of the explicit form equal central differences of z and G_Y (an
    independent check of the closed-form derivatives, K′ of ν∞ and the kv head's included),
    and all four equal the generic-arithmetic form ``z_of`` in forward-mode Jets."""
    rng = np.random.default_rng(1)
    p = 0.3 * (rng.normal(size=20) - 1j * np.abs(rng.normal(size=20)))
    pt = chain.evaluate(p)
    h = 1e-6 * np.abs(p)
    plus, minus = chain.evaluate(p + h), chain.evaluate(p - h)
    assert_allclose(pt.dz, (plus.z - minus.z) / (2 * h), rtol=1e-7)
    assert_allclose(pt.dG, (plus.G - minus.G) / (2 * h), rtol=1e-7)
    z, G = z_of(chain, Jet(p, np.ones_like(p)))
    assert_allclose(pt.z, z.v, rtol=1e-12)
    assert_allclose(pt.G, G.v, rtol=1e-12)
    assert_allclose(pt.dz, z.d, rtol=1e-11)
    assert_allclose(pt.dG, G.d, rtol=1e-11)


@pytest.mark.parametrize("chain", CHAINS, ids=lambda c: f"{c.kind}-beta{c.beta}")
def test_evaluate_on_few_points_in_python_complex_matches_the_arrays(chain):
    """Up to FEW_POINTS points ``evaluate`` runs in Python complex arithmetic: the same
    z, z′, G_Y, G_Y′ and subordination points as the numpy path (to rounding), on the real
    axis (either signed zero), on the imaginary axis and off them: the same branches; points
    that are not finite, or where the scalar arithmetic raises, take the numpy path."""
    rng = np.random.default_rng(2)
    p = 0.5 * (rng.normal(size=40) - 1j * np.abs(rng.normal(size=40)))
    p[:8] = p[:8].real + 0j
    p[8:16] = p[8:16].real - 0j
    p[16:24] = 1j * p[16:24].imag
    reference = Point(p, *chain._backward(p))           # numpy on the whole array
    assert chain._evaluate_scalars(p[:1]) is not None
    for start in range(0, p.size, FEW_POINTS):
        few = p[start:start + FEW_POINTS]
        pt = chain.evaluate(few)
        part = slice(start, start + few.size)
        for name in ("z", "dz", "G", "dG"):
            assert_allclose(getattr(pt, name), getattr(reference, name)[part], rtol=1e-12)
        for got, want in zip(pt.up + pt.down, reference.up + reference.down):
            want = np.broadcast_to(want, p.shape)[part]
            assert_allclose(got, want, rtol=1e-12)       # a flipped branch is far off
        for j in range(few.size):                               # Chain.at: one point
            assert_allclose(chain.at(few[j]), [getattr(pt, name)[j] for name in
                                               ("z", "dz", "G", "dG")], rtol=1e-14)
    assert chain._evaluate_scalars(np.array([1j, np.nan])) is None
    assert chain._evaluate_scalars(np.array([0j])) is None      # 1/0: numpy's inf and NaN
    with np.errstate(all="ignore"):
        assert np.isnan(chain.evaluate(np.array([0j])).z).all()


@pytest.mark.parametrize("config, k", [((1000, 1000, 8), 3), ((1000, 1000, 1), 4),
                                       ((500, 1000, 1), 2)], ids=str)
def test_newton_on_the_kth_root_at_a_hard_edge(config, k):
    """At a hard edge at 0 (ρ ~ x^{-e}, z ≈ C(p − p₀)^k, k = 1/(1 − e)) Newton on z^{1/k}
    converges quadratically: from the solution three decades higher it reaches the law's
    root in 8 steps, where plain Newton (ratio 1 − 1/k per step) cannot; both agree given
    30 steps."""
    law = MultiHeadLaw(*config, 1.0)
    assert round(1 / (1 - law._tail[1])) == k
    b = law._pieces_list[-1][1]
    x = b * np.array([1e-9, 3e-8])
    reference = law._solve(x)[1]
    guess = law._solve(1e3 * x)[1]
    fast, ok = law.chain.solve_from(x, guess, most=8, root=k)
    assert ok.all()
    assert_allclose(fast.p, reference, rtol=1e-12)
    assert not law.chain.solve_from(x, guess, most=8, root=1)[1].any()
    slow, ok = law.chain.solve_from(x, guess, most=30, root=1)
    assert ok.all()
    assert_allclose(slow.p, reference, rtol=1e-12)


def test_cauchy_on_axis_fallback_per_point():
    """``fallback`` may be given per point: points without a starting guess take the η-ladder
    where it is True (the same values as with fallback=True) and are NaN where it is False;
    an array of Newton roots is matched to the points that have a guess."""
    chain = CHAINS[0]
    x = np.linspace(0.5, 3.0, 6)
    reference, _ = chain.cauchy_on_axis(x, 1.0)
    guess = np.where(np.arange(6) % 2 == 0, chain.cauchy_on_axis(x, 1.0)[1], np.nan)
    fallback = np.arange(6) % 3 != 1
    G, _ = chain.cauchy_on_axis(x, 1.0, guess=guess, fallback=fallback, root=np.ones(6))
    solved = (np.arange(6) % 2 == 0) | fallback
    assert_allclose(G[solved], reference[solved], rtol=1e-12)
    assert np.all(np.isnan(G[~solved]))


def test_polish_finishes_few_points_one_by_one_as_on_arrays():
    """Chain.polish hands the last ≤ FEW_POINTS points to _polish_one (Python complex):
    the same roots as the numpy steps (here forced by many unconverged companions), and NaN
    where the scalar arithmetic divides by zero (p = 0, where numpy's steps end in NaN)."""
    law = MultiHeadLaw(1000, 2000, 8, 1.0, tie="kv")
    chain, b = law.chain, law._pieces_list[-1][1]
    x = b * np.linspace(0.05, 0.95, 3) + 0j
    root = law._solve(x.real)[1]
    guess = root * (1 + 1e-3j)
    few = chain.polish(x, guess, 2)                              # scalar after step 2
    many = chain.polish(np.tile(x, 6), np.tile(guess, 6), 2)     # 18 > FEW_POINTS
    assert 3 <= FEW_POINTS < 18
    assert_allclose(few, root, rtol=1e-13)
    assert_allclose(many[:3], few, rtol=1e-13)
    with np.errstate(all="ignore"):
        assert np.isnan(chain._polish_one(1.0 + 0j, 0j, 0.0, 5, 1e-14))
