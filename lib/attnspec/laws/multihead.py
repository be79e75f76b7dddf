r"""Limiting laws of the multi-head attention output, by free probability (A4 §6).

The squared singular values of :math:`Y = \sqrt{\ell/d}\,O^\perp` (:func:`attnspec.multihead_output`)
converge to a deterministic law.  This module computes it numerically, to the accuracy its
build check states, for a number of heads H, widths d_head, d_value, ratio ℓ/d and weight
tie; near-degenerate shapes it cannot resolve raise :class:`UnresolvedLawError` (A1, "What is
exact and what is not").  The law is the end of a chain of free convolutions (derivation: chapter A1, ``chapters/A1_multihead_law_derivation.md``)::

    untied:  μ_Y = D_{1/H}( ν∞(β, ℓ/d_h) ⊠ MP(ℓ/d_v) )^{⊞H} ⊠ MP(ℓ/d)
    kv tie:  μ_Y = D_{1/H}( law of G Σ Gᵀ/d_h )^{⊞H} ⊠ MP(ℓ/d),   Σ = (β²ℓ/d_h) Ĉ² + α² Ĉ,
             Ĉ ~ MP(d_h/ℓ) (the keys' Gram matrix KᵀK/ℓ),
             G an ℓ×d_h Gaussian independent of Ĉ

with MP(r) the Marchenko–Pastur law of mean 1 and ratio r.  Across-head sharing of keys or
values (``mqa``, ``gqa``, ``shared_values``, ``cross_kv``) gives the untied law (except
``cross_kv`` with H = 1, which is the kv tie: V₁ = K_{(1 mod 1)+1} = K₁).  The output tied to
the keys (``output_keys``, a within-head tie) is also given the untied law: argued in the
limit for H = 1 (A1, step 2; chapter 7), supported by Monte Carlo only for H ≥ 2
(:data:`attnspec.sampling.ties.UNTIED_LAW_TIES`);
``shared_pattern`` is the untied law with H → 1 and d_v → H d_v (formula (c) of A4 §6).
A4 §6 is this companion's reconstruction from paper 2's abstract; the full law goes beyond
the papers.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import as_float_array
from ..freeprob.roots import newton_converged
from .base import LawAccuracyError, SpectralLaw
from .chebyshev_pieces import KIND_POWER, sin_map_inverse
from .multihead_moments import (closed_form_moments, multihead_chain, scaled_moments,
                                unscaled_moment)
from .multihead_starts import interpolate, log_near_zero, on_axis, sign_change, toward_limit

__all__ = ["MultiHeadLaw", "UnresolvedLawError"]


class UnresolvedLawError(LawAccuracyError):
    """The solver cannot resolve this configuration's density to its stated accuracy.

    Raised instead of returning a wrong curve (near-degenerate edges, e.g. ℓ = d − 1, or very
    small β); the message names the configuration (ell, d, heads, beta, ...).  The moments stay
    exact through :func:`multihead_moments`.  A :class:`~attnspec.laws.base.LawAccuracyError`
    (hence a ``ValueError``), raised when the law is built.
    """


#: Below this s = e^{β²} − 1 the density, of order 1/s near its edges, may exceed the float range
_UNIT_OVERFLOWS = 1e16 / np.finfo(float).max

_ADVICE = ("; use multihead_moments or a Monte Carlo sample of the Gaussian-equivalent model "
           "instead")
_EXPONENT_KIND = {0.5: "hard", 2 / 3: "hard23", 0.75: "hard34"}
_KIND_EXPONENT = {kind: e for e, kind in _EXPONENT_KIND.items()}
_SERIES_RTOL = 1e-11  # the density from the CDF series where its error bound is below this
_TAIL_START = 1e-12   # below this fraction of the right edge a hard edge uses its series


def _tail_points():
    """Where the hard-edge series is fitted, relative to the right edge."""
    return _TAIL_START * 10.0 ** np.array([0.0, 2 / 3, 4 / 3, 2.0])


def _merge_cuts(pieces):
    """Undo :func:`_split_near_zero`: the support intervals from the CDF pieces."""
    out = []
    for a, b, kind in pieces:
        if out and out[-1][1] == a:
            out[-1] = (out[-1][0], b, out[-1][2])
        else:
            out.append((a, b, kind))
    return out


def _split_near_zero(a, b, kind):
    """A soft left edge very close to 0 (a < 1e-3 b) is followed by an x^{-1/2}-like rise:
    split [a, b] at a·100^k so that each CDF piece sees one scale.  A hard edge at 0 is
    split at b/10: the x^{-e} rise (which may change exponent above 0, e.g. from x^{-3/4} to
    x^{-1/2}) and the bulk get a piece each."""
    if kind != "soft":
        return [(a, 0.1 * b, kind), (0.1 * b, b, kind)]
    if not 0 < a < 1e-3 * b:
        return [(a, b, kind)]
    cuts = [a]
    while cuts[-1] * 100 < 0.1 * b:
        cuts.append(cuts[-1] * 100)
    cuts.append(b)
    return [(lo, hi, "soft") for lo, hi in zip(cuts[:-1], cuts[1:])]


class MultiHeadLaw(SpectralLaw):
    r"""Limiting law of the squared singular values of the multi-head output (A4 §6).

    Parameters
    ----------
    ell, d, heads, beta, tie, d_head, d_value, groups
        As in :func:`attnspec.multihead_output` (validated the same way, before any
        computation): 2 ≤ ℓ ≤ d, H ≥ 1 dividing d under the standard allocation
        d_head = d_value = d/H, BETA_MIN ≤ β ≤ BETA_MAX, ``tie`` one of :data:`attnspec.TIES`.
        ``output_keys`` gets the untied law (argued for H = 1 in A1, step 2; Monte Carlo only
        for H ≥ 2; :data:`attnspec.sampling.ties.UNTIED_LAW_TIES`).

    Notes
    -----
    With ν∞(β, c) the single-head law (A4 §3) and MP(r) the Marchenko–Pastur law of mean 1
    and ratio r, all in ℓ-dimensional normalisation,

    .. math::

        \mu_Y = D_{1/H}\big(\mu_{\rm head}\big)^{\boxplus H} \boxtimes {\rm MP}(\ell/d), \qquad
        \mu_{\rm head} = \nu_\infty(\beta, \ell/d_h) \boxtimes {\rm MP}(\ell/d_v)

    for independent heads and every across-head tie (``shared_pattern``: H → 1, d_v → H d_v);
    the key–value tie's :math:`\mu_{\rm head}`: chapter A1, "Step 4: the key–value tie".

    Algorithm, accuracy and the shapes out of reach (UnresolvedLawError): chapter A1 ("The
    backward map and the algorithm", "Verification", "What is exact and what is not"); every
    build checks the mass and m₁, m₂ (``MASS_TOL``, ``MOMENT_TOL``).

    Raises
    ------
    ValueError
        For invalid parameters (named in the message), before any computation; β outside
        [BETA_MIN, BETA_MAX] included.
    UnresolvedLawError
        (a ``LawAccuracyError``, hence a ``ValueError``) if the build check fails or an edge
        is not resolved; the message names the configuration.  Moments stay available
        through :func:`multihead_moments`.

    Examples
    --------
    >>> import attnspec
    >>> law = attnspec.MultiHeadLaw(500, 1000, 4, 1.0)
    >>> round(law.mean(), 4), round(float(law.cdf(law.ppf(0.3))), 6)
    (1.7183, 0.3)
    """

    #: the CDF series starts at 256 Chebyshev points (most laws need 128–1024: one round of
    #: solves instead of up to five); a piece that needs more than 2048 (a hard x^{-3/4} edge
    #: that turns into x^{-1/2} above it, small ℓ) is cut in three, graded towards its ends
    _cheb_points, _max_pieces = (256, 2048), 3

    def __init__(self, ell, d, heads, beta, tie="none", d_head=None, d_value=None, groups=None):
        self._chain, self._atom, self._par = multihead_chain(ell, d, heads, beta, tie, d_head,
                                                             d_value, groups, unit=None)
        self._unit = self._chain.unit             # s: the solver works with the law of x/s
        self._scale = float(closed_form_moments(self._chain)[0])   # m₁/s
        self._known = (np.empty(0), np.empty(0, complex))   # solved (x/s, log p), sorted
        self._tail = None                                    # hard-edge series near 0
        self._diverges = False                               # p → ∞ at that hard edge
        self._pieces_list = None
        found = self._find_intervals()                       # in units of s
        self._true_intervals = _merge_cuts(found)
        self._pieces_list = found
        super().__init__()
        self._check_accuracy()

    def _check_accuracy(self):
        """The base check (:meth:`SpectralLaw._check_accuracy`: mass 1 − atom, CDF series
        tail, and the first two moments of A4 §6, closed forms (a)–(c), to 1e-9
        relative), raising UnresolvedLawError naming the configuration."""
        try:
            super()._check_accuracy(culprit=self._culprit())
        except LawAccuracyError as error:
            raise UnresolvedLawError(f"{error}{_ADVICE}") from error

    def _reference_moments(self):
        return self._unit, closed_form_moments(self._chain)

    @property
    def chain(self):
        """The law's backward map z(p) (:class:`attnspec.freeprob.chains.Chain`, chapter A1,
        "The backward map and the algorithm"), in units of ``chain.unit`` = s = e^{β²} − 1."""
        return self._chain

    # ---- hooks of SpectralLaw ---------------------------------------------------------------
    def _params(self):
        return {k: v for k, v in self._par.items() if v is not None}

    def _support(self):
        return self._pieces_list[0][0] * self._unit, self._pieces_list[-1][1] * self._unit

    def _intervals(self):
        # consecutive pieces of one support interval (cut near 0): "inner" left ends
        out = []
        for a, b, kind in self._pieces_list:
            inner = bool(out) and out[-1][1] == a * self._unit
            out.append((a * self._unit, b * self._unit, "inner" if inner else kind))
        return out

    def _pdf(self, x):
        return self.density(x)

    def _moment(self, k):
        return unscaled_moment(scaled_moments(self._chain, k, "k")[k - 1], k, self._unit,
                               self._par)

    # ---- the solver --------------------------------------------------------------------------
    def cauchy(self, x):
        """Cauchy transform G_Y(x + i0) on the real axis (complex array); infinite where it
        exceeds the float range (see :meth:`density`)."""
        x = as_float_array(x)
        with np.errstate(over="ignore"):            # x/s and G/s: IEEE inf beyond the range
            return self._cauchy(x / self._unit) / self._unit

    def density(self, x):
        """Density −Im G_Y(x + i0)/π at any real x (no support bookkeeping; vectorised): from
        the CDF series inside the support once the law is built, where its error bound allows
        (see the class's Notes), else by Newton's method.

        Computed as ρ_s(x/s)/s, with ρ_s the density of x/s (s = e^{β²} − 1): inf where the
        true density exceeds the float range. That happens near the edges for s below ~1e-290
        (β ≲ 1e-145, near BETA_MIN), where ρ is of order 1/s, and the build then refuses such a
        law by name (:class:`UnresolvedLawError`); and, at a hard edge at 0 where ρ ~ x^{-e},
        at subnormal x for small s (e.g. ``pdf(5e-324)`` at β = 1e-140, where ρ ≈ 1.6e309)."""
        x = as_float_array(x)
        with np.errstate(over="ignore"):            # x/s and ρ_s/s: IEEE inf beyond the range
            return self._rho(x / self._unit) / self._unit

    def _cauchy(self, x):
        """G_Y(x + i0) in units of s (x/s, G·s).

        Each point starts from the solutions already found (:meth:`_remember`); points below
        the smallest one from guesses extrapolated beyond it, in the same Newton pass, and
        those that this leaves a decade at a time downwards, each decade starting from the one
        above (continuation towards a hard edge at 0; stepping stones fill empty decades)."""
        return self._solve(np.asarray(x, dtype=float))[0]

    def _solve(self, x, fallback=True):
        """G_Y(x + i0) and p at real x (see :meth:`cauchy`); remembers the solutions.  With
        ``fallback=False`` points below the known ones that Newton's method does not
        resolve get NaN instead of the η-ladder.

        The first pass solves every point at once, those below the known ones from guesses
        extrapolated beyond them (:meth:`_guess`) with :meth:`_leap_root` and without the
        η-ladder; the ones it leaves go a decade at a time."""
        G = np.full(x.shape, complex(np.nan, np.nan))
        p = np.full(x.shape, complex(np.nan, np.nan))
        known_x = self._known[0]
        low = (x > 0) & (x < known_x[0]) if known_x.size else np.zeros(x.shape, bool)
        todo = np.isfinite(x)                         # NaN and ±inf give NaN
        root = np.where(low, self._leap_root() if low.any() else 1, self._root(x))
        ladder = ~low & (fallback | (x > 0) | (known_x.size == 0))   # low: NaN if Newton fails
        while True:
            if todo.any():
                G[todo], p[todo] = self._chain.cauchy_on_axis(
                    x[todo], self._scale, guess=self._guess(x[todo]), fallback=ladder[todo],
                    root=root[todo])
                self._remember(x[todo], p[todo])
                low &= ~np.isfinite(G)
            if not low.any():
                return G, p
            floor = 0.1 * self._known[0][0]           # the next decade down
            todo = low & (x >= floor)
            if not todo.any():                        # a stepping stone one decade down
                self._solve(np.array([floor]), fallback)
                if self._known[0][0] < floor * 1.000001:
                    continue
                todo = low                            # the stone failed: solve the rest as is
            low &= ~todo
            root = np.broadcast_to(self._root(x), x.shape)
            ladder = np.full(x.shape, fallback or todo.any() and x[todo].min() >= self._known[0][0])

    def _leap_root(self):
        """The root of z that Newton's method solves for (Chain.solve_from) at points below
        every remembered solution: towards a hard edge at 0 (density > 0 at the lowest one,
        where p is off the real and the imaginary axis, see :func:`on_axis`) √z, faster at
        z ≈ C(p − p₀)^k; below a soft edge (p on an axis) z itself."""
        angle = self._known[1][0].imag / (0.5 * np.pi)
        return 2 if abs(angle - round(angle)) > 1e-8 else 1

    def _root(self, x):
        """Which root of z Newton's method solves for (Chain.solve_from) when the density has
        a hard edge at 0, ρ ~ x^{-e}, where z ≈ C(p − p₀)^k with k = 1/(1 − e): z^{1/k}
        (quadratic convergence) below 1e-4 of the right edge, √z below 1e-2 (k ≥ 2: never
        overshoots), z elsewhere and without a hard edge."""
        if self._tail is None:
            return 1
        b, k = self._tail[0] / _TAIL_START, round(1 / (1 - self._tail[1]))
        return np.where(x < 1e-4 * b, k, np.where(x < 1e-2 * b, 2, 1))

    def _coordinate(self, x):
        """The variable in which log p is interpolated: log x while the support is unknown;
        then Σ_k θ_k(x), θ_k the angle of the CDF map of support interval k (x = a + (b − a)
        sin^{2m}(θ/2)), in which p is analytic up to the edges (p − p_e ∝ √(x − a) ∝ θ);
        at a hard edge at 0 where p → ∞ (a power of x, so of θ), log θ near 0
        (:func:`log_near_zero`)."""
        if self._pieces_list is None:
            return np.log(x)
        c = np.zeros(np.shape(x))
        for k, (a, b, kind) in enumerate(self._true_intervals):
            m = KIND_POWER[kind]
            r = (np.clip(x, a, b) - a) / (b - a)
            theta = sin_map_inverse(r, 0.0, 1.0, m)
            c += log_near_zero(theta, m) if k == 0 and self._diverges else theta
            c += np.pi * (x > b)
        return c

    def _guess(self, x):
        """Starting p for each x from the remembered solutions (NaN if there are none)."""
        known_x, known_lp = self._known
        if not known_x.size:
            return None
        ck, c = self._coordinate(known_x), self._coordinate(np.maximum(x, 1e-300))
        if self._pieces_list is not None:     # points in the closed support intervals only
            group = np.full(known_x.shape, -1)
            for k, (a, b, _) in enumerate(self._true_intervals):
                group[(known_x >= a) & (known_x <= b)] = k
            keep = group >= 0
            ck, known_lp, group = ck[keep], known_lp[keep], group[keep]
            if not ck.size:
                return None
            # p is analytic in the angle inside each interval: cubic interpolation
            return np.exp(interpolate(c, ck, known_lp, group))
        lp = np.interp(c, ck, known_lp.real) + 1j * np.interp(c, ck, known_lp.imag)
        below = c < ck[0]
        if self._pieces_list is None and below.any() and ck.size > 1:
            # towards 0 (one decade at a time, see _solve): where p → ∞ as a power law
            # p ∝ x^{-1/k} (|slope| ≥ 1/4 in log-log), along the last chord; where p tends to a
            # finite p₀ (small slope) on the ray of p − p₀ ∝ x^{1/k} (toward_limit), else the
            # nearest solution, from which Newton approaches the root along its ray (a chord
            # would overshoot p₀ towards another root)
            slope = self._lowest_slope()
            if abs(slope) > 0.2:
                lp[below] = known_lp[0] + slope * (c[below] - ck[0])
            elif ck.size > 2:       # p → p₀: along the ray of its power law, where one fits
                toward = toward_limit(known_x[:3], np.exp(known_lp[:3]),
                                       np.maximum(x, 0.0)[below])
                if toward is not None:
                    p = np.exp(lp)
                    p[below] = toward
                    return p
        return np.exp(lp)

    def _lowest_slope(self):
        """d log p/d log x between the two lowest remembered solutions (|·| > 0.2: p → ∞
        as a power of x towards 0)."""
        (x0, x1), (lp0, lp1) = self._known[0][:2], self._known[1][:2]
        return (lp1 - lp0) / (np.log(x1) - np.log(x0))

    def _remember(self, x, p):
        """Add solved points (x > 0) to the table of starting guesses (sorted by x)."""
        keep = (x > 0) & np.isfinite(p) & (p != 0)
        if not keep.any():
            return
        lp = np.log(p[keep])
        lp = np.where(lp.imag > np.pi / 2, lp - 2j * np.pi, lp)   # p on the negative axis: −π
        xs = np.concatenate([self._known[0], x[keep]])
        lp = np.concatenate([self._known[1], lp])
        xs, idx = np.unique(xs, return_index=True)
        self._known = (xs, lp[idx])

    def _rho(self, x):
        """The density in units of s (of x/s), from :meth:`_cauchy`.

        Below ``_TAIL_START``·(right edge) at a hard edge ρ ~ x^{-e} at 0 (e = 1/2, 2/3, 3/4,
        i.e. z(p) − 0 has a zero of order k = 1/(1 − e) in p), where rounding of z limits the
        solver, the density is the series ρ(x) = x^{-e} Σ_{j<4} c_j x^{j(1−e)} fitted at four
        points x₀·10^{0, 2/3, 4/3, 2}, x₀ = _TAIL_START·b; its truncation error is
        O((x₀/b)^{4(1−e)}) relative, on a region holding O((x₀/b)^{1−e}) of the mass.  Outside
        [0, right edge] the density is 0 (once the support is known); inside a piece of the
        built CDF series, the series' derivative where its error bound is below
        ``_SERIES_RTOL`` of the density (``Stack.pdf`` of :mod:`attnspec.laws.chebyshev_stack`)."""
        x = np.asarray(x, dtype=float)
        out = np.zeros(x.shape)
        solve = np.ones(x.shape, bool) if self._pieces_list is None else (
            (x >= 0) & (x <= self._pieces_list[-1][1]) | np.isnan(x))   # no mass outside
        if self._tail is not None:
            x0, e, coef = self._tail
            small = (x > 0) & (x < x0)
            xs = x[small]
            out[small] = xs ** -e * np.polynomial.polynomial.polyval((xs / x0) ** (1 - e), coef)
            solve &= ~small
        if solve.any() and getattr(self, "_pieces_cache", None) is not None:
            rho, ok = self._stack.pdf(x[solve] * self._unit, _SERIES_RTOL)   # the built CDF
            series = np.zeros(x.shape, bool)                            # series, where its
            series[solve] = ok                                          # bound allows
            out[series] = rho[ok] * self._unit
            solve &= ~series
        out[solve] = np.maximum(-self._cauchy(x[solve]).imag / np.pi, 0.0)
        out[np.isnan(x)] = np.nan
        return out

    def _fit_tail(self, b, kind, rho):
        """The hard-edge series of :meth:`density` (see there), from the density ``rho`` at
        ``b·_tail_points()``."""
        e = _KIND_EXPONENT[kind]
        x0 = _TAIL_START * b
        xs = b * _tail_points()
        t = (xs / x0) ** (1 - e)
        coef = np.linalg.solve(np.vander(t, 4, increasing=True), rho * xs ** e)
        self._tail = (x0, e, coef)

    def _z_derivatives(self, p, h=1e-6):
        """z(p), z′(p) and z″(p) at one point p (Python complex arithmetic, :meth:`Chain.at`;
        z″ by a central difference of the exact z′)."""
        step = h * abs(p)
        z, dz = self._chain.at(p)[:2]
        return z, dz, (self._chain.at(p + step)[1] - self._chain.at(p - step)[1]) / (2 * step)

    def _critical_edge(self, p):
        """Refine an edge: Newton on z′(p) = 0 from p; returns the real edge z(p*) and |Im z|.
        Stops by :func:`~attnspec.freeprob.roots.newton_converged` with tol 1e-7 (a relative
        step s ≤ 1e-7, or a smaller predicted error): z is stationary at p*, so the error
        left in p, O(s²) (O(s) where z″(p*) = 0 too), moves z by O(s⁴) (O(s³)); z(p*) is
        z(p) − z′(p)·s/2 at the last p evaluated (Taylor, exact to O(z‴s³), as z″s = z′).
        One point in Python complex arithmetic; where that divides by zero or overflows
        (numpy's inf or NaN) the edge is NaN, as an unresolved one."""
        p, previous = complex(p), 0.0
        try:
            for _ in range(60):
                z, d1, d2 = self._z_derivatives(p)
                step = d1 / d2
                p = p - step
                z = z - 0.5 * d1 * step
                size = abs(step) / abs(p)
                if math.isnan(size) or newton_converged(size, previous, 1e-7):
                    break
                previous = size
        except (ZeroDivisionError, OverflowError, ValueError):
            z = complex(np.nan, np.nan)
        if abs(z.imag) < 1e-8 * abs(z) and z.real > 0:
            self._remember(np.array([z.real]), np.array([p]))   # the edge: a starting point
        return float(z.real), float(abs(z.imag))

    def _right_edge(self):
        """The right edge: the first critical point of z along real p from 0+ (z decreasing
        from +∞), by a scan of 600 real p over four decades from the large-z guess, extended
        four decades at a time (at most three times) while z′ < 0 on all of it, then Newton's
        method on z′ from the zero of its chord (:meth:`_critical_edge`)."""
        p = self._chain.initial(1e4 * self._scale + 0j).real * np.geomspace(1, 1e4, 600)
        for extension in range(4):
            with np.errstate(all="ignore"):
                J = self._chain.evaluate(p + 0j)
            bad = ((J.dz.real >= 0) | (np.abs(J.z.imag) > 1e-12 * np.abs(J.z))
                   | ~np.isfinite(J.z))
            if bad.any() or extension == 3:
                break
            p = p[-1] * np.geomspace(1, 1e4, 600)
        i = int(np.argmax(bad)) if bad.any() else p.size - 1
        b, err = self._critical_edge(sign_change(p, J.dz.real, i))
        if not (err < 1e-8 * b and 0 < b <= J.z[: i + 1].real.min() * (1 + 1e-12)):
            raise UnresolvedLawError(f"{self!r}: the right edge of the support is not "
                                     f"resolved: {self._out_of_reach()}")
        return b

    def _find_intervals(self):
        """Support intervals [(a, b, left_kind), ...] from a density scan refined at edges."""
        b = self._right_edge()
        # seeds by the η-ladder away from 0, then the scan from the seeds (squared spacing
        # resolves the region near 0)
        u = (np.arange(1, 49) - 0.5) / 48
        seeds = b * u * u
        G, p = self._chain.robust(seeds, self._scale, 0.0, near_zero=0.0)
        self._remember(seeds, p)
        u = (np.arange(1, 601) - 0.5) / 600
        x = b * u * u
        # below the seeds, points Newton's method cannot reach from above are left out of the
        # scan (NaN): an interval missed there shows as a mass defect at the check in __init__
        G, p = self._solve(x, fallback=False)
        resolved = np.isfinite(G)
        x, G, p = x[resolved], G[resolved], p[resolved]
        rho = -G.imag / np.pi
        inside = rho * b > 1e-9
        if not inside.any():
            raise UnresolvedLawError(f"{self!r}: the density scan found no support: "
                                     f"{self._out_of_reach()}")
        starts = np.flatnonzero(inside & ~np.r_[False, inside[:-1]])
        stops = np.flatnonzero(inside & ~np.r_[inside[1:], False])
        intervals = []
        for j, (i0, i1) in enumerate(zip(starts, stops)):
            left, kind = 0.0, "soft"
            if i0 == 0 and self._atom == 0.0:
                rho_tail = self._rho(b * _tail_points())
                kind = self._hard_kind(rho_tail)
                if kind != "soft":
                    self._fit_tail(b, kind, rho_tail)
                    self._diverges = bool(abs(self._lowest_slope()) > 0.2)   # at the tail
            if kind == "soft":
                left, err = self._critical_edge(on_axis(p[i0], p[i0 - 1] if i0 else np.nan))
                lo = x[i0 - 1] if i0 > 0 else 0.0
                if not (lo - 1e-9 * b <= left <= x[i0] and err < 1e-8 * b):
                    left = self._bisect_edge(lo, x[i0], b)
            if j == len(starts) - 1:
                right = b
            else:
                right, err = self._critical_edge(on_axis(p[i1], p[i1 + 1]))
                if not (x[i1] <= right <= x[i1 + 1] and err < 1e-8 * b):
                    right = self._bisect_edge(x[i1 + 1], x[i1], b)
            intervals.extend(_split_near_zero(left, right, kind))
        return intervals

    def _hard_kind(self, rho_tail):
        """Left edge at 0: classify ρ ~ x^{-e} by e from two tiny points two decades apart
        (x₀ and 100 x₀ of ``_tail_points``, where ``rho_tail`` is the density)."""
        rho = rho_tail[[3, 0]]
        if not np.all(rho > 0):
            return "soft"
        e = np.log(rho[1] / rho[0]) / np.log(100.0)
        if e < 0.25:
            return "soft"
        best = min(_EXPONENT_KIND, key=lambda k: abs(k - e))
        if abs(best - e) > 0.05:
            raise UnresolvedLawError(f"{self!r}: density exponent {e:.3f} at 0 not supported: "
                                     f"{self._out_of_reach()}")
        return _EXPONENT_KIND[best]

    def _culprit(self):
        """The parameter that puts this configuration out of the solver's reach."""
        par = self._par
        if self._unit < _UNIT_OVERFLOWS:
            return (f"beta={par['beta']!r} (too small: the density, of order 1/s near its "
                    f"edges with s = e^(beta^2) - 1 = {self._unit:.3g}, may exceed the float "
                    "range)")
        if par["beta"] < 0.05:
            return (f"beta={par['beta']!r} (too small: the noise part of the support, of "
                    "relative size ~beta^2/2, is not resolved next to the scores' part)")
        return (f"the shape ell={par['ell']}, d={par['d']}, heads={par['heads']}, "
                f"d_head={par['d_head']}, d_value={par['d_value']} (near-degenerate: a soft "
                "edge within ~1e-3 of a hard one, e.g. ell = d - 1)")

    def _out_of_reach(self):
        """Why the solver cannot resolve this configuration (for messages)."""
        return f"{self._culprit()} is out of the solver's reach{_ADVICE}"

    def _bisect_edge(self, outside, inside, b):
        """Edge between a point outside and one inside the support, by bisection on ρ > 0."""
        for _ in range(60):
            mid = 0.5 * (outside + inside)
            if self._rho(np.array([mid]))[0] * b > 1e-13:
                inside = mid
            else:
                outside = mid
        return 0.5 * (outside + inside)
