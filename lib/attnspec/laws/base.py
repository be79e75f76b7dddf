"""The law classes: ``SpectralLaw`` (scipy-like laws of squared singular values) and
``LawSummaries`` (mean, var, std, median, interval, rvs from ``moment`` and ``ppf``).

How to write a law (A4 §3, §6)
-----------------------------------------
A law of squared singular values lives on ``[0, ∞)``: an absolutely continuous part on one or
more intervals, plus possibly an atom at 0. Subclass ``SpectralLaw``, validate and store
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

``cdf``, ``ppf`` and the quadrature of moments use the Chebyshev series of the CDF built by
:mod:`attnspec.laws.chebyshev_pieces` and evaluated by :mod:`attnspec.laws.chebyshev_stack`
(how and why: appendix A2, "The Chebyshev engine of the laws"). Accuracy contract: when a law
is built, ``_check_accuracy`` computes the total mass and the reference moments by this
quadrature and raises ``LawAccuracyError`` if the mass is off by more than ``MASS_TOL``, a
moment by more than ``MOMENT_TOL`` (relative), or the series' tail estimate exceeds
``MASS_TOL``. So a law that exists meets them, and the clipping of ``cdf`` to ``[0, 1]``
only removes rounding below ``MASS_TOL``.

Public methods check their inputs: ``x``/``q`` must be real numbers or arrays of them
(``None``, strings and complex values raise a ``TypeError`` naming ``x`` or ``q``); ``size``
of ``rvs`` must be ``None``, a non-negative integer or a tuple of them.
"""

from __future__ import annotations

import abc
import math

import numpy as np

from .._validation import (as_float_array, check_float, check_int, check_rng, check_size,
                           scalar_or_array)
from .chebyshev_pieces import build_pieces
from .chebyshev_stack import Stack

__all__ = ["SpectralLaw", "LawSummaries", "LawAccuracyError", "MASS_TOL", "MOMENT_TOL",
           "C_MIN", "C_MAX"]

#: Documented domain of the aspect ratio c = ℓ/d_qk of AttentionLaw and ScoreProductLaw
#: (with ``hermite.BETA_MAX`` for β): every law refuses c outside it with a ValueError.
C_MIN, C_MAX = 0.01, 100.0

#: Largest allowed |total mass − 1| and Chebyshev tail estimate of a built law.
MASS_TOL = 1e-10
#: Largest allowed relative error of the reference moments, by quadrature, of a built law.
MOMENT_TOL = 1e-9


class LawAccuracyError(ValueError):
    """A law cannot meet its stated accuracy at these parameters (the message names the
    parameter that is out of reach). Raised when the law is built, never later."""


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
            self._pieces_cache = build_pieces(self._intervals(), self._pdf,
                                               self._cheb_points, self._max_pieces,
                                               self._cheb_trim)
        return self._pieces_cache

    @property
    def _stack(self):
        stack = getattr(self, "_stack_cache", None)
        if stack is None or stack.pieces is not self._pieces:
            self._stack_cache = Stack(self._pieces, self._atom)
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

    def expect(self, func):
        """E f(X) = atom·f(0) + ∫ f(x) ρ(x) dx, by Fejér quadrature on the nodes of the law's
        Chebyshev pieces (the build check's quadrature); ``func`` maps an array of points to
        an array of values."""
        mass = float(sum(p.integrate(func) for p in self._pieces))
        return mass + self._atom * float(func(np.zeros(1))[0]) if self._atom else mass

    def moment(self, k):
        """k-th raw moment E[x^k] (k a non-negative integer); a ``ValueError`` naming ``k``
        if it exceeds the float range."""
        k = check_int("k", k, min=0)
        if k == 0:
            return 1.0
        try:
            exact = self._moment(k)
            value = (float(exact) if exact is not None
                     else self.expect(lambda x: x ** k))
        except OverflowError:
            value = math.inf
        if not math.isfinite(value):
            raise ValueError(f"k={k}: the moment of order {k} of {self!r} exceeds the float "
                             "range; use a smaller k")
        return value

