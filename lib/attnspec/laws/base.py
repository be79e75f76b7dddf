"""Base class of the limiting laws of squared singular values: scipy-like public methods.

How to write a law (MATH.md §3, §6)
-----------------------------------
A law of squared singular values lives on ``[0, ∞)``: an absolutely continuous part on one or
more intervals, plus possibly an atom at 0. Subclass :class:`SpectralLaw`, validate and store
the parameters in ``__init__``, then call ``super().__init__()``. Implement

``_params()``
    ``dict`` of the parameters, used by ``repr`` (e.g. ``{"beta": 1.0, "c": 1.0}``).
``_support()``
    ``(a, b)``: the smallest interval containing the absolutely continuous part.
``_pdf(x)``
    the density of the absolutely continuous part, vectorised, called only with ``x``
    strictly inside a support interval (never at an edge, never in a gap).

and optionally

``_atom`` (attribute, default 0.0)
    the mass at 0 (the density then integrates to ``1 − _atom``).
``_intervals()``
    the support intervals ``[(a, b, left_kind), ...]``, sorted, when there are gaps; the default
    is ``[(a, b, self._left_edge)]`` from ``_support()``. ``left_kind`` says how the density
    behaves at the left end ``a``: ``"soft"`` (vanishes like √(x − a)), ``"hard"`` (``a = 0``,
    blows up like x^{-1/2}), ``"hard23"`` (``a = 0``, like x^{-2/3}), ``"hard-sin6"``
    (``a = 0``, like x^{-1/2} at the end but possibly like x^{-2/3} over a range above it:
    mapped as ``"hard23"``, where the CDF then grows like θ³), ``"inner"`` (an ordinary
    point, see below) or ``"log"`` (an ordinary point of a piece spanning decades above the
    left end o of its support interval, where the density varies like a power of x − o:
    mapped geometrically, see below). Right ends are always soft (square-root), as for every
    law in this package. A fourth element, an integer, sets the Chebyshev points of the
    piece's first try (default ``_cheb_points[0]``, also if it is ``None``); a fifth, the
    origin o of a ``"log"`` piece (default: the left end of its support interval).
``_moment(k)``
    an exact k-th moment (return ``None`` to fall back to quadrature).
``_reference_moments()``
    ``(scale, [m_1/scale, m_2/scale², ...])``: exact moments the build checks by quadrature
    (default: none). Call ``self._check_accuracy()`` at the end of ``__init__``.

An interval may be cut into consecutive pieces (``left_kind = "inner"`` for a piece whose
left end is an ordinary point of the density, the right end of the previous piece); the
public ``SpectralLaw.intervals()`` merges them back into the support intervals.

What the base class computes
----------------------------
``cdf`` never integrates ``x^{-1/2}`` naively. On each interval ``[a, b]`` it integrates in the
angle ``θ ∈ [0, π]`` of ``x = a + (b − a) sin^{2m}(θ/2)`` (``m = 1`` for soft and ``x^{-1/2}``
edges, ``m = 3`` for ``x^{-2/3}``; for ``m = 1`` this is the singular-value variable
``√x = √b sin(θ/2)`` when ``a = 0``; a ``"log"`` piece uses
``x = o + (a − o)((b − o)/(a − o))^{θ/π}``, o the left end of its support interval, on which
a power law in x − o is an exponential in θ). With these edge behaviours the integrand
``ρ(x(θ)) x′(θ)`` is analytic on the closed interval, so its Chebyshev interpolant converges
geometrically: the interpolant is built once per law (adaptively, doubling from
``_cheb_points[0]`` up to ``_cheb_points[1]`` points, default 64 to 2048, until the trailing
coefficients fall below 1e-14 of the largest, or their sum below 1e-16 in mass; a law with
``_max_pieces > 1`` cuts a piece that needs more in three, at the angles π/4 and 3π/4 (at
once, without doubling, when its tail extrapolated geometrically could not pass), so
that features at very different scales, e.g. near a hard edge at small β, get geometrically
graded pieces), integrated exactly, and evaluated for ``cdf``. ``_cdf_error`` holds the
tail estimate (typically ≤ 1e-14); ``_mass_error`` the computed total mass minus one (a
check of the density itself). ``ppf`` inverts the same series by bracketed Newton in ``θ``
(vectorised); ``rvs`` is ``ppf`` of uniforms.
``cdf`` and ``ppf`` treat the points of all pieces in one vectorised pass (the pieces
side by side, with per-point map parameters). Moments without a closed form use the same
interpolants (Fejér quadrature).

A density that keeps one power law over many decades (e.g. x^{-2/3} between a change near
the left end o and the right edge) is cut by ``graded_pieces``: a short piece up to
o + 10 f (f the distance of the change from o), a ``"log"`` piece over the decades above,
and an ``"inner"`` piece up to the edge; three short series instead of a cascade of cuts.

Accuracy contract: ``_check_accuracy`` (called when a law is built) computes the total mass
and the reference moments by this quadrature and raises ``LawAccuracyError`` if the
mass is off by more than ``MASS_TOL`` or a moment by more than ``MOMENT_TOL`` (relative), or if
the Chebyshev tail estimate exceeds ``MASS_TOL``. So a law that exists meets them, and the
clipping of ``cdf`` to ``[0, 1]`` only removes rounding below ``MASS_TOL``.

Public methods check their inputs: ``x``/``q`` must be real numbers or arrays of them
(``None``, strings and complex values raise a ``TypeError`` naming ``x`` or ``q``); ``size``
of ``rvs`` must be ``None``, a non-negative integer or a tuple of them.
"""

from __future__ import annotations

import abc
import functools
import math

import numpy as np
from numpy.polynomial import chebyshev as _cheb
from scipy.fft import dct

from .._validation import (as_float_array, check_float, check_int, check_rng, check_size,
                           scalar_or_array)

__all__ = ["SpectralLaw", "LawAccuracyError", "MASS_TOL", "MOMENT_TOL", "C_MIN", "C_MAX",
           "graded_pieces", "KIND_POWER"]

#: Documented domain of the aspect ratio c = ℓ/d_qk of AttentionLaw and ScoreProductLaw
#: (with ``hermite.BETA_MAX`` for β): every law refuses c outside it with a ValueError.
C_MIN, C_MAX = 0.01, 100.0

#: The power m of the CDF map x = a + (b − a) sin^{2m}(θ/2) for each kind of left end
#: ("log": a geometric map between the piece's ends, see :func:`graded_pieces`).
KIND_POWER = {"soft": 1, "hard": 1, "hard34": 2, "hard23": 3, "hard-sin6": 3, "inner": 1,
              "log": 1}
_CHEB_TOL = 1e-14
_CUT_ANGLES = (0.25 * np.pi, 0.75 * np.pi)  # a piece that does not converge is cut in three
_ABS_TOL = 1e-16            # a piece whose tail estimate (in mass) is below this is done

#: Largest allowed |total mass − 1| and Chebyshev tail estimate of a built law.
MASS_TOL = 1e-10
#: Largest allowed relative error of the reference moments, by quadrature, of a built law.
MOMENT_TOL = 1e-9

#: A support interval whose left end is within this fraction of its length of a change of
#: the density's power law (at distance f from the end) is cut at f·_GRADE_PAD and mapped
#: geometrically above (a "log" piece, see the module docstring).
#: Only when all those changes lie below _GRADE_SPAN of the length: the density then keeps
#: one power law over at least three decades (else one series resolves it, measured).
_GRADE_BELOW, _GRADE_PAD, _GRADE_SPAN = 1e-2, 10.0, 1e-3
_LONG_LOG = 35.0     # a log piece longer than this (in log t) needs 256 points (measured)


def _sin_map(theta, a, b, m):
    """A piece's map x(θ) = a + (b − a) sin^{2m}(θ/2), θ ∈ [0, π] (arrays broadcast)."""
    return a + (b - a) * np.sin(0.5 * theta) ** (2 * m)


def _sin_map_slope(theta, a, b, m):
    """dx/dθ of :func:`_sin_map`: (b − a) m sin^{2m−1}(θ/2) cos(θ/2)."""
    half = 0.5 * theta
    return (b - a) * m * np.sin(half) ** (2 * m - 1) * np.cos(half)


def _log_map(theta, a, origin, rate):
    """A "log" piece's map x(θ) = o + (a − o) e^{λθ}, λ = ln((b − o)/(a − o))/π."""
    return origin + (a - origin) * np.exp(rate * theta)


def _log_map_slope(theta, a, origin, rate):
    """dx/dθ of :func:`_log_map`: (a − o) λ e^{λθ}."""
    return (a - origin) * rate * np.exp(rate * theta)


class LawAccuracyError(ValueError):
    """A law cannot meet its stated accuracy at these parameters (the message names the
    parameter that is out of reach). Raised when the law is built, never later."""


class _Piece:
    """One support interval: the Chebyshev series of the CDF in the angle θ.

    Built by :func:`_build_pieces`, which samples the density (``sample``), tests the
    series for convergence (``_coefficients``) and keeps the piece (``finish``)."""

    def __init__(self, a, b, kind, n, origin=0.0):
        if kind not in KIND_POWER:
            raise ValueError(f"left_kind must be one of {sorted(KIND_POWER)}; got {kind!r}")
        self.a, self.b, self.kind, self.m = float(a), float(b), kind, KIND_POWER[kind]
        self.n, self.converged = n, True
        if kind == "log":      # x − o = (a − o)·e^{λθ}, λ = ln((b − o)/(a − o))/π
            if not origin < a:
                raise ValueError(f"a log piece needs origin < a; got {origin!r}, {a!r}")
            self.origin = float(origin)
            self.rate = math.log((self.b - self.origin) / (self.a - self.origin)) / np.pi

    def sample(self):
        """``(θ, x)`` at the n Chebyshev points (first kind) of the current try."""
        n = self.n
        theta = 0.5 * np.pi * (1.0 + np.cos(np.pi * (np.arange(n) + 0.5) / n))
        return theta, self.x_of_theta(theta)

    def finish(self, theta, vals, coef, scale, trim):
        """Keep the series of these samples: trim it, integrate it, estimate its error."""
        n = self.n
        tail = float(np.sum(np.abs(coef[-max(4, n // 16):])))
        keep = np.nonzero(np.abs(coef) > trim * scale)[0]
        last = keep[-1] + 1 if keep.size else 1
        dropped = float(np.sum(np.abs(coef[last:])))
        coef = coef[:last]
        # tail estimate of the series plus what the trimming dropped
        self.error = (tail + dropped) * np.pi / 2
        self.nodes, self.values = theta, vals
        self.density = coef * (np.pi / 2)               # dF/dy with y = 2θ/π − 1
        self.cumulative = _integral_from_left(self.density)
        # ∫_{-1}^{1} T_k = 2/(1 − k²) for even k, 0 for odd k
        k = np.arange(0, last, 2)
        self.mass = float(np.sum(self.density[::2] * 2.0 / (1.0 - k * k)))
        self._table = None
        return self

    def x_of_theta(self, theta):
        if self.kind == "log":
            return _log_map(theta, self.a, self.origin, self.rate)
        return _sin_map(theta, self.a, self.b, self.m)

    def dx_dtheta(self, theta):
        if self.kind == "log":
            return _log_map_slope(theta, self.a, self.origin, self.rate)
        return _sin_map_slope(theta, self.a, self.b, self.m)

    def _inverse_table(self):
        """``(y, C, D)``: the series C and its derivative D = dC/dy at the ends y = ±1 and at
        ``16·max(len(density), 32)`` Chebyshev points (first kind), ascending, by two cosine
        transforms (exact values of the trimmed series, no Clenshaw sum)."""
        if self._table is None:
            n = 16 * max(self.density.size, 32)

            def at_nodes(coef):
                padded = np.zeros(n)
                m = min(coef.size, n)
                padded[:m] = coef[:m]
                padded[1:] *= 0.5
                return dct(padded, type=3)[::-1]

            y = np.cos(np.pi * (np.arange(n) + 0.5) / n)[::-1]
            signs = (-1.0) ** np.arange(self.density.size)
            cum = np.clip(at_nodes(self.cumulative), 0.0, self.mass)
            cum = np.concatenate([[0.0], np.maximum.accumulate(cum), [self.mass]])
            dens = np.concatenate([[np.dot(signs, self.density)], at_nodes(self.density),
                                   [np.sum(self.density)]])
            self._table = np.concatenate([[-1.0], y, [1.0]]), cum, dens
        return self._table

    def integrate(self, func):
        """∫ func(x) ρ(x) dx over the interval (Fejér's first rule on the stored nodes)."""
        vals = func(self.x_of_theta(self.nodes)) * self.values
        return float(np.dot(_fejer_weights(self.nodes.size), vals)) * np.pi / 2


#: Order of contact of a piece's CDF with its left end, by kind (C ∝ distance^p): 3 for a
#: soft edge, 1 for x^{-1/2} (and for a "log" piece, whose ends are ordinary points in a
#: map with x′ ≠ 0), 2 for x^{-2/3} and an ordinary point of the sin² map.
_P_LEFT = {"soft": 3.0, "hard": 1.0, "hard34": 1.0, "hard23": 2.0, "hard-sin6": 3.0,
           "inner": 2.0, "log": 1.0}


_FEW_POINTS = 24


def _clenshaw(y, columns, j, sizes):
    """Σ_k columns[k, j]·T_k(y) per point (column j: the coefficients of piece j's series,
    zero beyond its length ``sizes[j]``), in the arithmetic of
    ``numpy.polynomial.chebyshev.chebval``. The points are taken longest series first, and
    a step k of the recurrence touches only those whose series reaches k: the cost is that
    of summing each series on its own points, not the longest series on all points. For
    at most ``_FEW_POINTS`` points, whose recurrence would cost as much as for many, the
    terms are T_k(y) = cos(k arccos y) (the same sum up to ~k ulp)."""
    lengths = sizes[j]
    if y.size <= _FEW_POINTS:           # a few points (later Newton steps): T_k = cos(kφ)
        k = np.arange(int(lengths.max(initial=1)))
        terms = np.cos(np.outer(np.arccos(np.clip(y, -1.0, 1.0)), k))
        return np.einsum("ik,ki->i", terms, columns[:k.size, j])
    order = np.argsort(-lengths, kind="stable")
    y, rows = y[order], columns[:, j[order]]
    # reach[k]: the points whose series has more than k terms are the first reach[k]
    reach = np.searchsorted(-lengths[order], -np.arange(rows.shape[0]), side="left")
    if rows.shape[0] == 1:
        c0, c1 = rows[0].copy(), np.zeros_like(y)
    else:
        c0, c1 = rows[-2].copy(), rows[-1].copy()
    k = rows.shape[0] - 3
    while k >= 0:                       # blocks of steps on the same points
        n = reach[k]
        first = np.count_nonzero(reach[:k + 1] > n)
        a0, a1, x2, block = c0[:n], c1[:n], 2 * y[:n], rows[:, :n]
        for i in range(k, first - 1, -1):
            a0, a1 = block[i] - a1, a0 + a1 * x2
        c0[:n], c1[:n] = a0, a1
        k = first - 1
    out = np.empty_like(y)
    out[order] = c0 + c1 * y
    return out


class _Stack:
    """The pieces of a law side by side, so that ``cdf`` and ``ppf`` treat all points of
    all pieces in one vectorised pass (one Clenshaw sum per Newton step, whatever the
    number of pieces), with per-point parameters of the map x(θ) of each piece."""

    def __init__(self, pieces, atom):
        self.pieces = pieces
        self.a = np.array([p.a for p in pieces])
        self.b = np.array([p.b for p in pieces])
        self.m = np.array([float(p.m) for p in pieces])
        self.log = np.array([p.kind == "log" for p in pieces])
        self.origin = np.array([getattr(p, "origin", 0.0) for p in pieces])
        self.rate = np.array([getattr(p, "rate", 1.0) for p in pieces])
        self.mass = np.array([p.mass for p in pieces])
        self.start = np.cumsum(np.concatenate([[atom], self.mass]))   # mass below piece j
        self.p_left = np.array([_P_LEFT[p.kind] for p in pieces])
        self.p_right = np.where(self.log, 1.0, 3.0)
        self.cumulative = self._columns([p.cumulative for p in pieces])
        self.density = self._columns([p.density for p in pieces])
        self.cumulative_size = np.array([p.cumulative.size for p in pieces])
        self.density_size = np.array([p.density.size for p in pieces])
        self._tables = None

    @staticmethod
    def _columns(series):
        out = np.zeros((max(c.size for c in series), len(series)))
        for j, c in enumerate(series):
            out[:c.size, j] = c
        return out

    # ----- the maps x(θ) of the pieces, per point (j: the piece of each point) -------------
    def x_of_theta(self, theta, j):
        return self._per_piece_map(theta, j, _log_map, _sin_map)

    def dx_dtheta(self, theta, j):
        return self._per_piece_map(theta, j, _log_map_slope, _sin_map_slope)

    def _per_piece_map(self, theta, j, log_map, sin_map):
        """``log_map`` or ``sin_map`` at each point, with the parameters of its piece j."""
        out = np.empty_like(theta)
        log = self.log[j]
        if log.any():
            jl = j[log]
            out[log] = log_map(theta[log], self.a[jl], self.origin[jl], self.rate[jl])
        if not log.all():
            js = j[~log]
            out[~log] = sin_map(theta[~log], self.a[js], self.b[js], self.m[js])
        return out

    def theta_of_x(self, x, j):
        out = np.empty_like(x)
        a, b, m, log = self.a[j], self.b[j], self.m[j], self.log[j]
        if log.any():      # log1p keeps full precision near a
            jl = j[log]
            out[log] = np.log1p((x[log] - a[log]) / (a[log] - self.origin[jl])) / self.rate[jl]
        sq = (m == 1) & ~log
        if sq.any():       # arctan2 keeps full precision at both ends
            out[sq] = 2.0 * np.arctan2(np.sqrt(x[sq] - a[sq]), np.sqrt(b[sq] - x[sq]))
        power = (m != 1) & ~log
        if power.any():
            r = np.clip((x[power] - a[power]) / (b[power] - a[power]), 0.0, 1.0)
            mp = m[power]
            out[power] = 2.0 * np.arctan2(r ** (1 / (2 * mp)), np.sqrt(1.0 - r ** (1 / mp)))
        return out

    # ----- cdf ---------------------------------------------------------------------------
    def cdf(self, x):
        """Mass below x (atom included) for x ≥ 0 outside the pieces' interiors and the
        series of its piece inside one (the caller sets the top of the support to 1)."""
        n_below = np.searchsorted(self.b, x, side="right")       # pieces entirely below x
        out = np.where(x >= 0, self.start[n_below], 0.0)
        j = np.minimum(n_below, self.b.size - 1)
        inside = (x > self.a[j]) & (x < self.b[j])
        if inside.any():
            ji = j[inside]
            y = self.theta_of_x(x[inside], ji) * (2 / np.pi) - 1.0
            out[inside] += _clenshaw(y, self.cumulative, ji, self.cumulative_size)
        return out

    # ----- ppf ---------------------------------------------------------------------------
    def _inverse_tables(self):
        if self._tables is None:
            self._tables = [p._inverse_table() for p in self.pieces]
        return self._tables

    def ppf(self, q, j):
        """x in piece j with mass q of [a_j, x] (0 ≤ q ≤ mass_j), by bracketed Newton in y.

        Newton runs on ``C(y)^(1/p)`` near the left end and ``(mass − C(y))^(1/p′)`` near
        the right end, where ``p`` is the order of contact of the CDF with its end
        (``_P_LEFT``; p′ = 3, a square-root edge, or 1 for a ``"log"`` piece), so it
        converges quadratically up to the edges. It starts from the cubic Hermite
        interpolant of the inverse, y(C^(1/p)), on a table of C and dC/dy at 16·(series
        length) Chebyshev points (:meth:`_Piece._inverse_table`), within ~1e-12 in y, so
        that one step usually ends it. That first step takes dC/dy from the table (linear
        interpolation, relative error ≲ 1e-5 measured on the chapters' laws), which leaves
        ~1e-12·1e-5 in y: a point is done after it if the step is below 1e-11. Later steps
        sum the derivative series and stop when the step is below 1e-9 (quadratic
        convergence leaves ~1e-18·|C″/C′|). A point is also done when the transformed CDF
        is within its rounding of the target, or its bracket is below 1e-15. All points of
        all pieces iterate together.
        """
        mass = self.mass[j]
        right = q > 0.5 * mass
        power = np.where(right, self.p_right[j], self.p_left[j])

        def h(c, mass, power, right):  # transformed CDF, increasing in y on both halves
            c = np.clip(c, 0.0, mass)
            return np.where(right, -(mass - c) ** (1 / power), c ** (1 / power))

        def dh(c, d, mass, power, right):  # d h / d y from C and dC/dy
            dist = np.where(right, mass - c, c)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                dh_dc = np.abs(dist) ** (1 / power - 1) / power
                return d * dh_dc, dh_dc

        # the bracket [lo, hi] of the table around q, per piece
        tables = self._inverse_tables()
        lo, hi = np.empty_like(q), np.empty_like(q)
        c_lo, c_hi, d_lo, d_hi = (np.empty_like(q) for _ in range(4))
        first, last = np.empty(q.size, dtype=bool), np.empty(q.size, dtype=bool)
        for k in np.unique(j):
            sel = j == k
            grid, table, slope = tables[k]
            i = np.clip(np.searchsorted(table, q[sel], side="left"), 1, grid.size - 1)
            lo[sel], hi[sel] = grid[i - 1], grid[i]
            c_lo[sel], c_hi[sel] = table[i - 1], table[i]
            d_lo[sel], d_hi[sel] = slope[i - 1], slope[i]
            first[sel], last[sel] = i == 1, i == grid.size - 1
        target = h(q, mass, power, right)
        h_lo, h_hi = h(c_lo, mass, power, right), h(c_hi, mass, power, right)
        s_lo, _ = dh(c_lo, d_lo, mass, power, right)
        s_hi, _ = dh(c_hi, d_hi, mass, power, right)
        width = h_hi - h_lo
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            t = np.clip(np.where(width > 0, (target - h_lo) / width, 0.5), 0.0, 1.0)
            m_lo, m_hi = width / s_lo, width / s_hi   # dy/dt at the two ends
            hermite = (lo * (1 + 2 * t) * (1 - t) ** 2 + m_lo * t * (1 - t) ** 2
                       + hi * t * t * (3 - 2 * t) - m_hi * t * t * (1 - t))
        linear = lo + t * (hi - lo)
        usable = np.isfinite(hermite) & (s_lo > 0) & (s_hi > 0) & ~first & ~last
        # the start is rounded to a grid of 2^-40 (~1e-12, within the interpolant's error), so
        # that neighbouring q start from the same point and differ only by their Newton step:
        # ppf is then as smooth in q as the exact inverse, not jittered by the series' rounding
        y = np.clip(np.round(np.where(usable, hermite, linear) * 2.0 ** 40) / 2.0 ** 40,
                    lo, hi)
        # dC/dy on the first step: linear interpolation in the table's bracket
        with np.errstate(divide="ignore", invalid="ignore"):
            table_slope = (d_hi - d_lo) / (hi - lo)
        active = np.arange(y.size)          # only the points not yet converged iterate
        below_ulp = np.zeros(y.size)        # the part of the last Newton step that y lost
        for iteration in range(59):
            ya, la, ha, ja = y[active], lo[active], hi[active], j[active]
            ra, pa, ma = right[active], power[active], mass[active]
            c = _clenshaw(ya, self.cumulative, ja, self.cumulative_size)
            f = h(c, ma, pa, ra) - target[active]
            la, ha = np.where(f < 0, ya, la), np.where(f < 0, ha, ya)
            if iteration == 0:
                d = table_slope * (ya - lo) + d_lo
                d = np.where(np.isfinite(d), d, d_lo)
            else:
                d = _clenshaw(ya, self.density, ja, self.density_size)
            dhy, dh_dc = dh(c, d, ma, pa, ra)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                step = -f / dhy
                y_new = ya + step
                # the rounding of the series (~1e-14 of the mass), seen through the transform
                noise = 1e-14 * ma * dh_dc
            bad = ~((y_new >= la) & (y_new <= ha)) | ~np.isfinite(y_new)
            y_new = np.where(bad, 0.5 * (la + ha), y_new)
            below_ulp[active] = np.where(bad, 0.0, step - (y_new - ya))
            small_step = np.abs(y_new - ya) <= (1e-11 if iteration == 0 else 1e-9)
            done = (small_step & ~bad) | (np.abs(f) <= noise) | (ha - la <= 1e-15)
            y[active], lo[active], hi[active] = y_new, la, ha
            active = active[~done]
            if active.size == 0:
                break
        # near an edge x varies faster than y's rounding resolves (x ∝ θ^(2m)): the step's
        # part below one ulp of y is applied to x, linearly
        theta = 0.5 * np.pi * (1.0 + y)
        x = self.x_of_theta(theta, j) + self.dx_dtheta(theta, j) * (0.5 * np.pi) * below_ulp
        return np.clip(x, self.a[j], self.b[j])


def _integral_from_left(c):
    """Chebyshev coefficients of ∫_{-1}^{y} Σ c_k T_k (vectorised ``chebint(c, lbnd=-1)``):
    ∫T₀ = T₁, ∫T₁ = T₂/4, ∫T_k = T_{k+1}/(2(k+1)) − T_{k−1}/(2(k−1)), then the constant
    that makes the value at −1 zero."""
    n = c.size
    padded = np.concatenate([c, [0.0, 0.0]])
    k = np.arange(1, n + 1)
    out = np.empty(n + 1)
    out[1:] = (padded[k - 1] - padded[k + 1]) / (2.0 * k)
    out[1] = padded[0] - 0.5 * padded[2]
    out[0] = -np.dot(out[1:], np.where(k % 2 == 1, -1.0, 1.0))
    return out


def _coefficients(vals):
    """Chebyshev coefficients of samples at the first-kind points; ``(coef, scale, tail)``."""
    n = vals.size
    coef = dct(vals, type=2) / n
    coef[0] /= 2.0
    scale = np.max(np.abs(coef))
    tail = np.max(np.abs(coef[-max(4, n // 16):]))
    return coef, scale, tail


@functools.lru_cache(maxsize=16)
def _fejer_weights(n):
    """Weights of Fejér's first rule on [−1, 1] at the n first-kind Chebyshev points
    ``cos(π(j + 1/2)/n)``: Σ_j w_j f(y_j) = ∫ of the degree n − 1 interpolant of f."""
    moments = np.zeros(n)
    k = np.arange(0, n, 2)
    moments[::2] = 2.0 / (1.0 - k * k)                 # ∫_{-1}^{1} T_k
    # coef = DCT-II(f)/n with coef_0 halved, so Σ_k moments_k coef_k = DCT-III(moments)·f/n
    weights = dct(moments, type=3) / n
    weights.flags.writeable = False
    return weights


def _build_pieces(intervals, pdf, points, max_pieces, trim):
    """Chebyshev pieces covering each interval ``(a, b, kind)``: one if it converges, else
    cut in three at x(π/4) and x(3π/4) and recurse (graded geometrically towards both ends,
    where the density varies fastest; a law puts a cut at each near-singular point of its
    density), at most ``max_pieces`` per interval.

    Every round samples the density of all pending tries in one ``pdf`` call. A try that
    does not converge at n points is retried at 2n points if its tail, extrapolated
    geometrically (``(tail/scale)²`` at 2n), could then pass; otherwise it is cut at once
    (doubling would be wasted on a feature the piece cannot resolve).
    """
    n0, max_points = points
    pending, origin = [], 0.0
    for i, (a, b, kind, *extra) in enumerate(intervals):
        if kind not in ("inner", "log"):
            origin = a                                 # left end of the support interval
        first = extra[0] if extra and extra[0] else n0
        pending.append((_Piece(a, b, kind, first, extra[1] if len(extra) > 1 else origin), i))
    count = [1] * len(intervals)                       # pieces per interval, cut or not
    done = []
    while pending:
        samples = [piece.sample() for piece, _ in pending]
        values = pdf(np.concatenate([x for _, x in samples]))
        retry, start = [], 0
        for (piece, i), (theta, _) in zip(pending, samples):
            vals = values[start:start + theta.size] * piece.dx_dtheta(theta)
            start += theta.size
            coef, scale, tail = _coefficients(vals)
            n = piece.n
            if (tail <= _CHEB_TOL * scale or not np.isfinite(scale)
                    or tail * n * np.pi / 32 <= _ABS_TOL):
                done.append(piece.finish(theta, vals, coef, scale, trim))
                continue
            hopeful = (tail * tail <= 10 * _CHEB_TOL * scale * scale
                       or tail * tail / scale * n * np.pi / 16 <= 10 * _ABS_TOL)
            if n < max_points and (hopeful or count[i] >= max_pieces):
                piece.n = 2 * n
                retry.append((piece, i))
                continue
            cuts = [float(piece.x_of_theta(angle)) for angle in _CUT_ANGLES]
            if count[i] >= max_pieces or not piece.a < cuts[0] < cuts[1] < piece.b:
                if n < max_points:                     # cannot cut: double instead
                    piece.n = 2 * n
                    retry.append((piece, i))
                    continue
                piece.converged = False
                done.append(piece.finish(theta, vals, coef, scale, trim))
                continue
            count[i] += 2
            inner, origin = (("log", piece.origin) if piece.kind == "log"
                             else ("inner", 0.0))
            retry += [(_Piece(piece.a, cuts[0], piece.kind, n0, origin), i),
                      (_Piece(cuts[0], cuts[1], inner, n0, origin), i),
                      (_Piece(cuts[1], piece.b, inner, n0, origin), i)]
        pending = retry
    return sorted(done, key=lambda p: p.a)


def graded_pieces(pieces, features, long_points=256, widths=None):
    """The pieces ``(lo, hi, kind[, points])``, graded where the density keeps one power law
    over decades: with o the left end of the support interval, f the distance from o of the
    nearest change of power law (the first piece: the smallest modulus of ``features``,
    the complex feature points of the first interval, or the gap to the previous interval;
    an inner piece: its own left end, a near-cusp), when 10 f is below 1 % of the length
    and all the changes below ``_GRADE_SPAN`` of it, the piece is cut into ``[lo, o + 10 f]``
    (same kind), ``[o + 10 f, o + 0.62(hi − o)]`` (``"log"``: a power law of t − o is smooth
    in log(t − o)) and ``[o + 0.62(hi − o), hi]`` (``"inner"``, the square-root edge or the
    near-cusp at hi). An inner piece starting at a near-cusp of width w (``widths``: left
    end → w) with 10 w below 1 % of its length is graded the same way about its own left
    end (o = lo, f = w). A log piece spanning more than e^35, and a first piece with a
    feature within 70° of the positive axis, start at ``long_points``."""
    out, last_end, origin = [], None, 0.0
    features = np.asarray(features, dtype=complex)
    widths = widths or {}
    for lo, hi, kind, *points in pieces:
        w = widths.get(lo)
        if kind == "inner" and w is not None and _GRADE_PAD * w < _GRADE_BELOW * (hi - lo):
            last_end, f, top = hi, _GRADE_PAD * w, lo + 0.62 * (hi - lo)
            log = (lo + f, top, "log", long_points if math.log((top - lo) / f) > _LONG_LOG
                   else None, lo)
            out += [(lo, lo + f, kind), log, (top, hi, "inner")]
            continue
        near = np.zeros(0, dtype=complex)
        if kind != "inner":                      # the first piece of a support interval
            origin = lo
            near = features if last_end is None else np.array([lo - last_end], dtype=complex)
        else:
            near = np.array([lo - origin], dtype=complex)
        last_end = hi
        distances = np.abs(near)
        near, distances = near[distances > 0], distances[distances > 0]
        length = hi - origin
        f = _GRADE_PAD * distances.min() if distances.size else np.inf
        if not (origin + f > lo and f < _GRADE_BELOW * length
                and distances.max() < _GRADE_SPAN * length):
            out.append((lo, hi, kind, *points))
            continue
        top = origin + 0.62 * length
        log = (origin + f, top, "log")
        if math.log((top - origin) / f) > _LONG_LOG:
            log += (long_points,)
        first = (lo, origin + f, kind)
        if kind != "inner" and np.any((near.real > 0) & (np.abs(near.imag) < 3 * near.real)):
            first += (long_points,)
        out += [first, log, (top, hi, "inner")]
    return out


class LawSummaries:
    """Summaries every law object shares, from its ``moment`` and ``ppf`` (scipy's names).

    A law defines ``moment(k)`` and a vectorised ``ppf(q)``; this gives it ``mean``, ``var``,
    ``std``, ``median``, ``interval`` and ``rvs`` (inversion sampling).
    """

    def mean(self):
        """First moment."""
        return self.moment(1)

    def var(self):
        """Variance."""
        return self.moment(2) - self.moment(1) ** 2

    def std(self):
        """Standard deviation."""
        return math.sqrt(self.var())

    def median(self):
        """``ppf(0.5)``."""
        return self.ppf(0.5)

    def interval(self, confidence):
        """Equal-tailed interval ``(ppf((1 − confidence)/2), ppf((1 + confidence)/2))``."""
        confidence = check_float("confidence", confidence, min=0, max=1)
        return self.ppf(0.5 - confidence / 2), self.ppf(0.5 + confidence / 2)

    def rvs(self, size=None, rng=None):
        """Random draws by inversion, ``ppf(U)`` with ``U ~ Uniform(0, 1)`` from ``rng``."""
        size = check_size(size)
        u = check_rng(rng).random(size)
        return self.ppf(u)


class SpectralLaw(LawSummaries, abc.ABC):
    """Base class of laws of squared singular values on [0, ∞) (see the module docstring).

    Public methods follow scipy.stats' frozen distributions: inputs are converted with
    ``asarray`` and promoted to float; a 0-d input gives a Python float; NaN gives NaN.
    """

    _atom = 0.0
    _left_edge = "soft"
    #: Chebyshev points per piece (first try, most), and pieces per interval (1: never cut);
    #: trailing coefficients below ``_cheb_trim`` of the largest are dropped (cheaper cdf/ppf).
    _cheb_points, _max_pieces, _cheb_trim = (64, 2048), 1, 1e-17

    def __init__(self):
        a, b = self._support()
        self._a, self._b = float(a), float(b)
        self._pieces_cache = None

    # ----- hooks -------------------------------------------------------------------------
    @abc.abstractmethod
    def _params(self):
        """Subclass hook."""

    @abc.abstractmethod
    def _support(self):
        """Subclass hook."""

    @abc.abstractmethod
    def _pdf(self, x):
        """Subclass hook."""

    def _intervals(self):
        return [(self._a, self._b, self._left_edge)]

    def _moment(self, k):
        return None

    def _reference_moments(self):
        return 1.0, []

    # ----- internals ---------------------------------------------------------------------
    @property
    def _pieces(self):
        if self._pieces_cache is None:
            self._pieces_cache = _build_pieces(self._intervals(), self._pdf,
                                               self._cheb_points, self._max_pieces,
                                               self._cheb_trim)
        return self._pieces_cache

    @property
    def _stack(self):
        stack = getattr(self, "_stack_cache", None)
        if stack is None or stack.pieces is not self._pieces:
            self._stack_cache = _Stack(self._pieces, self._atom)
        return self._stack_cache

    @property
    def _cdf_error(self):
        return sum(p.error for p in self._pieces)

    @property
    def _mass_error(self):
        return self._atom + sum(p.mass for p in self._pieces) - 1.0

    def _check_accuracy(self, culprit="the parameters"):
        """Build the CDF series and check mass and reference moments by quadrature.

        Raises ``LawAccuracyError`` naming ``culprit`` (the parameter out of reach) when
        ``|mass − 1| > MASS_TOL``, the tail estimate exceeds ``MASS_TOL``, or a reference
        moment is off by more than ``MOMENT_TOL`` relative.
        """
        problems = []
        mass_error, tail = self._mass_error, self._cdf_error
        if not abs(mass_error) <= MASS_TOL:
            problems.append(f"total mass off by {mass_error:.1e}")
        if not tail <= MASS_TOL:
            problems.append(f"CDF series tail {tail:.1e}")
        scale, ratios = self._reference_moments()
        for k, expected in enumerate(ratios, start=1):
            got = sum(p.integrate(lambda x, k=k: (x / scale) ** k) for p in self._pieces)
            if not abs(got - expected) <= MOMENT_TOL * abs(expected):
                problems.append(f"moment {k} off by {got / expected - 1:.1e} (relative)")
        if problems:
            raise LawAccuracyError(
                f"{self!r} cannot meet its stated accuracy (mass to {MASS_TOL:g}, moments to "
                f"{MOMENT_TOL:g}): {'; '.join(problems)}; {culprit} is out of its reach")

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({args})"

    # ----- public API --------------------------------------------------------------------
    def support(self):
        """``(a, b)``: the hull of the support (``a = 0`` when there is an atom at 0); the
        pieces are listed by ``intervals()``."""
        return (0.0 if self._atom > 0 else self._a), self._b

    def intervals(self):
        """The intervals of the absolutely continuous part, sorted: ``((a₁, b₁), …)``.

        One interval for a connected support; gaps lie between consecutive intervals (the
        density is 0 there and the CDF constant). An atom at 0 is ``atom``.
        """
        merged = []
        for a, b, *_ in self._intervals():
            if merged and merged[-1][1] == a:
                merged[-1][1] = b
            else:
                merged.append([a, b])
        return tuple((float(a), float(b)) for a, b in merged)

    @property
    def atom(self):
        """Mass of the atom at 0 (0.0 if there is none)."""
        return float(self._atom)

    def pdf(self, x):
        """Density of the absolutely continuous part (0 outside the support and in gaps;
        ``inf`` at a left edge at 0 where the density blows up)."""
        x0 = as_float_array(x, "x")
        x = x0.reshape(-1)
        out = np.zeros(x.shape)
        inside = np.zeros(x.shape, dtype=bool)
        cuts = []
        for a, b, kind, *_ in self._intervals():
            inside |= (x > a) & (x < b)
            if kind in ("inner", "log"):
                cuts.append(a)
            elif kind != "soft":
                out[x == a] = np.inf
        if cuts:
            inside |= np.isin(x, cuts)
        if inside.any():
            out[inside] = np.maximum(self._pdf(x[inside]), 0.0)
        out[np.isnan(x)] = np.nan
        return scalar_or_array(out.reshape(x0.shape), x0)

    def cdf(self, x):
        """Distribution function: exactly 0 below the support, exactly 1 at and above its top.

        Inside, the Chebyshev series of the pieces; the build check bounds its error by
        ``MASS_TOL`` (see the module docstring), which is all the final clip to [0, 1] removes.
        """
        x0 = as_float_array(x, "x")
        x = x0.reshape(-1)
        with np.errstate(invalid="ignore"):
            out = np.clip(self._stack.cdf(x), 0.0, 1.0)
        out[x >= self._b] = 1.0
        out[np.isnan(x)] = np.nan
        return scalar_or_array(out.reshape(x0.shape), x0)

    def ppf(self, q):
        """Quantile ``inf{x : cdf(x) ≥ q}``; NaN for q outside [0, 1]; ppf(0), ppf(1) are
        the edges of the support."""
        q0 = as_float_array(q, "q")
        q = q0.reshape(-1)
        out = np.full(q.shape, np.nan)
        valid = (q >= 0) & (q <= 1)
        lower, upper = self.support()
        out[valid] = lower
        stack = self._stack
        # piece j holds start_j < q ≤ start_{j+1}; q beyond every piece (rounding of the
        # masses) gets the top of the last piece
        j = np.searchsorted(stack.start, q, side="left") - 1
        beyond = valid & (j >= stack.mass.size)
        out[beyond] = stack.b[-1]
        sel = valid & (j >= 0) & ~beyond
        if sel.any():
            js = j[sel]
            out[sel] = stack.ppf(q[sel] - stack.start[js], js)
        out[q == 1] = upper
        out[q == 0] = lower
        return scalar_or_array(out.reshape(q0.shape), q0)

    def moment(self, k):
        """k-th raw moment E[x^k] (k a non-negative integer); a ``ValueError`` naming ``k``
        if it exceeds the float range."""
        k = check_int("k", k, min=0)
        if k == 0:
            return 1.0
        try:
            exact = self._moment(k)
            value = (float(exact) if exact is not None
                     else float(sum(p.integrate(lambda x: x ** k) for p in self._pieces)))
        except OverflowError:
            value = math.inf
        if not math.isfinite(value):
            raise ValueError(f"k={k}: the moment of order {k} of {self!r} exceeds the float "
                             "range; use a smaller k")
        return value

