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
(vectorised, from a tabulated inverse); ``rvs`` is ``ppf`` of uniforms.
``cdf`` and ``ppf`` treat the points of all pieces in one vectorised pass (the pieces
side by side, with per-point map parameters), summing the series Σ c_k T_k(y) as
Re Σ c_k e^{ikφ}, φ = arccos y, by Horner in blocks of ~√(length) powers (a few array
operations per block instead of three per term). The reference moments of the build check,
and moments without a closed form, use the same interpolants (Fejér quadrature). A law
whose own density is costly may read it off the built series instead (``_Stack.pdf``: the
series' derivative over dx/dy, with the points where the series' error bound, its tail
estimate plus the rounding of the sum, exceeds a given fraction of the density left to the
law; ``MultiHeadLaw`` does).

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
    """A piece's map x(θ) = a + (b − a) sin^{2m}(θ/2), θ ∈ [0, π], and its slope
    dx/dθ = (b − a) m sin^{2m−1}(θ/2) cos(θ/2): ``(x, dx/dθ)`` (arrays broadcast; one sine,
    cosine and power)."""
    half = 0.5 * theta
    sine = np.sin(half)
    power = (b - a) * sine ** (2 * m - 1)
    return a + power * sine, m * power * np.cos(half)


def _log_map(theta, a, origin, rate):
    """A "log" piece's map x(θ) = o + (a − o) e^{λθ}, λ = ln((b − o)/(a − o))/π, and its
    slope dx/dθ = (a − o) λ e^{λθ}: ``(x, dx/dθ)`` (one exponential)."""
    growth = (a - origin) * np.exp(rate * theta)
    return origin + growth, rate * growth


def _sin2_map_inverse(x, a, b):
    """θ of :func:`_sin_map` for m = 1: 2 arctan(√(x − a)/√(b − x)) (full precision at both
    ends)."""
    return 2.0 * np.arctan2(np.sqrt(x - a), np.sqrt(b - x))


def _sin_map_inverse(x, a, b, m):
    """θ of :func:`_sin_map`: 2 arctan(r^{1/(2m)}/√(1 − r^{1/m})), r = (x − a)/(b − a)
    clipped to [0, 1]."""
    r = np.clip((x - a) / (b - a), 0.0, 1.0)
    return 2.0 * np.arctan2(r ** (1 / (2 * m)), np.sqrt(1.0 - r ** (1 / m)))


def _log_map_inverse(x, a, origin, rate):
    """θ of :func:`_log_map`: log1p((x − a)/(a − o))/λ (full precision near a)."""
    return np.log1p((x - a) / (a - origin)) / rate


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
        """``(θ, x, dx/dθ)`` at the n Chebyshev points (first kind) of the current try (the
        sin-map powers of the nodes are tabulated once per n and m)."""
        theta = _first_kind_angles(self.n)
        if self.kind == "log":
            return (theta, *self.map(theta))
        power, slope = _sin_powers(self.n, self.m)
        width = self.b - self.a
        return theta, self.a + width * power, width * slope

    def finish(self, theta, x, vals, coef, scale, trim):
        """Keep the series of these samples: trim it, integrate it, estimate its error."""
        size = np.abs(coef)
        tail = float(size[-max(4, self.n // 16):].sum())
        keep = (size > trim * scale).nonzero()[0]
        last = int(keep[-1]) + 1 if keep.size else 1
        dropped = float(size[last:].sum())
        # tail estimate of the series plus what the trimming dropped
        self.error = (tail + dropped) * np.pi / 2
        self.nodes, self.x, self.values = theta, x, vals
        self.density = coef[:last] * (np.pi / 2)        # dF/dy with y = 2θ/π − 1
        self.cumulative = _integral_from_left(self.density)
        # ∫_{-1}^{1} T_k = 2/(1 − k²) for even k, 0 for odd k
        self.mass = float(self.density[::2] @ _EVEN_INTEGRALS[:(last + 1) // 2])
        self._fejer = None
        return self

    def map(self, theta):
        """``(x(θ), dx/dθ)``: the piece's map (:func:`_sin_map` or :func:`_log_map`)."""
        if self.kind == "log":
            return _log_map(theta, self.a, self.origin, self.rate)
        return _sin_map(theta, self.a, self.b, self.m)

    def integrate(self, func):
        """∫ func(x) ρ(x) dx over the interval (Fejér's first rule on the stored nodes)."""
        return float(func(self.x) @ self.fejer_values())

    def fejer_values(self):
        """The samples ρ(x(θ_j)) x′(θ_j) times Fejér's weights (and π/2, the dθ of dy):
        ∫ f ρ dx over the piece is their dot product with f at the nodes."""
        if self._fejer is None:
            self._fejer = _fejer_weights(self.nodes.size) * self.values * (np.pi / 2)
        return self._fejer


#: Order of contact of a piece's CDF with its left end, by kind (C ∝ distance^p): 3 for a
#: soft edge, 1 for x^{-1/2} (and for a "log" piece, whose ends are ordinary points in a
#: map with x′ ≠ 0), 2 for x^{-2/3} and an ordinary point of the sin² map.
_P_LEFT = {"soft": 3.0, "hard": 1.0, "hard34": 1.0, "hard23": 2.0, "hard-sin6": 3.0,
           "inner": 2.0, "log": 1.0}


_FEW_POINTS, _CHUNK = 24, 1 << 15
_EPS = np.finfo(float).eps


def _series_sum(y, columns, j):
    """Σ_k columns[k, j]·T_k(y) per point (column j: the coefficients of piece j's series,
    zero beyond its length). With w = e^{iφ}, φ = arccos y, it is Re Σ_k c_k w^k
    (T_k(cos φ) = cos kφ), summed by Horner in blocks of m = ⌈√K⌉ powers (K rows): the sums
    inside the blocks by one matrix product per piece, then K/m Horner steps with w^m: ~3√K
    array operations instead of Clenshaw's 3K. As |w| = 1 no step amplifies rounding; the
    rounding of φ and of the powers adds ~ε Σ_k k|c_k| (as would one ulp of y). Measured
    against mpmath on the laws' series (geometrically decaying): within 4e-16 of the exact
    sum (Clenshaw's recurrence: 2e-16). For at most ``_FEW_POINTS`` points, the terms
    cos(kφ) themselves; more than ``_CHUNK`` points are summed in chunks."""
    size, pieces = columns.shape
    if y.size > _CHUNK:                 # bounded memory (~√K complex values per point)
        return np.concatenate([_series_sum(y[i:i + _CHUNK], columns, j[i:i + _CHUNK])
                               for i in range(0, y.size, _CHUNK)])
    phi = np.arccos(np.minimum(np.maximum(y, -1.0), 1.0))
    if y.size <= _FEW_POINTS:           # a few points (later Newton steps)
        terms = np.cos(np.multiply.outer(phi, np.arange(size)))
        return np.einsum("ik,ki->i", terms, columns[:, j])
    m = math.isqrt(size - 1) + 1
    blocks = -(-size // m)
    padded = np.zeros((blocks * m, pieces))
    padded[:size] = columns
    order = None
    if pieces > 1:                      # the points piece by piece
        order = np.argsort(j, kind="stable")
        phi, j = phi[order], j[order]
    w = np.exp(1j * phi)
    powers = np.empty((m, y.size), dtype=complex)
    powers[0] = 1.0
    for i in range(1, m):
        powers[i] = powers[i - 1] * w
    step = powers[-1] * w
    # real coefficients times complex powers: one real product on (Re, Im) interleaved
    sums = np.empty((blocks, y.size), dtype=complex)
    real_powers, real_sums = powers.view(float), sums.view(float)
    if pieces == 1:
        np.matmul(padded.reshape(blocks, m), real_powers, out=real_sums)
    else:
        ends = np.searchsorted(j, np.arange(pieces + 1)).tolist()
        for piece, (lo, hi) in enumerate(zip(ends[:-1], ends[1:])):
            if lo < hi:
                np.matmul(padded[:, piece].reshape(blocks, m), real_powers[:, 2 * lo:2 * hi],
                          out=real_sums[:, 2 * lo:2 * hi])
    total = sums[-1]
    for b in range(blocks - 2, -1, -1):
        total = total * step + sums[b]
    if order is None:
        return total.real
    out = np.empty(y.size)
    out[order] = total.real
    return out


class _Stack:
    """The pieces of a law side by side, so that ``cdf`` and ``ppf`` treat all points of
    all pieces in one vectorised pass (one series sum per Newton step, whatever the
    number of pieces), with per-point parameters of the map x(θ) of each piece."""

    def __init__(self, pieces, atom):
        self.pieces = pieces
        (self.a, self.b, self.m, log, self.origin, self.rate, self.mass,
         self.p_left) = np.array([[p.a, p.b, p.m, p.kind == "log", getattr(p, "origin", 0.0),
                                   getattr(p, "rate", 1.0), p.mass, _P_LEFT[p.kind]]
                                  for p in pieces]).T
        self.log = log == 1.0
        self.start = np.cumsum([atom, *self.mass.tolist()])     # mass below piece j
        self.p_right = np.where(self.log, 1.0, 3.0)
        self.cumulative = self._columns([p.cumulative for p in pieces])
        self.density = self._columns([p.density for p in pieces])
        # error of each piece's density series: its tail estimate plus the rounding of the
        # sum, ε Σ_k k|c_k| (see _series_sum)
        k = np.arange(self.density.shape[0])[:, None]
        self.density_error = (np.array([p.error for p in pieces])
                              + _EPS * (k * np.abs(self.density)).sum(axis=0))
        self._tables = None

    @staticmethod
    def _columns(series):
        out = np.zeros((max(c.size for c in series), len(series)))
        for j, c in enumerate(series):
            out[:c.size, j] = c
        return out

    # ----- the maps x(θ) of the pieces, per point (j: the piece of each point) -------------
    def x_and_slope(self, theta, j):
        """``(x(θ), dx/dθ)`` at each point, with the map of its piece j (one piece, or none of
        them "log": without masks)."""
        if self.a.size == 1:
            j = 0
        if not self.log.any():
            return _sin_map(theta, self.a[j], self.b[j], self.m[j])
        if self.a.size == 1:
            return _log_map(theta, self.a[0], self.origin[0], self.rate[0])
        x, slope = np.empty_like(theta), np.empty_like(theta)
        log = self.log[j]
        jl, js = j[log], j[~log]
        x[log], slope[log] = _log_map(theta[log], self.a[jl], self.origin[jl], self.rate[jl])
        x[~log], slope[~log] = _sin_map(theta[~log], self.a[js], self.b[js], self.m[js])
        return x, slope

    def theta_of_x(self, x, j):
        """θ(x) of each point's piece j (the inverse maps; one piece: without masks)."""
        if self.a.size == 1:
            a, b, m = self.a[0], self.b[0], self.m[0]
            if self.log[0]:
                return _log_map_inverse(x, a, self.origin[0], self.rate[0])
            return _sin2_map_inverse(x, a, b) if m == 1 else _sin_map_inverse(x, a, b, m)
        out = np.empty_like(x)
        a, b, m, log = self.a[j], self.b[j], self.m[j], self.log[j]
        if log.any():
            jl = j[log]
            out[log] = _log_map_inverse(x[log], a[log], self.origin[jl], self.rate[jl])
        sq = (m == 1) & ~log
        if sq.any():
            out[sq] = _sin2_map_inverse(x[sq], a[sq], b[sq])
        power = (m != 1) & ~log
        if power.any():
            out[power] = _sin_map_inverse(x[power], a[power], b[power], m[power])
        return out

    def _locate(self, x):
        """``(n_below, j, inside)``: the number of pieces entirely below each x, the piece j
        that may hold it (the next one, or the last), and whether x is strictly inside it."""
        n_below = np.searchsorted(self.b, x, side="right")
        j = np.minimum(n_below, self.b.size - 1)
        return n_below, j, (x > self.a[j]) & (x < self.b[j])

    # ----- density -----------------------------------------------------------------------
    def pdf(self, x, rtol):
        """The density ρ(x) = (dC/dy)/(dx/dy) from the series of the piece holding x (y =
        2θ/π − 1), and ``ok`` where the piece's error bound (``density_error``: the series'
        tail estimate and the rounding of its sum, not the error of the density samples it
        was built from) is at most ``rtol``·|dC/dy|.  Not ok: points not strictly inside a
        piece (gaps, cuts, ends, outside, NaN) and where the bound is larger (next to a soft
        edge, where dC/dy → 0)."""
        j, ok = self._locate(x)[1:]
        rho = np.zeros(x.shape)
        if ok.any():
            ji = j[ok]
            theta = self.theta_of_x(x[ok], ji)
            slope = _series_sum(theta * (2 / np.pi) - 1.0, self.density, ji)
            with np.errstate(divide="ignore", invalid="ignore"):
                rho[ok] = slope / (self.x_and_slope(theta, ji)[1] * (0.5 * np.pi))
                ok[ok] = (self.density_error[ji] <= rtol * np.abs(slope)) & np.isfinite(rho[ok])
        return rho, ok

    # ----- cdf ---------------------------------------------------------------------------
    def cdf(self, x):
        """Mass below x (atom included) for x ≥ 0 outside the pieces' interiors and the
        series of its piece inside one (the caller sets the top of the support to 1)."""
        n_below, j, inside = self._locate(x)
        out = np.where(x >= 0, self.start[n_below], 0.0)
        if inside.any():
            ji = j[inside]
            y = self.theta_of_x(x[inside], ji) * (2 / np.pi) - 1.0
            out[inside] += _series_sum(y, self.cumulative, ji)
        return out

    # ----- ppf ---------------------------------------------------------------------------
    def _inverse_tables(self):
        """``(y, C, D)``: the series C of every piece and its derivative D = dC/dy at the ends
        y = ±1 and at ``max(16·(longest series), 2048)`` Chebyshev points (first kind),
        ascending (the same points for every piece: one cosine transform of all the series,
        in place, exact values of the trimmed series, no series sum); C and D one row per
        piece."""
        if self._tables is None:
            pieces, size = self.a.size, self.density.shape[0]
            n = max(16 * size, _TABLE_POINTS)
            padded = np.zeros((2 * pieces, n))
            padded[:pieces, :size + 1] = self.cumulative.T
            padded[pieces:, :size] = self.density.T
            padded[:, 1:size + 1] *= 0.5
            values = dct(padded, type=3, axis=-1, overwrite_x=True)[:, ::-1]
            cum = np.empty((pieces, n + 2))
            cum[:, 0], cum[:, -1] = 0.0, self.mass
            part = values[:pieces]
            np.maximum.accumulate(np.minimum(np.maximum(part, 0.0, out=part),
                                             self.mass[:, None], out=part),
                                  axis=1, out=cum[:, 1:-1])
            dens = np.empty((pieces, n + 2))
            dens[:, 0] = _SIGNS[:size] @ self.density
            dens[:, 1:-1] = values[pieces:]
            dens[:, -1] = self.density.sum(axis=0)
            self._tables = _table_nodes(n), cum, dens
        return self._tables

    def ppf(self, q, j):
        """x in piece j with mass q of [a_j, x] (0 ≤ q ≤ mass_j), by bracketed Newton in y.

        Newton runs on ``C(y)^(1/p)`` near the left end and ``(mass − C(y))^(1/p′)`` near
        the right end, where ``p`` is the order of contact of the CDF with its end
        (``_P_LEFT``; p′ = 3, a square-root edge, or 1 for a ``"log"`` piece), so it
        converges quadratically up to the edges (:class:`_Halves`). It starts from the
        cubic Hermite interpolant of the inverse, y(C^(1/p)), on a table of C and dC/dy at
        max(16·(series length), 2048) Chebyshev points (:meth:`_inverse_tables`), within
        ~1e-12 in y, so that one step usually ends it. That first step takes dC/dy from the
        table (linear interpolation, relative error ≲ 1e-5 measured on the chapters' laws),
        which leaves ~1e-12·1e-5 in y: a point is done after it if the step is below 1e-11.
        Later steps sum the derivative series and stop when the step is below 1e-9
        (quadratic convergence leaves ~1e-18·|C″/C′|). A point is also done when the
        transformed CDF is within its rounding of the target, or its bracket is below
        1e-15 (:func:`_bracketed_step`). All points of all pieces iterate together.
        """
        grid, cum, dens = self._inverse_tables()
        size = grid.size
        # the bracket [lo, hi] of the table around q, in q's piece
        i = np.minimum(np.maximum(_search_rows(cum, q, j), 1), size - 1)
        k = i + j * size
        cum, dens = cum.reshape(-1), dens.reshape(-1)
        lo, hi = grid[i - 1], grid[i]
        c_lo, c_hi, d_lo, d_hi = cum[k - 1], cum[k], dens[k - 1], dens[k]
        mass = self.mass[j]
        right = q > 0.5 * mass
        half = _Halves(mass, right, np.where(right, self.p_right[j], self.p_left[j]))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            (target, h_lo, h_hi), (_, g_lo, g_hi) = half.transform(np.stack([q, c_lo, c_hi]))
            s_lo, s_hi = d_lo * g_lo, d_hi * g_hi
            width = h_hi - h_lo
            t = np.minimum(np.maximum(np.where(width > 0, (target - h_lo) / width, 0.5), 0.0),
                           1.0)
            m_lo, m_hi = width / s_lo, width / s_hi   # dy/dt at the two ends
            u, tt = 1.0 - t, t * t
            uu = u * u
            hermite = ((lo * (1 + 2 * t) + m_lo * t) * uu
                       + (hi * (3 - 2 * t) - m_hi * u) * tt)
            # dC/dy on the first step: linear interpolation in the table's bracket
            table_slope = (d_hi - d_lo) / (hi - lo)
            linear = lo + t * (hi - lo)
            usable = np.isfinite(hermite) & (s_lo > 0) & (s_hi > 0) & (i > 1) & (i < size - 1)
            # the start is rounded to a grid of 2^-40 (~1e-12, within the interpolant's error),
            # so that neighbouring q start from the same point and differ only by their
            # Newton step: ppf is then as smooth in q as the exact inverse, not jittered by
            # the series' rounding
            y = np.round(np.where(usable, hermite, linear) * 2.0 ** 40) / 2.0 ** 40
            y = np.minimum(np.maximum(y, lo), hi)
            h_c, g_c = half.transform(_series_sum(y, self.cumulative, j))
            d = table_slope * (y - lo) + d_lo
            d = np.where(np.isfinite(d), d, d_lo)
            y, lo, hi, below_ulp, done = _bracketed_step(y, lo, hi, h_c - target, d * g_c,
                                                         g_c * mass, 1e-11)
            active = (~done).nonzero()[0]      # only the points not yet converged iterate
            for _ in range(58):
                if active.size == 0:
                    break
                ya, ja = y[active], j[active]
                h_c, g_c = half.at(active).transform(_series_sum(ya, self.cumulative, ja))
                d = _series_sum(ya, self.density, ja)
                y[active], lo[active], hi[active], below_ulp[active], done = _bracketed_step(
                    ya, lo[active], hi[active], h_c - target[active], d * g_c,
                    g_c * mass[active], 1e-9)
                active = active[~done]
        # near an edge x varies faster than y's rounding resolves (x ∝ θ^(2m)): the step's
        # part below one ulp of y is applied to x, linearly
        x, slope = self.x_and_slope(0.5 * np.pi * (1.0 + y), j)
        return np.minimum(np.maximum(x + slope * (0.5 * np.pi) * below_ulp, self.a[j]),
                          self.b[j])


class _Halves:
    """The transformed CDF of :meth:`_Stack.ppf` at each point: h = C^(1/p) on the left
    half of its piece, −(mass − C)^(1/p) on the right (``right``), with p the order of
    contact of the CDF with that end (``power``), so that h is increasing in y on both
    halves and Newton converges quadratically up to the ends."""

    def __init__(self, mass, right, power):
        self.mass, self.right, self.power = mass, right, power
        self.flip, self.base = np.where(right, -1.0, 1.0), np.where(right, mass, 0.0)
        self.inverse = 1.0 / power

    def at(self, index):
        """The same for the points ``index``."""
        return _Halves(self.mass[index], self.right[index], self.power[index])

    def transform(self, c):
        """``(h, dh/dC)`` for values C of the CDF (arrays whose last axis is the points):
        C clipped to [0, mass] in h; dh/dC = |dist|^(1/p − 1)/p, dist = C or mass − C, with
        one power of dist (the caller ignores floating-point warnings)."""
        dist = self.base + self.flip * c
        size = np.abs(dist)
        root = size ** self.inverse
        slope = root / (self.power * size)
        odd = ~((dist > 0) & (dist <= self.mass))
        if odd.any():        # dist 0 (the end itself) or C outside [0, mass] by rounding
            odd = np.nonzero(odd)
            power = np.broadcast_to(self.power, dist.shape)[odd]
            slope[odd] = np.where(size[odd] == 0, np.where(power == 1, 1.0, np.inf),
                                  slope[odd])     # 0^(1/p − 1)/p: 1 for p = 1, else ∞
            mass = np.broadcast_to(self.mass, dist.shape)[odd]
            root[odd] = np.where(dist[odd] < 0, 0.0, np.minimum(dist[odd], mass) ** (1 / power))
        return self.flip * root, slope


def _search_rows(rows, q, j):
    """``np.searchsorted(rows[j], q, side="left")`` per point (row j of ascending ``rows``):
    one search per piece, on its points (grouped by a stable sort of j)."""
    if rows.shape[0] == 1:
        return np.searchsorted(rows[0], q, side="left")
    order = np.argsort(j, kind="stable")
    ends = np.searchsorted(j[order], np.arange(rows.shape[0] + 1)).tolist()
    out = np.empty(q.size, dtype=np.intp)
    for piece, (lo, hi) in enumerate(zip(ends[:-1], ends[1:])):
        if lo < hi:
            part = order[lo:hi]
            out[part] = np.searchsorted(rows[piece], q[part], side="left")
    return out


def _bracketed_step(y, lo, hi, f, slope, scale, small):
    """One bracketed Newton step of :meth:`_Stack.ppf` on the transformed CDF h(y) − target
    = ``f`` (``slope`` = dh/dy): the bracket [lo, hi] shrinks to the side of the root, the
    step is y − f/slope, or the bisection where that leaves the bracket (or is not finite).
    Returns ``(y, lo, hi, below_ulp, done)``: ``below_ulp`` the part of the step that y lost
    to rounding; ``done`` where the step is below ``small`` (and not a bisection), f is
    within the series' rounding (1e-14 of the mass through the transform: ``scale`` =
    mass·dh/dC) or the bracket below 1e-15 (the caller ignores floating-point warnings)."""
    below = f < 0
    lo, hi = np.where(below, y, lo), np.where(below, hi, y)
    step = -f / slope
    y_new = y + step
    bad = ~((y_new >= lo) & (y_new <= hi))                  # also NaN and infinite steps
    y_new = np.where(bad, 0.5 * (lo + hi), y_new)
    below_ulp = np.where(bad, 0.0, step - (y_new - y))
    done = (((np.abs(y_new - y) <= small) & ~bad) | (np.abs(f) <= 1e-14 * scale)
            | (hi - lo <= 1e-15))
    return y_new, lo, hi, below_ulp, done


def _integral_from_left(c):
    """Chebyshev coefficients of ∫_{-1}^{y} Σ c_k T_k (vectorised ``chebint(c, lbnd=-1)``):
    ∫T₀ = T₁, ∫T₁ = T₂/4, ∫T_k = T_{k+1}/(2(k+1)) − T_{k−1}/(2(k−1)), then the constant
    that makes the value at −1 zero."""
    n = c.size
    padded = np.zeros(n + 2)
    padded[:n] = c
    out = np.empty(n + 1)
    out[1:] = (padded[:n] - padded[2:]) / _TWO_K[:n]
    out[1] = padded[0] - 0.5 * padded[2]
    out[0] = out[1:] @ _ALTERNATING[:n]                # −Σ out_k T_k(−1), T_k(−1) = (−1)^k
    return out


#: Constant tables of the series arithmetic (long enough for every series of a law):
#: ∫_{-1}^{1} T_{2i} = 2/(1 − 4i²), (−1)^k = T_k(−1), 2k for k ≥ 1, and (−1)^(k+1) for k ≥ 1.
_LONGEST = 1 << 14
_EVEN_INTEGRALS = 2.0 / (1.0 - (2.0 * np.arange(_LONGEST // 2 + 1)) ** 2)
_SIGNS = np.where(np.arange(_LONGEST + 1) % 2 == 0, 1.0, -1.0)
_TWO_K = 2.0 * np.arange(1, _LONGEST + 1)
_ALTERNATING = np.where(np.arange(1, _LONGEST + 1) % 2 == 1, 1.0, -1.0)
for _table in (_EVEN_INTEGRALS, _SIGNS, _TWO_K, _ALTERNATING):
    _table.flags.writeable = False


@functools.lru_cache(maxsize=32)
def _first_kind_angles(n):
    """θ_j = π(1 + cos(π(j + ½)/n))/2, j < n: the Chebyshev points of the first kind mapped
    to [0, π] (read-only)."""
    theta = 0.5 * np.pi * (1.0 + np.cos(np.pi * (np.arange(n) + 0.5) / n))
    theta.flags.writeable = False
    return theta


#: Fewest Chebyshev points of the inverse tables of ``ppf`` (see :meth:`_Stack.ppf`).
_TABLE_POINTS = 2048


@functools.lru_cache(maxsize=16)
def _table_nodes(n):
    """−1, the n Chebyshev points of the first kind cos(π(j + ½)/n) ascending, and 1: the
    abscissae of the inverse tables of ``ppf`` (read-only)."""
    nodes = np.concatenate([[-1.0], np.cos(np.pi * (np.arange(n) + 0.5) / n)[::-1], [1.0]])
    nodes.flags.writeable = False
    return nodes


@functools.lru_cache(maxsize=64)
def _sin_powers(n, m):
    """sin^{2m}(θ/2) and m sin^{2m−1}(θ/2) cos(θ/2) at :func:`_first_kind_angles` (n): the
    sin map x = a + (b − a) sin^{2m}(θ/2) and its slope for a = 0, b = 1 (:func:`_sin_map`;
    read-only)."""
    theta = _first_kind_angles(n)
    power, slope = _sin_map(theta, 0.0, 1.0, m)
    power.flags.writeable = slope.flags.writeable = False
    return power, slope


def _coefficients(samples):
    """Chebyshev coefficients of each array of samples at the first-kind points:
    ``[(coef, scale, tail), ...]`` (one cosine transform per group of equal sizes)."""
    out = [None] * len(samples)
    for n in set(v.size for v in samples):
        group = [i for i, v in enumerate(samples) if v.size == n]
        coef = dct(np.stack([samples[i] for i in group]), type=2, axis=-1) / n
        coef[:, 0] /= 2.0
        size = np.abs(coef)
        scales, tails = size.max(axis=-1).tolist(), size[:, -max(4, n // 16):].max(axis=-1).tolist()
        for row, i in enumerate(group):
            out[i] = coef[row], scales[row], tails[row]
    return out


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
        values = pdf(np.concatenate([x for _, x, _ in samples]))
        ends = np.cumsum([0] + [theta.size for theta, _, _ in samples]).tolist()
        vals = [values[start:end] * slope
                for start, end, (_, _, slope) in zip(ends[:-1], ends[1:], samples)]
        retry = []
        for (piece, i), (theta, x, _), v, (coef, scale, tail) in zip(
                pending, samples, vals, _coefficients(vals)):
            n = piece.n
            if (tail <= _CHEB_TOL * scale or not math.isfinite(scale)
                    or tail * n * np.pi / 32 <= _ABS_TOL):
                done.append(piece.finish(theta, x, v, coef, scale, trim))
                continue
            hopeful = (tail * tail <= 10 * _CHEB_TOL * scale * scale
                       or tail * tail / scale * n * np.pi / 16 <= 10 * _ABS_TOL)
            if n < max_points and (hopeful or count[i] >= max_pieces):
                piece.n = 2 * n
                retry.append((piece, i))
                continue
            cuts = [float(piece.map(angle)[0]) for angle in _CUT_ANGLES]
            if count[i] >= max_pieces or not piece.a < cuts[0] < cuts[1] < piece.b:
                if n < max_points:                     # cannot cut: double instead
                    piece.n = 2 * n
                    retry.append((piece, i))
                    continue
                piece.converged = False
                done.append(piece.finish(theta, x, v, coef, scale, trim))
                continue
            count[i] += 2
            inner, origin = (("log", piece.origin) if piece.kind == "log"
                             else ("inner", 0.0))
            retry += [(_Piece(piece.a, cuts[0], piece.kind, n0, origin), i),
                      (_Piece(cuts[0], cuts[1], inner, n0, origin), i),
                      (_Piece(cuts[1], piece.b, inner, n0, origin), i)]
        pending = retry
    return sorted(done, key=lambda p: p.a)


def graded_pieces(pieces, features, long_points=256, widths=None, top_points=None):
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
    end (o = lo, f = w). A log piece spanning more than e^35, and the first piece of the
    first interval with a feature within 70° of the positive axis, start at
    ``long_points`` (the first piece of a later interval, after a gap, needs no more than
    the others: measured on AttentionLaw, 107 such pieces of 107 converge at 128 points).
    The top piece ``[o + 0.62(hi − o), hi]`` of a piece graded at a feature starts at
    ``top_points`` when given (a smooth piece up to a square-root edge: measured on
    AttentionLaw, its series has at most 47 terms in 73 such pieces of 73, and 64 points
    converge)."""
    out, last_end, origin = [], None, 0.0
    features = [complex(z) for z in np.ravel(features)]     # a few values: Python scalars
    widths = widths or {}
    for lo, hi, kind, *points in pieces:
        w = widths.get(lo)
        if kind == "inner" and w is not None and _GRADE_PAD * w < _GRADE_BELOW * (hi - lo):
            last_end, f, top = hi, _GRADE_PAD * w, lo + 0.62 * (hi - lo)
            log = (lo + f, top, "log", long_points if math.log((top - lo) / f) > _LONG_LOG
                   else None, lo)
            out += [(lo, lo + f, kind), log, (top, hi, "inner")]
            continue
        leading = kind != "inner" and last_end is None   # the first interval's first piece
        if kind != "inner":                      # the first piece of a support interval
            origin = lo
            near = features if leading else [complex(lo - last_end)]
        else:
            near = [complex(lo - origin)]
        last_end = hi
        near = [z for z in near if abs(z) > 0]
        distances = [abs(z) for z in near]
        length = hi - origin
        f = _GRADE_PAD * min(distances) if distances else math.inf
        if not (origin + f > lo and f < _GRADE_BELOW * length
                and max(distances) < _GRADE_SPAN * length):
            out.append((lo, hi, kind, *points))
            continue
        top = origin + 0.62 * length
        log = (origin + f, top, "log")
        if math.log((top - origin) / f) > _LONG_LOG:
            log += (long_points,)
        first = (lo, origin + f, kind)
        if leading and any(z.real > 0 and abs(z.imag) < 3 * z.real for z in near):
            first += (long_points,)
        last = (top, hi, "inner") if top_points is None else (top, hi, "inner", top_points)
        out += [first, log, last]
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
        """Variance; a ValueError naming the law if it exceeds the float range."""
        unit, scaled = self._scaled_variance()
        value = unit * unit * scaled
        if not math.isfinite(value):
            raise ValueError(f"the variance of {self!r} is about "
                             f"1e{2 * math.log10(unit) + math.log10(scaled):.0f}, beyond the "
                             "float range; std() is finite")
        return value

    def std(self):
        """Standard deviation."""
        unit, scaled = self._scaled_variance()
        return unit * math.sqrt(scaled)

    def _scaled_variance(self):
        """(unit, variance/unit²), so that a variance beyond the float range has a finite
        standard deviation: in the unit of ``_reference_moments`` where a law has one."""
        unit, ratios = getattr(self, "_reference_moments", lambda: (1.0, []))()
        if len(ratios) >= 2:
            return unit, ratios[1] - ratios[0] ** 2
        try:
            return 1.0, self.moment(2) - self.moment(1) ** 2
        except ValueError:                  # the second moment exceeds the float range
            raise ValueError(f"the variance of {self!r} exceeds the float range (so does "
                             "its second moment)") from None

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
        if ratios:       # Σ_j w_j ρ_j (x_j/scale)^k over the nodes of every piece
            r = np.concatenate([p.x for p in self._pieces]) / scale
            weighted = np.concatenate([p.fejer_values() for p in self._pieces])
        for k, expected in enumerate(ratios, start=1):
            weighted = weighted * r
            got = float(weighted.sum())
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
        lower, upper = self.support()
        stack = self._stack
        # piece j holds start_j < q ≤ start_{j+1}; q beyond every piece (rounding of the
        # masses) gets the top of the last piece, q at or below start_0 (the atom) the bottom
        j = np.searchsorted(stack.start, q, side="left") - 1
        out = np.where(j >= stack.mass.size, stack.b[-1], lower)
        sel = ((j >= 0) & (j < stack.mass.size) & (q < 1)).nonzero()[0]
        if sel.size:
            js = j[sel]
            out[sel] = stack.ppf(q[sel] - stack.start[js], js)
        out[q == 1] = upper
        out[q == 0] = lower
        out[~((q >= 0) & (q <= 1))] = np.nan
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

