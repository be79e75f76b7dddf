"""Cauchy transforms of algebraic laws: vectorised polynomial roots and branch selection.

API (shared by :mod:`attnspec.laws` and the multi-head laws)
------------------------------------------------------------
``cubic_roots(a3, a2, a1, a0)``, ``quartic_roots(a4, a3, a2, a1, a0)``
    All roots of ``Σ a_k g^k = 0`` for arrays of coefficients (broadcast), by the closed
    forms of Cardano and Ferrari in complex arithmetic; shape ``(..., 3)`` or ``(..., 4)``.
    Accurate to ~1e-8 relative near multiple roots; polish with ``polish``.
``polish(coeffs, g, steps=3)``
    Newton steps on the polynomial with coefficients ``coeffs = (a_n, ..., a_0)`` (highest
    first, each broadcastable to ``g``), from the starting values ``g``.
``physical_root(coeffs)``
    For real ``x``, the value ``G(x + i0)`` of a Cauchy transform that is a root of a
    polynomial of degree 3 or 4 with real coefficients having at most one non-real pair:
    the root with the most negative imaginary part, Newton-polished. Outside the support
    it returns the root of smallest imaginary part magnitude, which is real up to rounding
    (so the density ``−Im G/π`` is 0 up to ~1e-8 there; callers clip by support).

Why the selection is right (MATH.md §3): for real ``x`` in the bulk ``G(x + i0)`` is non-real
with ``Im G < 0``, and its conjugate is also a root; if the polynomial has at most one
non-real pair, that pair is the physical one. Cubics with real coefficients always qualify;
for the quartic of :class:`attnspec.AttentionLaw` the property is checked against an
independent continuation oracle in ``tests/test_laws_attention.py`` (no root with ``Im < 0`` outside
the support, never two).
"""

from __future__ import annotations

import numpy as np

__all__ = ["cubic_roots", "quartic_roots", "polish", "physical_root"]

_OMEGA = np.exp(2j * np.pi / 3)


def cubic_roots(a3, a2, a1, a0):
    """All roots of ``a3 g³ + a2 g² + a1 g + a0`` (Cardano, vectorised); shape (..., 3)."""
    a3 = np.asarray(a3, dtype=complex)
    b, c, d = a2 / a3, a1 / a3, a0 / a3
    p = c - b * b / 3
    q = 2 * b ** 3 / 27 - b * c / 3 + d
    disc = np.sqrt(q * q / 4 + p ** 3 / 27 + 0j)
    u1, u2 = -q / 2 + disc, -q / 2 - disc
    u = np.where(np.abs(u1) >= np.abs(u2), u1, u2)     # avoid cancellation
    cube = np.power(u + 0j, 1 / 3)
    roots = []
    for k in range(3):
        ck = cube * _OMEGA ** k
        with np.errstate(divide="ignore", invalid="ignore"):
            w = np.where(ck != 0, ck - p / (3 * ck), 0)
        roots.append(w - b / 3)
    return np.stack(np.broadcast_arrays(*roots), axis=-1)


def quartic_roots(a4, a3, a2, a1, a0):
    """All roots of ``a4 g⁴ + … + a0`` (Ferrari, vectorised); shape (..., 4)."""
    a4 = np.asarray(a4, dtype=complex)
    b, c, d, e = a3 / a4, a2 / a4, a1 / a4, a0 / a4
    p = c - 3 * b * b / 8
    q = d - b * c / 2 + b ** 3 / 8
    r = e - b * d / 4 + b * b * c / 16 - 3 * b ** 4 / 256
    # resolvent cubic 8m³ + 8pm² + (2p² − 8r)m − q² = 0; the largest root avoids m ≈ 0
    ms = cubic_roots(8.0, 8 * p, 2 * p * p - 8 * r, -q * q)
    m = np.take_along_axis(ms, np.argmax(np.abs(ms), axis=-1)[..., None], axis=-1)[..., 0]
    s2 = np.sqrt(2 * m)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(s2 != 0, q / (2 * s2), 0)
    roots = []
    for sign in (1, -1):
        # y² − B y + C = 0 with B = sign·s2, C = p/2 + m + sign·q/(2 s2); the root of larger
        # modulus first, the other as C/y₁ (no cancellation when the two differ in size)
        B, C = sign * s2, p / 2 + m + sign * t
        root = np.sqrt(B * B - 4 * C)
        root = np.where((B.conjugate() * root).real >= 0, root, -root)
        y1 = (B + root) / 2
        with np.errstate(divide="ignore", invalid="ignore"):
            y2 = np.where(y1 != 0, C / y1, 0)
        roots += [y1, y2]
    return np.stack(np.broadcast_arrays(*roots), axis=-1) - (b / 4)[..., None]


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


def physical_root(coeffs, steps=3):
    """``G(x + i0)``: the root of smallest imaginary part, Newton-polished (module docs;
    MATH.md §3: the physical branch of K(g) = x)."""
    solver = {4: cubic_roots, 5: quartic_roots}[len(coeffs)]
    roots = solver(*coeffs)
    g = np.take_along_axis(roots, np.argmin(roots.imag, axis=-1)[..., None], axis=-1)[..., 0]
    coeffs = [np.asarray(a, dtype=complex) for a in coeffs]
    return polish(coeffs, g, steps)
