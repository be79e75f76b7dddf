"""Cauchy transforms of algebraic laws: vectorised polynomial roots and branch selection.

API (shared by :mod:`attnspec.laws` and the multi-head laws)
------------------------------------------------------------
``cubic_roots(a3, a2, a1, a0)``, ``quartic_roots(a4, a3, a2, a1, a0)``
    All roots of ``Σ a_k g^k = 0`` for arrays of coefficients (broadcast), by the closed
    forms of Cardano and Ferrari (real coefficients in real arithmetic as far as they go,
    then complex); shape ``(..., 3)`` or ``(..., 4)``. Accurate to ~1e-8 relative near
    multiple roots; polish with ``polish``.
``quartic_pair(a3, a2, a1, a0)``
    For a real monic quartic with one non-real pair, its root of Im > 0 alone, in real
    arithmetic (Ferrari at the resolvent's real root), with flags saying where it holds.
``polish(coeffs, g, steps=3)``, ``polish_roots(coeffs, roots, steps=3)``
    Newton steps on the polynomial with coefficients ``coeffs = (a_n, ..., a_0)`` (highest
    first, each broadcastable to ``g``), from the starting values ``g``; for a few roots,
    the same in Python scalars.
``real_cubic_roots(a3, a2, a1, a0)``
    All roots of one cubic with real coefficients, in Python scalars (Kahan's method).
``quartic_discriminant_sign(coeffs)``
    The exact sign of a quartic's discriminant (integer arithmetic): how many roots are real.
``newton_converged(size, previous, tol)``
    The one stopping rule of the library's Newton drivers (the multi-head chain's and
    AttentionLaw's).
``few_points(count)``
    Whether ``count`` points are few enough (``FEW_POINTS``) for the fast paths that treat
    them one by one in Python scalars instead of numpy arrays.
``last_axis_take(values, index)``
    ``take_along_axis`` on the last axis, without its overhead.

Why the callers (``laws/classical.py``, ``laws/attention.py``) take the root of most negative
imaginary part as ``G(x + i0)`` (A4 §3): for real ``x`` in the bulk ``G(x + i0)`` is non-real
with ``Im G < 0``, and its conjugate is also a root; if the polynomial has at most one
non-real pair, that pair is the physical one. Cubics with real coefficients always qualify;
for the quartic of :class:`attnspec.AttentionLaw` the property is checked against an
independent continuation oracle in ``tests/test_laws_attention.py`` (no root with ``Im < 0`` outside
the support, never two).
"""

from __future__ import annotations

import cmath
import math

import numpy as np

__all__ = ["few_points", "FEW_POINTS", "newton_converged", "cubic_roots", "quartic_roots",
           "quartic_pair", "polish", "polish_roots", "real_cubic_roots",
           "quartic_discriminant_sign", "last_axis_take"]

_OMEGAS = np.exp(2j * np.pi / 3 * np.arange(3))      # the cube roots of unity
_PAIR = np.array([1.0, -1.0])


#: Up to this many points, a computation runs point by point in Python scalars (or, for a series
#: sum, term by term) rather than on numpy arrays, whose overhead per operation (~1 µs) dwarfs
#: the arithmetic of a few points (~0.05 µs): the one threshold of every such fast path
#: (``Chain.evaluate`` and ``Chain.polish``, AttentionLaw's Newton steps, the Chebyshev series
#: sum of the laws).
FEW_POINTS = 16


def few_points(count):
    """True when ``count`` points are few enough (≤ ``FEW_POINTS``) for the Python-scalar
    fast path."""
    return count <= FEW_POINTS


def newton_converged(size, previous, tol):
    """The one stopping rule of the library's Newton drivers (``Chain.polish``,
    ``Chain.solve_from``, the edges of ``MultiHeadLaw``, AttentionLaw's steps on k(h) = z):
    done after a relative step ``size`` (the one before: ``previous``, 0 for none) with
    size ≤ ``tol``, or size ≤ 1e-6 and size³ ≤ 1e-20·previous², the error left after it
    predicted from the observed quadratic contraction (arrays or floats; ``tol`` may vary
    per point)."""
    return (size <= tol) | ((size <= 1e-6) & (size ** 3 <= 1e-20 * previous ** 2))


def _cube_root(u):
    """Principal cube root ∛|u|·e^{i arg(u)/3} of complex ``u`` (the branch of ``u**(1/3)``,
    in polar form: several times cheaper than numpy's complex power)."""
    return np.cbrt(np.abs(u)) * np.exp((1j / 3) * np.angle(u))


def last_axis_take(values, index):
    """``values[..., index]`` per leading position (``take_along_axis`` on the last axis,
    without its overhead): shape ``index.shape``."""
    flat = values.reshape(-1, values.shape[-1])
    return flat[np.arange(flat.shape[0]), np.ravel(index)].reshape(np.shape(index))


def cubic_roots(a3, a2, a1, a0):
    """All roots of ``a3 g³ + a2 g² + a1 g + a0`` (Cardano, vectorised); shape (..., 3).

    The three roots are w − p/(3w) − b/3 for the three cube roots w of −q/2 ± √Δ (the sign
    of larger modulus), Δ = q²/4 + p³/27. Real coefficients with Δ ≥ 0 everywhere (one real
    root) stay real up to the cube roots of unity."""
    b, c, d = (np.asarray(x) / a3 for x in (a2, a1, a0))
    p = c - b * b / 3
    q = (2 * b * b / 27 - c / 3) * b + d
    disc = q * q / 4 + p * p * p / 27
    half = -0.5 * q
    with np.errstate(divide="ignore", invalid="ignore"):
        if np.isrealobj(disc) and not np.any(disc < 0):
            root = np.sqrt(disc)
            cube = np.cbrt(half + np.where(half >= 0, root, -root))   # the real cube root
            w = cube[..., None] * _OMEGAS - (p / (3 * cube))[..., None] * _OMEGAS.conjugate()
        else:
            root = np.sqrt(disc + 0j)
            cube = _cube_root(half + np.where((np.conjugate(half) * root).real >= 0,
                                              root, -root))
            ck = cube[..., None] * _OMEGAS
            w = ck - (p / 3)[..., None] / ck
        w = np.where(cube[..., None] != 0, w, 0)
    return w - (b / 3)[..., None]


def quartic_roots(a4, a3, a2, a1, a0):
    """All roots of ``a4 g⁴ + … + a0`` (Ferrari, vectorised); shape (..., 4).

    Real coefficients stay real up to the resolvent cubic; the two quadratic factors are
    solved side by side. Order: the two roots of y² − √(2m) y + …, then of y² + √(2m) y + …"""
    b, c, d, e = (np.asarray(x) / a4 for x in (a3, a2, a1, a0))
    bb = b * b
    p = c - 3 * bb / 8
    q = d - b * c / 2 + bb * b / 8
    r = e - b * d / 4 + bb * c / 16 - 3 * bb * bb / 256
    # resolvent cubic 8m³ + 8pm² + (2p² − 8r)m − q² = 0; the largest root avoids m ≈ 0
    ms = cubic_roots(8.0, 8 * p, 2 * p * p - 8 * r, -q * q)
    m = last_axis_take(ms, np.argmax(np.abs(ms), axis=-1))
    with np.errstate(divide="ignore", invalid="ignore"):
        s2 = np.sqrt(2 * m)
        t = np.where(s2 != 0, q / (2 * s2), 0)
        # y² − B y + C = 0 with B = ±s2, C = p/2 + m ± q/(2 s2); the root of larger modulus
        # first, the other as C/y₁ (no cancellation when the two differ in size)
        B = s2[..., None] * _PAIR
        C = (p / 2 + m)[..., None] + t[..., None] * _PAIR
        root = np.sqrt(B * B - 4 * C)
        root = np.where((np.conjugate(B) * root).real >= 0, root, -root)
        y1 = (B + root) / 2
        y2 = np.where(y1 != 0, C / y1, 0)
    roots = np.stack([y1, y2], axis=-1).reshape(y1.shape[:-1] + (4,))
    return roots - (b / 4)[..., None]


def quartic_pair(a3, a2, a1, a0):
    """The root of positive imaginary part of the monic quartic g⁴ + a₃g³ + a₂g² + a₁g + a₀
    with real coefficients (arrays, broadcast) and one non-real pair, by Ferrari's
    factorisation at the real root m₀ of the resolvent cubic, in real arithmetic: with y = g
    + a₃/4, y⁴ + py² + qy + r = (y² − σ√(2m₀) y + …)(y² + σ√(2m₀) y + …), σ = sign q, the
    pair is (σ√(2m₀) ± i√(2p + 2m₀ + 4|t|))/2, t = q/√(8m₀). Where m₀ cancels (m₀ = 2(Re y)²
    of the pair, small near Re y = 0) it is q²/(8|m₁|²) (Vieta, m₁ the resolvent's complex
    root).

    Returns ``(root, ok, sharp)``: ``ok`` where the real part is good (the resolvent has a
    single real root, one of the forms of m₀ keeps 4 digits, and the factor's discriminant
    is negative or zero to 1e-4 of its terms; elsewhere, e.g. four real roots or a near
    double pair whose rounding paired it wrongly, the root is not to be used), ``sharp``
    where the imaginary part is good too (the discriminant does not cancel to 1e-4 of its
    terms, as it does near a double root or for a pair far smaller than the other roots:
    there re-solve the pair at the real part). Where ``sharp``, accurate to ~1e-14
    relative."""
    bb = a3 * a3
    p = a2 - 0.375 * bb
    q = a1 - a3 * (0.5 * a2 - 0.125 * bb)
    r = a0 + bb * (0.0625 * a2 - 0.01171875 * bb) - 0.25 * (a3 * a1)
    with np.errstate(divide="ignore", invalid="ignore"):
        # resolvent m³ + pm² + (p²/4 − r)m − q²/8 = 0 at m = z − p/3: z³ − Nz + B = 0 (N =
        # p²/12 + r), roots S + T (real) and −(S + T)/2 ± i√3(S − T)/2, with S³ the larger of
        # −B/2 ± √Δ, Δ = B²/4 − N³/27, and T = N/(3S)
        pp, q8 = p * p, 0.125 * (q * q)
        N = pp / 12 + r
        B = p * (r / 3 - pp / 108) - q8
        # Δ < 0: three real roots (four real roots of the quartic); Δ = 0 to rounding: a
        # double one, whose rounding may come out either side of 0
        square, cube = 0.25 * (B * B), N * N * (N / 27)
        single = square - cube > -1e-12 * (square + np.abs(cube))
        root = np.sqrt(np.maximum(square - cube, 0.0))
        S = np.cbrt(-0.5 * B - np.copysign(root, B))
        T = N / (3 * S)
        z, third = S + T, p / 3
        m0 = z - third
        modulus = (0.5 * z + third) ** 2 + 0.75 * (S - T) ** 2    # |m₁|²
        size = np.abs(z) + np.abs(third)
        vieta = m0 < 0.1 * size
        m0 = np.where(vieta, q8 / modulus, m0)
        s2 = np.sqrt(2 * m0)
        t = np.abs(q) / (2 * s2)
        gap = p + m0 + 2 * t                  # −(discriminant of the pair's factor)/2
        tol = 1e-4 * (np.abs(p) + m0 + 2 * t)
        ok = (single & (~vieta | (modulus > 1e-8 * (size + np.abs(S - T)) ** 2)) & (m0 > 0)
              & (gap + tol > 0))
        sharp = ok & (gap > tol)
        im = np.sqrt(0.5 * np.maximum(gap, 0.0))
        return (0.5 * np.copysign(s2, q) - 0.25 * a3) + 1j * im, ok, sharp


def polish(coeffs, g, steps=3):
    """Newton steps on ``Σ coeffs[i] g^(n−i)`` (highest degree first) from ``g``."""
    n = len(coeffs) - 1
    for _ in range(steps):
        value = np.zeros_like(g) + coeffs[0]
        deriv = np.zeros_like(g) + n * coeffs[0]
        for i, a in enumerate(coeffs[1:], start=1):
            value = value * g + a
            if i < n:
                deriv = deriv * g + (n - i) * a
        with np.errstate(divide="ignore", invalid="ignore"):
            step = value / deriv
        g = np.where(np.isfinite(step), g - step, g)
    return g


def polish_roots(coeffs, roots, steps=3):
    """Newton steps on ``Σ coeffs[i] g^(n−i)`` (highest degree first) from each of a few
    starting values, in Python scalars (real or complex arithmetic, as given; as
    :func:`polish`, a step that is not finite is skipped): a list."""
    n = len(coeffs) - 1
    polished = []
    for g in roots:
        for _ in range(steps):
            value, deriv = coeffs[0], n * coeffs[0]
            for i, a in enumerate(coeffs[1:], start=1):
                value = value * g + a
                if i < n:
                    deriv = deriv * g + (n - i) * a
            try:
                step = value / deriv
            except ZeroDivisionError:
                continue
            if cmath.isfinite(step):
                g = g - step
        polished.append(g)
    return polished


def _quartic_discriminant_terms(a, b, c, d, e):
    """The 16 terms of the discriminant of a g⁴ + b g³ + c g² + d g + e (their sum), for
    Python ints or floats."""
    bb, cc, dd, ee = b * b, c * c, d * d, e * e
    aa = a * a
    return (256 * aa * a * ee * e, -192 * aa * b * d * ee, -128 * aa * cc * ee,
            144 * aa * c * dd * e, -27 * aa * dd * dd, 144 * a * bb * c * ee,
            -6 * a * bb * dd * e, -80 * a * b * cc * d * e, 18 * a * b * c * dd * d,
            16 * a * cc * cc * e, -4 * a * cc * c * dd, -27 * bb * bb * ee,
            18 * bb * b * c * d * e, -4 * bb * b * dd * d, -4 * bb * cc * c * e, bb * cc * dd)


def quartic_discriminant_sign(coeffs):
    """The sign (−1, 0 or 1) of the discriminant of ``Σ coeffs[i] g^(4−i)`` (five finite
    floats, highest degree first), exactly. First in floats, when every coefficient is 0 or
    of modulus within [1e-40, 1e40] (no product of seven of them underflows or overflows):
    each of the 16 terms is within 8ε of its value, so their sum within 24ε·Σ|term|, and a
    sum beyond 1e-14·Σ|term| has its sign. Otherwise the coefficients are scaled to
    integers (their denominators are powers of 2) and the terms summed in Python integers.
    For real coefficients, negative: two real roots and one non-real pair; positive: four
    real roots or two pairs; zero: a multiple root. A coefficient that is not finite raises
    ``ValueError`` naming it."""
    values = [float(c) for c in coeffs]
    for i, v in enumerate(values):
        if not math.isfinite(v):
            raise ValueError(f"quartic_discriminant_sign: coefficient {i} (of g^{4 - i}) must "
                             f"be finite; got {v!r}")
    if all(v == 0 or 1e-40 <= abs(v) <= 1e40 for v in values):
        terms = _quartic_discriminant_terms(*values)
        disc = sum(terms)
        if abs(disc) > 1e-14 * sum(abs(t) for t in terms):
            return 1 if disc > 0 else -1
    ratios = [v.as_integer_ratio() for v in values]
    scale = max(den for _, den in ratios)
    disc = sum(_quartic_discriminant_terms(*(n * (scale // den) for n, den in ratios)))
    return (disc > 0) - (disc < 0)


def real_cubic_roots(a3, a2, a1, a0):
    """All roots of ``a3 g³ + a2 g² + a1 g + a0`` for real Python floats (a3 ≠ 0, a0 ≠ 0),
    in Python scalars (W. Kahan, "To solve a real cubic equation", 1986): a real root r by
    Newton's method from −a2/(3 a3) offset towards it by ∛(P/a3) (or 1.3247√(−P′/a3) when
    larger), whose steps then approach r monotonically from one side and stop when they
    no longer advance; then the other two from the quadratic P(g)/(g − r) (synthetic
    division, or −a0/r for its constant where that is better conditioned), solved without
    cancellation. Each root to a few ulps of its condition (√ε relative near a double root,
    as for every method; polish with :func:`polish_roots`). Returns ``[r, z, w]`` (complex:
    the non-real pair as z with Im z > 0 and w = conj z), about ten times cheaper than the
    companion eigenvalues of ``numpy.roots`` for one cubic.

    Domain: a3 and a0 nonzero, every coefficient finite and 0 or of modulus within
    [1e-50, 1e50] (so that no intermediate overflows or underflows; AttentionLaw's cubics
    lie within [1e-16, 1e4]); other coefficients raise ``ValueError`` naming the first one
    outside it."""
    for name, value in (("a3", a3), ("a2", a2), ("a1", a1), ("a0", a0)):
        if not (1e-50 <= abs(value) <= 1e50 or (value == 0 and name in ("a2", "a1"))):
            raise ValueError(f"real_cubic_roots: {name} must be finite, of modulus within "
                             f"[1e-50, 1e50] (a2 and a1 may be 0); got {name}={value!r}")

    def horner(x):                # P(x), P′(x) and the quotient's coefficients at x
        q0 = a3 * x
        b1 = q0 + a2
        c2 = b1 * x + a1
        return c2 * x + a0, (q0 + b1) * x + c2, b1, c2

    x = -(a2 / a3) / 3.0
    value, slope, b1, c2 = horner(x)
    t = value / a3
    r, sign = abs(t) ** (1.0 / 3.0), math.copysign(1.0, t)
    t = -slope / a3
    if t > 0:
        r = 1.324718 * max(r, math.sqrt(t))
    x0 = x - sign * r
    if x0 != x:
        while True:
            x = x0
            value, slope, b1, c2 = horner(x)
            x0 = x if slope == 0 else x - (value / slope) / 1.000000000000001
            if not sign * x0 > sign * x:
                break
        if abs(a3) * x * x > abs(a0 / x):
            c2 = -a0 / x
            b1 = (c2 - a1) / x
    # a3 g² + b1 g + c2 = 0: the root of larger modulus first, the other as c2/(a3 g₁)
    disc = b1 * b1 - 4.0 * a3 * c2
    if disc >= 0:
        big = -0.5 * (b1 + math.copysign(math.sqrt(disc), b1))
        pair = [big / a3, c2 / big if big != 0 else 0.0]
        return [complex(x), complex(pair[0]), complex(pair[1])]
    re, im = -0.5 * b1 / a3, 0.5 * math.sqrt(-disc) / abs(a3)
    return [complex(x), complex(re, im), complex(re, -im)]
