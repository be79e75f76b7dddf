"""The limit law ν_∞(β, c) of single-head attention as a scipy-like object (A4 §3).

Every law is frozen at construction (parameters validated, edges computed, mass and moments
checked) and offers ``pdf``, ``cdf``, ``ppf``, ``moment``, ``mean``, ``var``, ``support``,
``intervals``, ``interval`` and ``rvs(size, rng)`` with scipy.stats' conventions (see
:mod:`attnspec.laws.base`).
"""

from __future__ import annotations

import cmath
import math

import numpy as np

from .._validation import ParameterError, check_beta, check_float
from ..freeprob.ladder import continue_to_axis
from ..freeprob.roots import (few_points, newton_converged, polish_roots,
                              quartic_discriminant_sign, quartic_pair, quartic_roots,
                              real_cubic_roots)
from ..freeprob.series import free_cumulant_moments
from ..freeprob.transforms import (nu_inf_free_cumulants, nu_inf_inverse_cauchy,
                                   score_product_edges)
from ..hermite import noise_variance, total_variance
from .base import C_MAX, C_MIN, LawAccuracyError, SpectralLaw
from .chebyshev_pieces import graded_pieces
from .classical import score_product_inner_scale, score_product_pdf

__all__ = ["AttentionLaw", "BETA_MIN_REPRESENTABLE"]

#: log of the float64 range of a moment (normal numbers only: below, precision is lost)
_LOG_TINY, _LOG_HUGE = math.log(np.finfo(float).tiny), math.log(np.finfo(float).max)
#: Smallest β AttentionLaw represents (α² ≈ β⁴/2 ≥ 5e-289); below, LawAccuracyError.
BETA_MIN_REPRESENTABLE = 1e-72
#: The Marchenko–Pastur form is used when c·(β²/s)² (the relative size of the first
#: correction, see AttentionLaw Notes) is below this: then it equals ν_∞ to double precision.
_MP_FORM_BELOW = 1e-17
#: The small-β form is used when a = α²/s (≈ β²/2) is below this (c < 2, c ≥ 2); its CDF
#: error is bounded by :func:`_small_form_error` (measured against the exact form, appendix A2,
#: "Forms").
_SMALL_FORM_BELOW = {False: 1e-13, True: 1e-10}


def _small_form_error(beta, c, a):
    """Bound on the small-β form's CDF error at (β, c), a = α²/s (appendix A2, "Forms").

    Measured against the exact form at β = 1e-5 and 3e-5, where the error is linear in a (or
    β): 0.36a at c = 2 and below for c ≥ 2; for c < 2, O(a) away from c = 1 but
    ≈ 0.12a/(1 − c) below 1 and 0.56a/(c − 1) above, saturating at ≈ 0.15β at c = 1 (the
    form's t^{-2/3} divergence at 0 stands for the law's t^{-1/2}). The bound adds about 25 %
    to each measured envelope (tests/test_laws_attention.py checks it)."""
    if c >= 2.0:
        return 0.4 * a
    if c == 1.0:
        return 0.2 * beta
    near_one = 0.15 / (1.0 - c) if c < 1.0 else 0.7 / (c - 1.0)
    return max(2.5 * a, min(0.2 * beta, near_one * a))


def _small_beta_pieces_apart(beta, c):
    """For c > 1 in the small-beta form: True where the noise piece [0, 4α²(1 − 1/c)] ends
    below 1e-3 of where the scores' piece starts (β² times M's lower edge)."""
    top = 4.0 * (noise_variance(beta) * (1.0 - 1.0 / c))
    return top < 1e-3 * beta * beta * score_product_edges(c)[0]


def _small_beta_c_min(beta):
    """The smallest c > 1 (to rounding, by bisection) where the small-beta form's pieces are
    apart: about 1 + 116.2β."""
    low, high = 1.0, 2.0
    while math.nextafter(low, high) < high:
        mid = 0.5 * (low + high)
        low, high = (low, mid) if _small_beta_pieces_apart(beta, mid) else (mid, high)
    return high


def _physical_root_scaled(xi, a, b, c):
    """h(ξ + i0) of the scaled law: the root of Im h < 0 of K(h) = ξ, Newton-polished.

    Ferrari on the reversed (monic) quartic in u = 1/h,
    u⁴ − ξu³ + (a + b − p)u² + ξp u − ap = 0 (p = cb), whose coefficients stay O(1) when a
    or p is tiny (the quartic in h then has a huge root and loses all precision); in the
    support it has one non-real pair, the physical root being the one of Im u > 0, i.e.
    Im h < 0 (A4 §3, :mod:`attnspec.freeprob.roots`): by the factorisation at the
    resolvent's real root (``quartic_pair``, real arithmetic), else from all four roots,
    re-solved near a double root (:func:`_resolve_near_double_root`, :func:`_taylor_pair`),
    then at most four Newton steps on k(h) (:func:`_newton_on_k`). A point whose pair is
    double to rounding (at an edge within ~1e-14 relative, where the density is below ~1e-7
    of its bulk) and that Newton takes off the lower half plane keeps the closed form's
    root, Im h ≤ 0 (0 if that pair came out real). Points left without a root in the lower
    half plane (or not finite) are redone by the η-ladder (A4 §3) down to
    η = 1e-10·min(ξ, 1): outside the support (edge search) and wherever the closed form
    failed.
    """
    xi = np.asarray(xi, dtype=float)
    shape, xi = xi.shape, xi.reshape(-1)
    p, e = c * b, b * (1.0 - c)          # e = b − p without cancellation at c ≈ 1
    a2 = a + e
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        u, ok, sharp = quartic_pair(-xi, a2, xi * p, -a * p)
        # near an edge (the conjugate within 0.2 of the modulus), or where the imaginary
        # part cancels, the pair is re-solved at its real part
        near = (ok & ~sharp).nonzero()[0]
        double = near
        if near.size:
            u[near], at_edge = _taylor_pair(u[near].real, xi[near], a2, p, a, u[near])
            double = near[at_edge]
        slow = (~ok).nonzero()[0]
        if slow.size:                                    # from all four roots
            roots = quartic_roots(1.0, -xi[slow], a2, xi[slow] * p, -a * p)
            u[slow], at_edge = _resolve_near_double_root(roots, _physical_index(roots),
                                                         xi[slow], a2, p, a)
            double = np.concatenate([double, slow[at_edge]])
        h = _newton_on_k(1.0 / u, xi, a, b, c)
        redo = ~(-h.imag > 1e-12 * np.abs(h))            # also NaN and infinite values
        # a pair double to rounding (at an edge) keeps the closed form's root (Im h ≤ 0)
        double = double[redo[double]]
        h[double] = 1.0 / (u[double].real + 1j * np.maximum(u[double].imag, 0.0))
        redo[double] = False
        if redo.any():
            x = xi[redo].astype(complex)
            g = continue_to_axis(x, lambda g, z: _newton_step(g, z, a, b, c),
                                 lambda z: 1.0 / z, 1.0,
                                 bottom=1e-10 * np.minimum(xi[redo], 1.0) + 1e-300, levels=40)
            h[redo] = _newton_on_k(g, x, a, b, c)
    return h.reshape(shape)


def _physical_index(u):
    """Per row of roots ``u``, the index of the physical one: the largest Im u/|u| (the most
    negative Im h/|h|; the angle, not Im h, so that a real root's rounding blown up by 1/u
    when u is tiny cannot win). Where no root is clearly non-real (angles below 1e-7, the
    √ε of Ferrari near a double root), one root of the closest pair instead: the pair that
    :func:`_resolve_near_double_root` re-solves."""
    angle = u.imag / np.abs(u)
    pick = np.argmax(angle, axis=-1)
    flat = (~(angle.max(axis=-1) > 1e-7)).nonzero()[0]
    if flat.size:
        v = u[flat]
        gap = np.abs(v[:, :, None] - v[:, None, :]) / np.abs(v[:, :, None])
        gap[:, np.arange(4), np.arange(4)] = np.inf
        pick[flat] = np.argmin(gap.reshape(flat.size, 16), axis=-1) // 4
    return pick


def _resolve_near_double_root(u, pick, xi, a2, p, a):
    """The picked roots ``u[i, pick[i]]`` of u⁴ − ξu³ + a₂u² + ξp u − ap, each re-solved
    (:func:`_taylor_pair`) at the midpoint with its nearest other root where that lies within
    0.2 of its modulus (near an edge Ferrari's error is ~√ε, possibly onto the real axis).
    Also returns the indices where the pair is double to rounding."""
    rows = np.arange(u.shape[0])
    u_sel = u[rows, pick]
    gap = np.abs(u - u_sel[:, None])
    gap[rows, pick] = np.inf
    near = np.argmin(gap, axis=-1)
    close = (gap[rows, near] < 0.2 * np.abs(u_sel)).nonzero()[0]
    if close.size == 0:
        return u_sel, close
    m = 0.5 * (u_sel[close] + u[close, near[close]])
    u_sel[close], double = _taylor_pair(m, xi[close], a2, p, a, u_sel[close])
    return u_sel, close[double]


def _taylor_pair(m, xi, a2, p, a, fallback):
    """The root d of Im > 0 of the quartic P(u) = u⁴ − ξu³ + a₂u² + ξp u − ap expanded at m
    (the midpoint of a near-double pair), P(m + d) = P(m) + P′(m)d + (P″(m)/2 + (4m − ξ)d +
    d²)d²: from its Taylor quadratic, then once more with the d² coefficient corrected by
    the cubic and quartic terms at that d (error ~(d/R)² relative to the quadratic's d/R, R
    the distance to the other roots). For a real m (the real part from ``quartic_pair``) the
    first quadratic has real coefficients and is solved in real arithmetic: the root
    (−P′ + i·sign(P″)√(−Δ))/P″ of a complex pair, else −(P′ + sign(P′)√Δ)/P″, the same
    roots as the complex formula picks. Returns ``m + d`` (``fallback`` where d is not
    finite) and the indices where the pair is double to rounding (its two roots within
    1e-7·|m|)."""
    # P(m), P′(m), P″(m)/2 by Horner, the steps with coefficients 0 and 1 written out
    q1 = m - xi
    p1 = m + q1
    p0 = q1 * m + a2
    p2 = m + p1
    p1 = p1 * m + p0
    p0 = p0 * m + xi * p
    p2 = p2 * m + p1
    p1 = p1 * m + p0
    p0 = p0 * m - a * p
    cubic = 4 * m - xi
    square, d, rounds = p2, 0.0, 2
    if np.isrealobj(m):      # real Taylor coefficients: the first quadratic in real arithmetic
        disc = p1 * p1 - 4 * p2 * p0
        root, half = np.sqrt(np.abs(disc)), 0.5 / p2
        d = np.where(disc < 0, -p1 * half + 1j * np.abs(root * half),
                     -(p1 + np.copysign(root, p1)) * half)
        d = np.where(np.isfinite(d), d, 0.0)
        rounds = 1
    for _ in range(rounds):
        square = p2 + d * (cubic + d)
        disc = np.sqrt(p1 * p1 - 4 * square * p0 + 0j)
        disc = np.where((np.conjugate(p1) * disc).real >= 0, disc, -disc)
        big = -(p1 + disc) / (2 * square)
        small = np.where(big != 0, p0 / (square * big), 0.0)
        d = np.where(big.imag >= small.imag, big, small)  # Im u > 0 ⇔ Im h < 0
        d = np.where(np.isfinite(d), d, 0.0)
    double = (np.abs(big - small) <= 1e-7 * np.abs(m)).nonzero()[0]
    return np.where(np.isfinite(big) & np.isfinite(small), m + d, fallback), double


def _newton_step(h, z, a, b, c):
    """The Newton step (k(h) − z)/k′(h) on k(h) = (1 + (b − p)h²)/(h(1 − ph²)) + ah, the form
    of k without the cancellation of 1/h against bh/(1 − ph²) at large |h| when c ≈ 1."""
    value, slope = nu_inf_inverse_cauchy(h, a, b, c, derivative=True)
    return (value - z) / slope


def _newton_on_k(h, z, a, b, c, steps=4):
    """At most ``steps`` Newton steps on k(h) = z. A point stops by the library's one rule,
    :func:`~attnspec.freeprob.roots.newton_converged`, on its relative step |s|/|h| with
    tolerance max(1e-9|Im h|/|h|, 1e-12) (:func:`_newton_tolerance`), or once its step is
    not finite (then skipped: it would not change). The next error is ~M s² with
    M = |k″/2k′| ≈ 1/(4|Im h|) near the edge where h meets its conjugate (O(1/|h|) away from
    it): below ~1e-18 |Im h|, far below the rounding of Im h; the rule's quadratic clause
    stops a step earlier only where the error it predicts is below 1e-20|h|. The last few
    points still going (:func:`~attnspec.freeprob.roots.few_points`) take their steps in
    Python scalars."""
    step = _newton_step(h, z, a, b, c)
    finite = np.isfinite(step)
    h = np.where(finite, h - step, h)
    size = np.abs(step) / np.abs(h)
    going = (finite & ~newton_converged(size, 0.0, _newton_tolerance(h))).nonzero()[0]
    previous = size
    for done in range(1, steps):
        if few_points(going.size):
            for i in going.tolist():
                h[i] = _scalar_newton_on_k(complex(h[i]), complex(z[i]), a, b, c,
                                           float(previous[i]), steps - done)
            break
        hg = h[going]
        step = _newton_step(hg, z[going], a, b, c)
        finite = np.isfinite(step)
        hg = np.where(finite, hg - step, hg)
        h[going] = hg
        size = np.abs(step) / np.abs(hg)
        more = finite & ~newton_converged(size, previous[going], _newton_tolerance(hg))
        previous[going] = size
        going = going[more]
    return h


def _newton_tolerance(h):
    """The relative step below which :func:`_newton_on_k` stops at h:
    max(1e-9|Im h|/|h|, 1e-12) (a step below 1e-9 |Im h|, the part the density reads)."""
    return np.maximum(1e-9 * np.abs(h.imag) / np.abs(h), 1e-12)


def _scalar_newton_on_k(h, z, a, b, c, previous, steps):
    """:func:`_newton_on_k` for one point in Python complex arithmetic (the same steps, the
    same rule), ``previous`` its last relative step."""
    for _ in range(steps):
        try:
            step = _newton_step(h, z, a, b, c)
            if not cmath.isfinite(step):
                return h
            size = abs(step) / abs(h - step)
        except (ZeroDivisionError, OverflowError):
            return h
        h -= step
        if newton_converged(size, previous, max(1e-9 * abs(h.imag) / abs(h), 1e-12)):
            return h
        previous = size
    return h


class AttentionLaw(SpectralLaw):
    r"""Limit law ν_∞(β, c) of the squared singular values of √ℓ A^⊥ (A4 §3).

    The Gaussian equivalence (A4 §2) gives it as the law of the squared singular values
    of :math:`Y_{lin} = (αZ + βQK^T/\sqrt{d_{qk}})/\sqrt{ℓ}` as ℓ, d_qk → ∞ with ℓ/d_qk → c.

    Parameters
    ----------
    beta : float
        Inverse temperature, 0 < β ≤ ``hermite.BETA_MAX`` (26, so that e^{β²} is finite).
    c : float, default 1.0
        Aspect ratio c = ℓ/d_qk, ``C_MIN`` ≤ c ≤ ``C_MAX`` (0.01 to 100), except, for β in the
        small-beta form with c < 2 (β ≲ 4.5e-7; appendix A2), 1 < c < 1 + 116.2β (about; the
        message gives the exact bound), where that form's two pieces would overlap.

    Attributes
    ----------
    beta, c : float
        The parameters.
    s : float
        e^{β²} − 1: the mean of the law and the MP scale.
    noise_variance : float
        α² = e^{β²} − 1 − β², the variance of the noise of the linear model.
    form : str
        How the law is computed: ``"exact"``, ``"marchenko-pastur"`` (large β) or
        ``"small-beta"`` (see Notes); ``form_error`` bounds the error of its CDF (0 when exact).

    Raises
    ------
    ValueError
        β or c outside the domain (a ParameterError naming it).
    LawAccuracyError
        (a ValueError) if the built law fails its own mass and moment check (never seen on
        the domain; the test grid covers its corners and the edges at c = 1 + 116.2β).

    Notes
    -----
    In the scaled variables t = s ξ², g = h/√s, a = α²/s, b = β²/s (a + b = 1), p = cb, the
    inverse Cauchy transform of the symmetrised law (A4 §3) becomes
    k(h) = 1/h + a h + b h/(1 − p h²), O(1) for every β; the density is
    ρ(t) = −Im h(ξ + i0)/(π s ξ), h the root of Im h < 0 of a quartic, and the edges are the
    values of k at its real critical points. There is no atom; near 0 the density is a hard
    edge ~t^{-1/2}, and for c > 1 and small β the support is two intervals (``intervals()``).
    Closed-form limits replace the quartic where it is exact to rounding (``form``:
    Marchenko–Pastur at large β, the score product at small β). Moments are exact, from the
    free cumulants κ₂ = s, κ_{2j} = c^{j−1}β^{2j}: ``moment(2) = 2s² + cβ⁴``. Every build
    checks mass 1 to 1e-10 and m₁, m₂ to 1e-9 relative. Details (the scaled quartic, the
    forms, the grading of pieces) and measured accuracy: appendix A2, "The single-head law".

    Examples
    --------
    >>> law = AttentionLaw(beta=1.0, c=1.0)
    >>> law
    AttentionLaw(beta=1.0, c=1.0)
    >>> round(law.support()[1], 5), round(law.mp_edge(), 5)
    (9.00954, 6.87313)
    >>> round(law.moment(2), 10) == round(2 * law.s ** 2 + law.c, 10)
    True
    >>> x = np.linspace(*law.interval(0.98), 5)
    >>> bool(np.all(law.pdf(x) > 0))
    True
    >>> q = law.cdf(x)
    >>> bool(np.allclose(law.ppf(q), x, rtol=1e-12))
    True
    >>> AttentionLaw(0.03, 100.0).intervals()[1][1] > 0.1  # the scores' interval
    True
    """

    _left_edge = "hard"
    # graded pieces (small β, c ≈ 1, near-cusps); series cut at 1e-15 of their largest
    # coefficient (the CDF error this adds is ≤ 1e-13, far below MASS_TOL)
    _cheb_points, _max_pieces, _cheb_trim = (128, 256), 120, 1e-15

    def __init__(self, beta, c=1.0):
        self.beta = check_beta(beta)
        self.c = check_float("c", c, min=C_MIN, max=C_MAX)
        beta2 = self.beta * self.beta
        self.s = total_variance(self.beta)
        self.noise_variance = noise_variance(self.beta)
        if self.beta < BETA_MIN_REPRESENTABLE:
            raise LawAccuracyError(
                f"beta={self.beta!r} is out of reach: below beta = {BETA_MIN_REPRESENTABLE:g} "
                "the noise scale α² ≈ β⁴/2 of ν_∞ underflows the float range")
        self._ka = self.noise_variance / self.s          # a = α²/s
        self._kb = beta2 / self.s                        # b = β²/s
        self._kp = self.c * self._kb                     # p = c b
        if self.c * self._kb ** 2 < _MP_FORM_BELOW:
            self.form, self.form_error = "marchenko-pastur", self.c * self._kb ** 2
        elif self._ka < _SMALL_FORM_BELOW[self.c >= 2]:
            self.form = "small-beta"
            self.form_error = _small_form_error(self.beta, self.c, self._ka)
        else:
            self.form, self.form_error = "exact", 0.0
        self._pieces_list = self._find_intervals()
        super().__init__()
        culprit = ("beta" if self.beta < 0.1 or self.beta > 4 else "c")
        self._check_accuracy(culprit=f"{culprit}={getattr(self, culprit)!r}")

    def _params(self):
        return {"beta": self.beta, "c": self.c}

    def __str__(self):
        return f"{self!r} [form: {self.form}]"

    # ----- the scaled law k(h) = 1/h + a h + b h/(1 − p h²) ---------------------------------
    def _k(self, h):
        """k(h) of the scaled law (:func:`~attnspec.freeprob.transforms.nu_inf_inverse_cauchy`
        with α² → a, β² → b)."""
        return nu_inf_inverse_cauchy(h, self._ka, self._kb, self.c)

    def _symmetric_density(self, xi):
        """Density of the symmetrised scaled law at real ξ ≥ 0 (vectorised), exact form."""
        h = _physical_root_scaled(xi, self._ka, self._kb, self.c)
        return np.maximum(-h.imag / np.pi, 0.0)

    def _critical_values(self):
        """Edge candidates |k(h)| at the real critical points h > 0; the near-cusps:
        Re k(h) at the complex critical points where |Im k| ≤ Re k/4 (the density is
        analytic but varies on the scale |Im k| there; the CDF pieces are cut at them); and
        the scales |k(h)| of the other critical points (complex, or h imaginary), where the
        density's power law changes near 0 (the first piece is graded there).

        The three roots u = h² of the cubic come from Kahan's method in Python scalars
        (:func:`~attnspec.freeprob.roots.real_cubic_roots`), each then Newton-polished in
        Python scalars (three roots: cheaper than array steps)."""
        a, b, p = self._ka, self._kb, self._kp
        cubic = [a * p * p, b * p - p * p - 2 * a * p, 2 * p + a + b, -1.0]
        roots = real_cubic_roots(*cubic)
        real = [abs(r.imag) <= 1e-9 * abs(r) for r in roots]
        u = polish_roots(cubic, [r.real for r, is_real in zip(roots, real)
                                 if is_real and r.real > 0], 3)
        h = [math.sqrt(v) for v in u if v > 0]
        values = {abs(self._k(g)) for g in h if abs(1 - p * g * g) > 1e-12}
        values = np.array(sorted(v for v in values if 0 < v < math.inf))
        others = polish_roots(cubic, [r for r, is_real in zip(roots, real)
                                      if not is_real or r.real < 0], 3)
        near = []
        for v in others:
            try:
                near.append(self._k(cmath.sqrt(v)))
            except ZeroDivisionError:             # a pole of k: not finite
                continue
        near = [z for z in near if cmath.isfinite(z)]
        cusp = {}                                 # by real part: the first of equal ones
        for z in near:
            if abs(z.imag) <= 0.25 * z.real:
                cusp.setdefault(z.real, z)
        other = [z for z in near if not abs(z.imag) <= 0.25 * z.real and z != 0]
        return (values, np.array([cusp[x] for x in sorted(cusp)], dtype=complex),
                np.array(other, dtype=complex))

    def _has_complex_root(self, xi):
        """True where the quartic at ξ has a non-real pair (ξ inside the support; in a gap
        or beyond the edge its four roots are real): where its discriminant is negative,
        by the exact sign for its float coefficients (floats where they decide it, else
        integer arithmetic; used at the few midpoints between critical values)."""
        a, b, c = self._ka, self._kb, self.c
        p, a2 = c * b, a + b * (1 - c)
        return np.array([quartic_discriminant_sign([1.0, -x, a2, x * p, -a * p]) < 0
                         for x in np.ravel(xi).tolist()], dtype=bool).reshape(np.shape(xi))

    def _find_intervals(self):
        """Support intervals in t, with their left-edge kinds (see Notes)."""
        s = self.s
        if self.form == "marchenko-pastur":          # a series of 16 terms
            return [(0.0, 4.0 * s, "hard", self._cheb_points[0] // 2)]
        if self.form == "small-beta":
            beta2 = self.beta * self.beta
            lower, upper = score_product_edges(self.c)        # of M (ScoreProductLaw)
            if self.c <= 1:
                kind = "hard" if self.c < 1 else "hard23"
                # M's feature x(z₋) lies on the negative axis
                return graded_pieces([(0.0, beta2 * upper, kind)],
                                     -beta2 * score_product_inner_scale(self.c),
                                     top_points=self._cheb_points[0] // 2)
            if not _small_beta_pieces_apart(self.beta, self.c):
                raise ParameterError(
                    f"c must be <= 1 or >= {_small_beta_c_min(self.beta)!r} at "
                    f"beta={self.beta!r}: for 1 < c < 1 + 116.2*beta the two pieces of the "
                    f"small-beta form overlap (outside the domain); got c={self.c!r}")
            w = 1.0 - 1.0 / self.c
            self._noise_scale = self.noise_variance * w
            top = 4.0 * self._noise_scale
            lo, hi = beta2 * lower, beta2 * upper
            points = 2 * self._cheb_points[0] if lo - top < 0.01 * (hi - lo) else None
            # the noise piece w·MP(1, α²w): a series of 16 terms
            return graded_pieces([(0.0, top, "hard", self._cheb_points[0] // 2),
                                  (lo, hi, "soft", points)], np.array([]),
                                 top_points=self._cheb_points[0] // 2)
        candidates, near_cusps, features = self._critical_values()
        if candidates.size == 0:
            raise LawAccuracyError(f"beta={self.beta!r}: no edge found for {self!r}")
        bounds = [0.0, *candidates.tolist()]
        inside = self._has_complex_root(0.5 * (np.array(bounds[:-1]) + candidates))
        edges = []
        for lo, hi, keep in zip(bounds[:-1], bounds[1:], inside.tolist()):
            if not keep:
                continue
            if edges and edges[-1] == lo:  # a spurious candidate inside the bulk: merge
                edges[-1] = hi
            else:
                edges += [lo, hi]
        if not edges or edges[0] != 0.0:
            raise LawAccuracyError(
                f"beta={self.beta!r}, c={self.c!r}: the support structure of {self!r} is "
                f"not resolved (critical values {candidates})")
        t = [s * (e * e) for e in edges]
        self._edges_t = t
        cusps = [(s * (z.real * z.real), abs((s * (z * z)).imag)) for z in near_cusps.tolist()]
        features = [s * (z * z) for z in features.tolist()]
        # the first piece is mapped as for an x^(-2/3) edge (x = t₁ sin⁶(θ/2)): the
        # integrand is then analytic both for ~t^(-1/2) and, at small β and c ≈ 1, for the
        # ~t^(-2/3) of β²·M that the noise turns into t^(-1/2) only very close to 0
        pieces = []
        for i in range(0, len(t), 2):
            lo, hi = t[i], t[i + 1]
            inner = [at for at, _ in cusps if lo * (1 + 1e-9) < at < hi * (1 - 1e-9)]
            points = [lo, *inner, hi]
            kinds = ["hard-sin6" if i == 0 else "soft"] + ["inner"] * len(inner)
            pieces += list(zip(points[:-1], points[1:], kinds))
        return graded_pieces([piece + (self._first_points(piece, features, cusps),)
                              for piece in pieces], features, 2 * self._cheb_points[0],
                             dict(cusps), self._cheb_points[0] // 2)

    def _first_points(self, piece, features, cusps):
        """Chebyshev points of the first try on a piece (``_cheb_points[0]``, twice or half
        that): twice when a feature of the density sits close to the piece, where the series
        would need a second round anyway (thresholds measured over the benchmark grid): a
        complex critical value (not a near-cusp) of real part > 0 within 0.2 of the first
        piece's length from 0, or a near-cusp k at the first piece's right end whose width
        (the modulus of Im s k²) is below 5 % of its length, or at an inner piece's left end
        below 2 %; a later interval whose gap to the previous one is below 0.5 % of its
        length (its series then needs 140 to 160 terms at gaps of 0.14 % to 0.21 %, at most
        123 from 0.24 %). Half for a first interval (the noise, c > 1) followed by a gap of
        at least half its length: its series then has at most 40 terms (measured over 360
        laws, β from 1e-6 to 5 and c from 1.001 to 100; 45 to 57 terms at gaps of 9 % to
        27 %), so that 64 points converge. ``features``: the values s k² (complex);
        ``cusps``: the near-cusps' pairs (cut s (Re k)², width)."""
        lo, hi, kind = piece
        n = self._cheb_points[0]
        length = hi - lo
        if kind == "hard-sin6":
            close = any(z.real > 0 and z.imag != 0 and abs(z) < 0.2 * length
                        for z in features)
            narrow = any(at == hi and width < 0.05 * length for at, width in cusps)
            if close or narrow:
                return 2 * n
            gap = min((e for e in self._edges_t if e > hi), default=hi) - hi
            return n // 2 if hi in self._edges_t and gap >= 0.5 * length else n
        if kind == "soft":
            gap = lo - max((e for e in self._edges_t if e < lo), default=0.0)
            return 2 * n if gap < 0.005 * length else n
        if kind == "inner":
            return 2 * n if any(at == lo and width < 0.02 * length for at, width in cusps) else n
        return n

    def _intervals(self):
        return list(self._pieces_list)

    def _support(self):
        return 0.0, float(self._pieces_list[-1][1])

    def _pdf(self, t):
        s = self.s
        xi = np.sqrt(t / s)
        if self.form == "marchenko-pastur":
            return np.sqrt(np.maximum(4.0 - xi * xi, 0.0)) / (2 * np.pi * xi) / s
        if self.form == "small-beta":
            beta2 = self.beta * self.beta
            out = np.zeros_like(t)
            far = np.ones(t.shape, dtype=bool)
            if self.c > 1:                  # w·MP(1, α²w) near 0, in units of v = α²w
                v = self._noise_scale
                far = t >= 4.0 * v
                r = t[~far] / v
                out[~far] = ((1.0 - 1.0 / self.c) * np.sqrt(np.maximum(4.0 - r, 0.0))
                             / (2 * np.pi * np.sqrt(r)) / v)
            out[far] = score_product_pdf(t[far] / beta2, self.c) / beta2
            return out
        return self._symmetric_density(xi) / xi / s

    def _reference_moments(self):
        return self.s, [1.0, 2.0 + self.c * self._kb ** 2]

    def _moment(self, k):
        # in units of the right edge, where every moment is at most 1; the free cumulants are
        # positive, so every term of the recursion is too (no cancellation)
        top = self.support()[1]
        kappa = nu_inf_free_cumulants(2 * k, self.beta, self.c, unit=top)
        log_m = math.log(free_cumulant_moments(kappa, 2 * k)[2 * k]) + k * math.log(top)
        if not _LOG_TINY <= log_m <= _LOG_HUGE:
            where = ("beyond the float range" if log_m > 0
                     else "below the range of normal floats (it underflows towards 0)")
            raise ValueError(f"k={k}: the moment of order {k} of {self!r} is about "
                             f"1e{log_m / math.log(10):.0f}, {where}; use a smaller k")
        return math.exp(log_m)

    def edges(self):
        """All edges of the support in t, sorted: ``(0, …, right edge)`` (two per interval).

        Two values for a single interval; four when a gap splits the support.
        """
        return tuple(e for interval in self.intervals() for e in interval)

    def mp_edge(self):
        """Right edge 4s = 4(e^{β²} − 1) of the Marchenko–Pastur surrogate (A4 §2)."""
        return 4.0 * self.s
