"""A law's Chebyshev pieces side by side: ``cdf``, ``ppf`` and the density from the series.

``Stack`` evaluates the pieces of ``build_pieces`` (:mod:`attnspec.laws.chebyshev_pieces`)
for all points of all pieces in one vectorised pass: the series sum (``series_sum``,
block Horner in e^{iφ}), the CDF, the quantile by bracketed Newton in the angle from a
tabulated inverse, and the density as the series' derivative where its error bound allows.
How and why: appendix A2 of the book, "The Chebyshev engine of the laws".
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.fft import dct

from ..freeprob.roots import few_points
from .chebyshev_pieces import (log_map, log_map_inverse, sin2_map_inverse, sin_map,
                               sin_map_inverse)

__all__ = ["Stack", "series_sum"]

#: Order of contact of a piece's CDF with its left end, by kind (C ∝ distance^p): 3 for a
#: soft edge, 1 for x^{-1/2} (and for a "log" piece, whose ends are ordinary points in a
#: map with x′ ≠ 0), 2 for x^{-2/3} and an ordinary point of the sin² map.
_P_LEFT = {"soft": 3.0, "hard": 1.0, "hard34": 1.0, "hard23": 2.0, "hard-sin6": 3.0,
           "inner": 2.0, "log": 1.0}


_CHUNK = 1 << 15
_EPS = np.finfo(float).eps


def series_sum(y, columns, j):
    """Σ_k columns[k, j]·T_k(y) per point (column j: the coefficients of piece j's series,
    zero beyond its length). With w = e^{iφ}, φ = arccos y, it is Re Σ_k c_k w^k
    (T_k(cos φ) = cos kφ), summed by Horner in blocks of m = ⌈√K⌉ powers (K rows): the sums
    inside the blocks by one matrix product per piece, then K/m Horner steps with w^m: ~3√K
    array operations instead of Clenshaw's 3K. As |w| = 1 no step amplifies rounding; the
    rounding of φ and of the powers adds ~ε Σ_k k|c_k| (as would one ulp of y). Measured
    against mpmath on the laws' series (geometrically decaying): within 4e-16 of the exact
    sum (Clenshaw's recurrence: 2e-16). For a few points (``few_points``), the terms
    cos(kφ) themselves; more than ``_CHUNK`` points are summed in chunks."""
    size, pieces = columns.shape
    if y.size > _CHUNK:                 # bounded memory (~√K complex values per point)
        return np.concatenate([series_sum(y[i:i + _CHUNK], columns, j[i:i + _CHUNK])
                               for i in range(0, y.size, _CHUNK)])
    phi = np.arccos(np.minimum(np.maximum(y, -1.0), 1.0))
    if few_points(y.size):              # a few points (later Newton steps)
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


class Stack:
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
        # sum, ε Σ_k k|c_k| (see series_sum)
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
            return sin_map(theta, self.a[j], self.b[j], self.m[j])
        if self.a.size == 1:
            return log_map(theta, self.a[0], self.origin[0], self.rate[0])
        x, slope = np.empty_like(theta), np.empty_like(theta)
        log = self.log[j]
        jl, js = j[log], j[~log]
        x[log], slope[log] = log_map(theta[log], self.a[jl], self.origin[jl], self.rate[jl])
        x[~log], slope[~log] = sin_map(theta[~log], self.a[js], self.b[js], self.m[js])
        return x, slope

    def theta_of_x(self, x, j):
        """θ(x) of each point's piece j (the inverse maps; one piece: without masks)."""
        if self.a.size == 1:
            a, b, m = self.a[0], self.b[0], self.m[0]
            if self.log[0]:
                return log_map_inverse(x, a, self.origin[0], self.rate[0])
            return sin2_map_inverse(x, a, b) if m == 1 else sin_map_inverse(x, a, b, m)
        out = np.empty_like(x)
        a, b, m, log = self.a[j], self.b[j], self.m[j], self.log[j]
        if log.any():
            jl = j[log]
            out[log] = log_map_inverse(x[log], a[log], self.origin[jl], self.rate[jl])
        sq = (m == 1) & ~log
        if sq.any():
            out[sq] = sin2_map_inverse(x[sq], a[sq], b[sq])
        power = (m != 1) & ~log
        if power.any():
            out[power] = sin_map_inverse(x[power], a[power], b[power], m[power])
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
            slope = series_sum(theta * (2 / np.pi) - 1.0, self.density, ji)
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
            out[inside] += series_sum(y, self.cumulative, ji)
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
            dens[:, 0] = np.where(np.arange(size) % 2 == 0, 1.0, -1.0) @ self.density  # T_k(−1)
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
            h_c, g_c = half.transform(series_sum(y, self.cumulative, j))
            d = table_slope * (y - lo) + d_lo
            d = np.where(np.isfinite(d), d, d_lo)
            y, lo, hi, below_ulp, done = _bracketed_step(y, lo, hi, h_c - target, d * g_c,
                                                         g_c * mass, 1e-11)
            active = (~done).nonzero()[0]      # only the points not yet converged iterate
            for _ in range(58):
                if active.size == 0:
                    break
                ya, ja = y[active], j[active]
                h_c, g_c = half.at(active).transform(series_sum(ya, self.cumulative, ja))
                d = series_sum(ya, self.density, ja)
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
    """The transformed CDF of :meth:`Stack.ppf` at each point: h = C^(1/p) on the left
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
    """One bracketed Newton step of :meth:`Stack.ppf` on the transformed CDF h(y) − target
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


#: Fewest Chebyshev points of the inverse tables of ``ppf`` (see :meth:`Stack.ppf`).
_TABLE_POINTS = 2048


@functools.lru_cache(maxsize=16)
def _table_nodes(n):
    """−1, the n Chebyshev points of the first kind cos(π(j + ½)/n) ascending, and 1: the
    abscissae of the inverse tables of ``ppf`` (read-only)."""
    nodes = np.concatenate([[-1.0], np.cos(np.pi * (np.arange(n) + 0.5) / n)[::-1], [1.0]])
    nodes.flags.writeable = False
    return nodes
