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
    mapped as ``"hard23"``, where the CDF then grows like θ³) or ``"inner"`` (an ordinary
    point, see below). Right ends are always soft (square-root), as for every law in this
    package.
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
``√x = √b sin(θ/2)`` when ``a = 0``). With these edge behaviours the integrand
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
Moments without a closed form use the same interpolants (Fejér quadrature).

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
           "KIND_POWER"]

#: Documented domain of the aspect ratio c = ℓ/d_qk of AttentionLaw and ScoreProductLaw
#: (with ``hermite.BETA_MAX`` for β): every law refuses c outside it with a ValueError.
C_MIN, C_MAX = 0.01, 100.0

#: The power m of the CDF map x = a + (b − a) sin^{2m}(θ/2) for each kind of left end.
KIND_POWER = {"soft": 1, "hard": 1, "hard34": 2, "hard23": 3, "hard-sin6": 3, "inner": 1}
_CHEB_TOL = 1e-14
_CUT_ANGLES = (0.25 * np.pi, 0.75 * np.pi)  # a piece that does not converge is cut in three
_ABS_TOL = 1e-16            # a piece whose tail estimate (in mass) is below this is done

#: Largest allowed |total mass − 1| and Chebyshev tail estimate of a built law.
MASS_TOL = 1e-10
#: Largest allowed relative error of the reference moments, by quadrature, of a built law.
MOMENT_TOL = 1e-9


class LawAccuracyError(ValueError):
    """A law cannot meet its stated accuracy at these parameters (the message names the
    parameter that is out of reach). Raised when the law is built, never later."""


class _Piece:
    """One support interval: the Chebyshev series of the CDF in the angle θ.

    Built by :func:`_build_pieces`, which samples the density (``sample``), tests the
    series for convergence (``_coefficients``) and keeps the piece (``finish``)."""

    def __init__(self, a, b, kind, n):
        if kind not in KIND_POWER:
            raise ValueError(f"left_kind must be one of {sorted(KIND_POWER)}; got {kind!r}")
        self.a, self.b, self.kind, self.m = float(a), float(b), kind, KIND_POWER[kind]
        self.n, self.converged = n, True

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
        return self.a + (self.b - self.a) * np.sin(0.5 * theta) ** (2 * self.m)

    def dx_dtheta(self, theta):
        half = 0.5 * theta
        return (self.b - self.a) * self.m * np.sin(half) ** (2 * self.m - 1) * np.cos(half)

    def theta_of_x(self, x):
        r = (x - self.a) / (self.b - self.a)
        if self.m == 1:  # arctan2 keeps full precision at both ends
            return 2.0 * np.arctan2(np.sqrt(x - self.a), np.sqrt(self.b - x))
        r = np.clip(r, 0.0, 1.0)
        m = self.m
        return 2.0 * np.arctan2(r ** (1 / (2 * m)), np.sqrt(1.0 - r ** (1 / m)))

    def cdf(self, x):
        """Mass of [a, x] for a ≤ x ≤ b."""
        return _cheb.chebval(self.theta_of_x(x) * (2 / np.pi) - 1.0, self.cumulative)

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

    def ppf(self, q):
        """x in [a, b] with mass q of [a, x] (0 ≤ q ≤ mass), by bracketed Newton in y.

        Newton runs on ``C(y)^(1/p)`` near the left end and ``(mass − C(y))^(1/3)`` near the
        right end, where ``p`` is the order of contact of the CDF with its end (3 for a soft
        edge, 1 for x^{-1/2}, 2 for x^{-2/3}), so it converges quadratically up to the edges.
        It starts from the cubic Hermite interpolant of the inverse, y(C^(1/p)), on a table
        of C and dC/dy at 16·(series length) Chebyshev points (:meth:`_inverse_table`),
        within ~1e-12 in y, so that one step usually ends it. That first step takes dC/dy
        from the table (linear interpolation, relative error ≲ 1e-5 measured on the
        chapters' laws), which leaves ~1e-12·1e-5 in y: a point is done after it if the step
        is below 1e-11. Later steps sum the derivative series and stop when the step is
        below 1e-9 (quadratic convergence leaves ~1e-18·|C″/C′|). A point is also done when
        the transformed CDF is within its rounding of the target, or its bracket is below
        1e-15.
        """
        grid, table, slope = self._inverse_table()
        p_left = {"soft": 3.0, "hard": 1.0, "hard34": 1.0, "hard23": 2.0,
                  "hard-sin6": 3.0, "inner": 2.0}[self.kind]
        right = q > 0.5 * self.mass
        power = np.where(right, 3.0, p_left)

        def h(c, power, right):  # transformed CDF, increasing in y on both halves
            c = np.clip(c, 0.0, self.mass)
            return np.where(right, -(self.mass - c) ** (1 / power), c ** (1 / power))

        def dh(c, d, power, right):  # d h / d y from C and dC/dy
            dist = np.where(right, self.mass - c, c)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                dh_dc = np.abs(dist) ** (1 / power - 1) / power
                return d * dh_dc, dh_dc

        target = h(q, power, right)
        i = np.clip(np.searchsorted(table, q, side="left"), 1, grid.size - 1)
        lo, hi = grid[i - 1], grid[i]
        h_lo, h_hi = h(table[i - 1], power, right), h(table[i], power, right)
        s_lo, _ = dh(table[i - 1], slope[i - 1], power, right)
        s_hi, _ = dh(table[i], slope[i], power, right)
        width = h_hi - h_lo
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            t = np.clip(np.where(width > 0, (target - h_lo) / width, 0.5), 0.0, 1.0)
            m_lo, m_hi = width / s_lo, width / s_hi   # dy/dt at the two ends
            hermite = (lo * (1 + 2 * t) * (1 - t) ** 2 + m_lo * t * (1 - t) ** 2
                       + hi * t * t * (3 - 2 * t) - m_hi * t * t * (1 - t))
        linear = lo + t * (hi - lo)
        usable = (np.isfinite(hermite) & (s_lo > 0) & (s_hi > 0) & (i > 1)
                  & (i < grid.size - 1))
        # the start is rounded to a grid of 2^-40 (~1e-12, within the interpolant's error), so
        # that neighbouring q start from the same point and differ only by their Newton step:
        # ppf is then as smooth in q as the exact inverse, not jittered by the series' rounding
        y = np.clip(np.round(np.where(usable, hermite, linear) * 2.0 ** 40) / 2.0 ** 40,
                    lo, hi)
        active = np.arange(y.size)          # only the points not yet converged iterate
        below_ulp = np.zeros(y.size)        # the part of the last Newton step that y lost
        for iteration in range(59):
            ya, la, ha = y[active], lo[active], hi[active]
            ra, pa = right[active], power[active]
            c = _cheb.chebval(ya, self.cumulative)
            f = h(c, pa, ra) - target[active]
            la, ha = np.where(f < 0, ya, la), np.where(f < 0, ha, ya)
            d = (np.interp(ya, grid, slope) if iteration == 0
                 else _cheb.chebval(ya, self.density))
            dhy, dh_dc = dh(c, d, pa, ra)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                step = -f / dhy
                y_new = ya + step
                # the rounding of the series (~1e-14 of the mass), seen through the transform
                noise = 1e-14 * self.mass * dh_dc
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
        x = self.x_of_theta(theta) + self.dx_dtheta(theta) * (0.5 * np.pi) * below_ulp
        return np.clip(x, self.a, self.b)

    def integrate(self, func):
        """∫ func(x) ρ(x) dx over the interval (Fejér's first rule on the stored nodes)."""
        vals = func(self.x_of_theta(self.nodes)) * self.values
        return float(np.dot(_fejer_weights(self.nodes.size), vals)) * np.pi / 2


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
    pending = [(_Piece(a, b, kind, n0), i) for i, (a, b, kind) in enumerate(intervals)]
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
            retry += [(_Piece(piece.a, cuts[0], piece.kind, n0), i),
                      (_Piece(cuts[0], cuts[1], "inner", n0), i),
                      (_Piece(cuts[1], piece.b, "inner", n0), i)]
        pending = retry
    return sorted(done, key=lambda p: p.a)


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
        for a, b, _ in self._intervals():
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
        for a, b, kind in self._intervals():
            inside |= (x > a) & (x < b)
            if kind == "inner":
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
        out = np.where(x >= 0, self._atom, 0.0)
        for p in self._pieces:
            out = out + np.where(x >= p.b, p.mass, 0.0)
            inside = (x > p.a) & (x < p.b)
            if inside.any():
                out[inside] += p.cdf(x[inside])
        out = np.clip(out, 0.0, 1.0)
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
        start = self._atom
        for p in self._pieces:
            sel = valid & (q > start) & (q <= start + p.mass)
            if sel.any():
                out[sel] = p.ppf(q[sel] - start)
            start += p.mass
            out[valid & (q > start)] = p.b
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

