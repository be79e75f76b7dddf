"""Tests of attnspec.freeprob.roots: closed-form roots, the real quartic's pair, polishing.

Oracles: polynomials built from chosen roots, ``mpmath.polyroots`` at 40 digits and exact
rationals; ``polish`` (arrays) for its scalar twin ``polish_roots``.
"""

import itertools
import re
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from attnspec.freeprob.roots import (cubic_roots, last_axis_take, polish, polish_roots,
                                     quartic_discriminant_sign, quartic_pair, quartic_roots,
                                     real_cubic_roots)


def _matched_error(found, expected):
    """Largest relative distance from each expected root to the found root paired with it."""
    worst = 0.0
    for row_found, row_expected in zip(found, expected):
        left = list(row_found)
        for root in row_expected:
            k = int(np.argmin([abs(root - f) for f in left]))
            worst = max(worst, abs(root - left.pop(k)) / max(abs(root), 1e-300))
    return worst


def _random_roots(rng, n, count, complex_pairs):
    """Rows of ``count`` roots: ``complex_pairs`` conjugate pairs, the rest real, moduli
    between 0.1 and 10 and at least 0.05 apart (well conditioned)."""
    rows = []
    while len(rows) < n:
        pairs = [complex(rng.uniform(-3, 3), rng.uniform(0.2, 3)) for _ in range(complex_pairs)]
        roots = [z for p in pairs for z in (p, p.conjugate())]
        roots += list(rng.uniform(-5, 5, count - len(roots)))
        roots = np.array(roots, dtype=complex)
        gaps = np.abs(roots[:, None] - roots[None, :]) + np.eye(count)
        if gaps.min() > 0.05 and np.all(np.abs(roots) > 0.1):
            rows.append(roots)
    return np.array(rows)


@pytest.mark.parametrize("degree,pairs", [(3, 0), (3, 1), (4, 0), (4, 1), (4, 2)])
def test_closed_forms_find_the_roots_of_real_polynomials(degree, pairs):
    """Cardano and Ferrari on real coefficients (the real-arithmetic path) recover chosen
    roots to 1e-10 relative; complex coefficients (a rotated polynomial) too."""
    solver = {3: cubic_roots, 4: quartic_roots}[degree]
    rng = np.random.default_rng(degree * 10 + pairs)
    roots = _random_roots(rng, 300, degree, pairs)
    coeffs = np.array([np.poly(r) for r in roots]).T          # highest degree first
    assert_allclose(coeffs.imag, 0, atol=1e-12)
    found = solver(*coeffs.real)
    assert found.shape == (300, degree)
    assert _matched_error(found, roots) < 1e-10
    rotated = np.array([np.poly(r * 1j) for r in roots]).T     # complex coefficients
    assert _matched_error(solver(*rotated), roots * 1j) < 1e-10


def test_closed_forms_broadcast_and_degenerate_cases():
    """Scalars give one row; mixed scalar and array coefficients broadcast; x³ − 8 and
    x⁴ − 16 give their roots exactly; the zero roots of x³ and x⁴ are zeros."""
    assert_allclose(np.sort_complex(cubic_roots(1.0, 0.0, 0.0, -8.0)),
                    np.sort_complex(2 * np.exp(2j * np.pi * np.arange(3) / 3)), atol=1e-15)
    assert_allclose(np.sort_complex(quartic_roots(1.0, 0.0, 0.0, 0.0, -16.0)),
                    np.sort_complex(np.array([2, 2j, -2, -2j])), atol=1e-15)
    assert_array_equal(cubic_roots(1.0, 0.0, 0.0, 0.0), np.zeros(3))
    assert_array_equal(quartic_roots(1.0, 0.0, 0.0, 0.0, 0.0), np.zeros(4))
    x = np.linspace(0.5, 2.0, 7)
    assert quartic_roots(1.0, -x, 0.3, x, -0.1).shape == (7, 4)
    assert cubic_roots(1.0, x[:, None], np.ones((1, 3)), -1.0).shape == (7, 3, 3)


def _mp_roots(coeffs, dps=40):
    """Roots of a real polynomial (highest degree first) by mpmath at ``dps`` digits (40:
    enough for roots within ~30 decades of each other)."""
    mp.mp.dps = dps
    roots = mp.polyroots([mp.mpf(c) for c in coeffs[::-1]], maxsteps=500, extraprec=10 * dps,
                         asc=True)
    mp.mp.dps = 15
    return [complex(r) for r in roots]


@pytest.mark.slow
def test_quartic_pair_against_mpmath():
    """The non-real root of Im > 0 of real quartics with one non-real pair, against the
    roots of the same (rounded) coefficients by mpmath: to 1e-12 relative where ``sharp``
    (every well-separated case is); where only ``ok`` (a pair 1e5 times smaller than the
    other roots, or nearly double, which rounding may even put on the real axis), its
    real part is the centre of the pair (of the two roots closest to it) to 1e-6 of the
    largest root, as a start for re-solving it."""
    rng = np.random.default_rng(5)
    roots = _random_roots(rng, 100, 4, 1)
    scaled = roots * np.exp(rng.uniform(-3, 3, (100, 1)))
    coeffs = np.array([np.poly(r).real for r in scaled])
    root, ok, sharp = quartic_pair(*coeffs[:, 1:].T)
    expected = np.array([max(_mp_roots(c), key=lambda z: z.imag) for c in coeffs])
    assert sharp.all()
    assert_allclose(root, expected, rtol=1e-12)
    for imag in (1e-5, 1e-7, 1e-9):
        hard = roots.copy()
        hard[:50, :2] *= 1e-5                              # a pair far below the others
        hard[50:, 0] = hard[50:, 0].real + 1j * imag       # a nearly double pair
        hard[50:, 1] = hard[50:, 0].conjugate()
        coeffs = np.array([np.poly(r).real for r in hard])
        root, ok, sharp = quartic_pair(*coeffs[:, 1:].T)
        assert ok.mean() > 0.5
        for z, good, c, intended in zip(root, ok, coeffs, hard[:, 0]):
            if good:
                found = np.array(_mp_roots(c))
                pair = found[np.argsort(np.abs(found - intended))[:2]]
                assert abs(z.real - pair.real.mean()) <= 1e-6 * np.abs(found).max()
    assert not quartic_pair(0.0, -5.0, 0.0, 4.0)[1]    # (x² − 1)(x² − 4): four real roots


def test_polish_roots_matches_polish():
    """The scalar Newton steps give polish's arrays (to an ulp; real and complex starts), and
    a zero derivative skips the step instead of dividing by zero."""
    coeffs = [1.0, -0.7, 0.2, 0.5, -0.3]
    starts = [0.9, -1.1, 0.3 + 0.8j, 0.3 - 0.8j]
    polished = polish_roots(coeffs, starts, 4)
    reference = polish([np.asarray(c, dtype=complex) for c in coeffs],
                       np.array(starts, dtype=complex), 4)
    assert_allclose(np.array(polished, dtype=complex), reference, rtol=1e-15)
    assert polish_roots([1.0, 0.0, -1.0], [0.0], 3) == [0.0]      # x² − 1 at x = 0: f′ = 0


def _bareiss_determinant(matrix):
    """The determinant of a square matrix of Python ints, exactly (Bareiss elimination)."""
    m, sign, previous = [list(row) for row in matrix], 1, 1
    n = len(m)
    for k in range(n - 1):
        if m[k][k] == 0:
            swap = next((i for i in range(k + 1, n) if m[i][k] != 0), None)
            if swap is None:
                return 0
            m[k], m[swap], sign = m[swap], m[k], -sign
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                m[i][j] = (m[i][j] * m[k][k] - m[i][k] * m[k][j]) // previous
        previous = m[k][k]
    return sign * m[-1][-1]


def _discriminant_sign_by_resultant(coeffs):
    """Oracle, independent of the library's 16 terms: for a quartic f of leading coefficient
    a, Disc f = Res(f, f′)/a (the sign (−1)^{n(n−1)/2} is + at n = 4), the resultant the
    determinant of the 7×7 Sylvester matrix, in integers after scaling the coefficients by
    their common power-of-2 denominator (Disc is homogeneous of degree 6: the sign stays)."""
    fractions = [Fraction(float(v)) for v in coeffs]
    scale = max(f.denominator for f in fractions)
    f = [int(v * scale) for v in fractions]
    df = [4 * f[0], 3 * f[1], 2 * f[2], f[3]]
    rows = ([[0] * i + f + [0] * (2 - i) for i in range(3)]
            + [[0] * i + df + [0] * (3 - i) for i in range(4)])
    det = _bareiss_determinant(rows)
    return ((det > 0) - (det < 0)) * ((f[0] > 0) - (f[0] < 0))


def test_the_resultant_oracle_on_known_quartics():
    """Four real roots: Disc > 0; two real and a pair: < 0; a double root: 0."""
    assert _discriminant_sign_by_resultant(np.poly([1, 2, 3, 4])) == 1
    assert _discriminant_sign_by_resultant(-np.poly([1, 2, 3, 4])) == 1
    assert _discriminant_sign_by_resultant(np.poly([1, 2, 1j, -1j]).real) == -1
    assert _discriminant_sign_by_resultant(np.poly([1, 1, 3, 4])) == 0


def test_quartic_discriminant_sign_floats_agree_with_rationals():
    """The float path (used when it decides) gives the sign of the exact discriminant of the
    float coefficients (a resultant in integers), near its zeros too: AttentionLaw's quartics
    at and near their edges, random ones, and coefficients outside [1e-40, 1e40]."""
    rng = np.random.default_rng(9)
    rows = [list(rng.standard_normal(5)) for _ in range(200)]
    for roots in _random_roots(rng, 100, 4, 1):
        roots[1] = roots[0].conjugate() if roots[0].imag else roots[1]
        rows.append(list(np.poly(roots).real))
    for a, b, c in ((1e-9, 1.0 - 1e-9, 1.05), (0.3, 0.7, 1.6), (0.5, 0.5, 100.0)):
        p, a2 = c * b, a + b * (1 - c)
        for x in np.linspace(0.0, 3.0, 301)[1:]:
            rows.append([1.0, -x, a2, x * p, -a * p])
    rows += [[1e-45, 1.0, -2.0, 1.0, 3.0], [1.0, 1e41, 0.0, -1.0, 2.0]]
    for coeffs in rows:
        assert quartic_discriminant_sign(coeffs) == _discriminant_sign_by_resultant(coeffs)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_quartic_discriminant_sign_refuses_non_finite_coefficients(bad):
    """NaN or ±inf fell through to the integer path and raised float.as_integer_ratio's own
    error; now a ValueError naming the coefficient."""
    for i in range(5):
        coeffs = [1.0, -2.0, 0.5, 3.0, -1.0]
        coeffs[i] = bad
        with pytest.raises(ValueError, match=f"coefficient {i} .*must be finite"):
            quartic_discriminant_sign(coeffs)


@pytest.mark.slow
def test_real_cubic_roots_against_mpmath():
    """Kahan's scalar cubic: every root within 1e-13 relative of mpmath's, or within ten
    times the error of ``numpy.roots`` (companion eigenvalues) where a root is that badly
    conditioned (random coefficients over 10 decades, and polynomials of chosen roots spread
    over 10 decades, real or with a pair; the laws' critical-point cubics have a leading
    coefficient down to 1e-17); the pair conjugate with Im > 0 first; within 1e-7 of a
    double root."""
    rng = np.random.default_rng(2)
    rows = [rng.standard_normal(4) * 10.0 ** rng.uniform(-5, 5, 4) for _ in range(150)]
    for _ in range(150):
        spread = rng.standard_normal(3) * 10.0 ** rng.uniform(-5, 5, 3)
        if rng.random() < 0.5:
            spread = np.array([spread[0], spread[1] + 1j * spread[2], spread[1] - 1j * spread[2]])
        rows.append(np.poly(spread).real * 10.0 ** rng.uniform(-5, 5))
    rows.append(np.array([1e-17, -0.3, 2.5, -1.0]))
    for coeffs in rows:
        found = real_cubic_roots(*(float(c) for c in coeffs))
        expected = _mp_roots([float(c) for c in coeffs])
        companion = _matched_error([np.roots(coeffs)], [expected])
        assert _matched_error([found], [expected]) <= max(1e-13, 10 * companion)
        assert found[1] == found[2].conjugate() or found[1].imag == found[2].imag == 0
        assert found[1].imag >= 0
    double = real_cubic_roots(1.0, -4.0, 5.0, -2.0)              # (x − 1)²(x − 2)
    assert _matched_error([double], [[1.0, 1.0, 2.0]]) <= 1e-7


@pytest.mark.slow
def test_real_cubic_roots_at_the_ends_of_its_domain_and_refusals():
    """Coefficients of modulus 1e-50 and 1e50 in every combination (the ends of the documented
    domain, with signs): roots as accurate as in the bulk (1e-13 relative to mpmath, or ten
    times numpy.roots' error); outside it (1e-300 made a3 x overflow to −inf roots), NaN, inf
    and a zero a3 or a0 raise ValueError naming the coefficient."""
    rng = np.random.default_rng(4)
    for moduli in itertools.product((1e-50, 1e50), repeat=4):
        coeffs = [m * rng.choice((-1.0, 1.0)) for m in moduli]
        found = real_cubic_roots(*coeffs)
        expected = _mp_roots(coeffs, dps=400)        # roots 150 decades apart
        companion = _matched_error([np.roots(coeffs)], [expected])
        assert _matched_error([found], [expected]) <= max(1e-13, 10 * companion), coeffs
    bad = [((1e-300, 1.0, 1.0, 1.0), "a3=1e-300"), ((1.0, 1e60, 1.0, 1.0), "a2=1e+60"),
           ((1.0, 1.0, np.nan, 1.0), "a1=nan"), ((1.0, 1.0, 1.0, np.inf), "a0=inf"),
           ((0.0, 1.0, 1.0, 1.0), "a3=0.0"), ((1.0, 1.0, 1.0, 0.0), "a0=0.0")]
    for coeffs, named in bad:
        with pytest.raises(ValueError, match=re.escape(named)):
            real_cubic_roots(*coeffs)
    assert real_cubic_roots(1.0, 0.0, 0.0, -8.0)[0] == 2.0       # a2 = a1 = 0 allowed


def test_last_axis_take_is_take_along_axis():
    rng = np.random.default_rng(3)
    values = rng.standard_normal((5, 6, 4))
    index = rng.integers(0, 4, (5, 6))
    assert_array_equal(last_axis_take(values, index),
                       np.take_along_axis(values, index[..., None], axis=-1)[..., 0])


def test_quartic_discriminant_sign_counts_the_real_roots():
    """Exact sign for quartics with four real roots (+), one non-real pair (−), two pairs
    (+), a double root (0, also after scaling), and a pair 1e-9 from double, which floats
    would get wrong."""
    rng = np.random.default_rng(8)
    for pairs, sign in ((0, 1), (1, -1), (2, 1)):
        for roots in _random_roots(rng, 200, 4, pairs):
            assert quartic_discriminant_sign(list(np.poly(roots).real)) == sign
    assert quartic_discriminant_sign([1.0, 0.0, -2.0, 0.0, 1.0]) == 0          # (x² − 1)²
    assert quartic_discriminant_sign([3.0, 0.0, -6.0, 0.0, 3.0]) == 0
    assert quartic_discriminant_sign([1.0, 0.0, 0.0, 0.0, -1.0]) == -1         # ±1, ±i
    mp.mp.dps = 60
    coeffs = list(np.poly([1.0, 1.0 + 1e-9, 3.0, -2.0]).real)
    roots = mp.polyroots([mp.mpf(c) for c in coeffs[::-1]], asc=True, extraprec=300)
    mp.mp.dps = 15
    real = sum(abs(mp.im(r)) < 1e-30 for r in roots)
    assert quartic_discriminant_sign(coeffs) == (-1 if real == 2 else 1)
