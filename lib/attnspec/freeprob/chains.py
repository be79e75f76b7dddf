"""Free-probability solver behind :class:`attnspec.MultiHeadLaw` (A4 §6, chapter A1).

The limiting law of the squared singular values of the multi-head output is the end of a chain
of free convolutions.  Every step of the chain is *explicit in the backward direction*: starting
from one complex parameter ``p`` (the per-head variable) the chain returns the point ``z``, the
Cauchy transform ``G(z)`` of the output law and their derivatives (``Chain.evaluate``, in
closed form).  Solving ``z(p) = x`` for ``p`` by Newton's method from a starting point
(``Chain.solve_from``; the law remembers its solutions) or, without one, continued down a
ladder of ``x + iη`` (``Chain.robust``), gives the density.  ``chain_moments`` gives
the exact moments by power-series arithmetic on S- and R-transforms.  The derivation is in
``chapters/A1_multihead_law_derivation.md``; the names below follow it.

Internal module: the public surface is :mod:`attnspec.laws.multihead`.
"""

from __future__ import annotations

import cmath
from dataclasses import dataclass, field
from math import comb

import numpy as np

from ..hermite import noise_variance, total_variance
from .ladder import continue_to_axis
from .roots import few_points, newton_converged
from .series import free_cumulant_moments, free_cumulants, times_mp
from .transforms import mp_edges, mp_moment, nu_inf_free_cumulants, nu_inf_inverse_cauchy

__all__ = ["Chain", "Point"]


def _sqrt(u):
    """Principal square root of a complex array (numpy) or of a Python complex (cmath)."""
    return cmath.sqrt(u) if isinstance(u, complex) else np.sqrt(u)


def _mp_cauchy_explicit(r, y):
    """Cauchy transform of Marchenko–Pastur with ratio ``y`` and mean 1 (atom 1 − 1/y if
    y > 1), G(r) = [r + y − 1 − √(r − e₋)√(r − e₊)]/(2yr), e± = (1 ± √y)² (the product of
    two principal roots is the branch analytic off [e₋, e₊] with G ~ 1/r), and its derivative
    dG/dr, on complex arrays or Python complex."""
    em, ep = mp_edges(y)
    root = _sqrt(r - em) * _sqrt(r - ep)
    inv = 1 / ((2 * y) * r)
    G = (r + (y - 1) - root) * inv
    droot = (r - 0.5 * (em + ep)) / root
    return G, (1 - droot) * inv - G / r


class Point:
    """The backward map evaluated at p: z, z′(p), G_Y, G_Y′(p) and the intermediate
    subordination points and Cauchy transforms that :meth:`Chain.physical` checks."""

    __slots__ = ("p", "z", "dz", "G", "dG", "up", "down")

    def __init__(self, p, z, dz, G, dG, up, down):
        self.p, self.z, self.dz, self.G, self.dG, self.up, self.down = p, z, dz, G, dG, up, down


@dataclass(frozen=True)
class Chain:
    """The backward map p -> (z, G_Y(z)) of one multi-head configuration.

    Parameters (already reduced, see ``MultiHeadLaw``): ``kind`` is ``"untied"`` or ``"kv"``;
    ``heads`` the number of free summands; ``c = ℓ/d_head``; ``a = ℓ/d_value`` (value map);
    ``gamma = ℓ/d`` (output projection); ``unit``: the chain describes the law of x/unit
    (a dilation: α² and β² of the core are divided by ``unit``, so that at large β the law is
    computed as the law of x/s, with no overflow).  Derived, in these units:
    ``s = (e^{β²} − 1)/unit``, ``alpha2 = (s − β²)/unit``, ``b2 = β²/unit``.
    """

    kind: str
    heads: int
    beta: float
    c: float
    a: float
    gamma: float
    unit: float = 1.0
    s: float = field(init=False, repr=False)
    alpha2: float = field(init=False, repr=False)
    b2: float = field(init=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "s", float(total_variance(self.beta)) / self.unit)
        # e^{β²} − 1 − β² without cancellation at small β
        object.__setattr__(self, "alpha2", float(noise_variance(self.beta)) / self.unit)
        object.__setattr__(self, "b2", self.beta ** 2 / self.unit)

    # ---- the backward map with derivatives (A1, eq. mhl-backward) ----------------------------
    def evaluate(self, p):
        """The backward map at p (complex array) with exact derivatives: a :class:`Point`.

        Untied (A1, eq. mhl-backward): ζ = K(g), G_ν = g/ζ, τ_h = 1 − a + a g ζ,
        ω = ζ²τ_h, G_h = G_ν/τ_h; kv: ω from the Silverstein–Bai equation, G_h = p.  Then
        G_T = H G_h, w = ω − (H − 1)/G_T, τ = 1 − γ + γ w G_T, z = w τ, G_Y = G_T/τ.
        Up to ``FEW_POINTS`` finite points are evaluated one by one in Python complex
        arithmetic (:meth:`_evaluate_scalars`), the same formulas as on arrays.
        """
        if (isinstance(p, np.ndarray) and p.dtype == complex and p.ndim == 1
                and 0 < p.size and few_points(p.size)):
            pt = self._evaluate_scalars(p)
            if pt is not None:
                return pt
        return Point(p, *self._backward(p))

    def at(self, p):
        """z, z′(p), G_Y and G_Y′(p) at one point p, in Python complex arithmetic (the
        formulas of :meth:`evaluate`); raises ZeroDivisionError or OverflowError where numpy
        would give inf or NaN."""
        return self._backward(complex(p))[:4]

    def _evaluate_scalars(self, p):
        """:meth:`evaluate` at a few points, each by :meth:`_backward` on a Python complex,
        gathered into arrays; None (use the arrays) if a point is not finite or the scalar
        arithmetic raises (division by zero, overflow), where numpy gives inf or NaN."""
        values = [complex(v) for v in p.tolist()]
        if not all(map(cmath.isfinite, values)):
            return None
        try:
            rows = [self._backward(v) for v in values]
        except (ZeroDivisionError, OverflowError, ValueError):
            return None
        n_up = len(rows[0][4])
        cols = np.array([row[:4] + tuple(row[4]) + tuple(row[5]) for row in rows],
                        dtype=complex).T
        return Point(p, *cols[:4], list(cols[4:4 + n_up]), list(cols[4 + n_up:]))

    def _backward(self, p):
        """z, z′, G_Y, G_Y′ and the lists of :class:`Point` ``up`` and ``down`` at p (a
        complex array or a Python complex)."""
        if self.kind == "kv":
            w2, dw2, Gh, dGh, up, down = self._kv_explicit(p)
        else:
            w2, dw2, Gh, dGh, up, down = self._untied_explicit(p)
        H, gam = self.heads, self.gamma
        GT, dGT = H * Gh, H * dGh
        w1 = w2 - (H - 1) / GT
        dw1 = dw2 + (H - 1) * dGT / (GT * GT)
        tY = 1 - gam + gam * w1 * GT
        dtY = gam * (dw1 * GT + w1 * dGT)
        GY = GT / tY
        return (w1 * tY, dw1 * tY + w1 * dtY, GY, (dGT - GY * dtY) / tY,
                up + [w1, w2], down + [Gh, GY])

    def _untied_explicit(self, g):
        """Attention core ν∞(β, c) then the value map ⊠ MP(a), parametrised by the symmetrised
        Cauchy variable g of ν∞ (K(g) = 1/g + α²g + β²g/(1 − cβ²g²)), with derivatives."""
        a = self.a
        K, dK = nu_inf_inverse_cauchy(g, self.alpha2, self.b2, self.c, derivative=True)
        u = g / K
        du = (1 - u * dK) / K
        th = 1 - a + a * g * K
        dth = a * (K + g * dK)
        Gh = u / th
        return (K * K * th, K * (2 * dK * th + K * dth), Gh, (du - Gh * dth) / th,
                [K], [u, g])

    def _kv_explicit(self, p):
        """Key–value tie: T_h = G Σ Gᵀ/d_h, Σ = (β²/y)Ĉ² + α²Ĉ, Ĉ ~ MP(y), y = d_h/ℓ = 1/c;
        Silverstein–Bai: w₂ = 1/p + y ∫ τ(x)/(1 − p τ(x)) dMP_y(x), τ(x) = Σ(x)/y, by the
        roots r₁, r₂ of the integrand's quadratic; with its derivative.  q solves
        q² + P₁q = P₂/p, so
        dq/dp = P₂/(p²√disc), and r₁ + r₂ = −P₁/P₂ gives dr₂/dp = −dr₁/dp = 1/(p²√disc)."""
        y = 1.0 / self.c
        P2 = self.b2 / y ** 2
        P1 = self.alpha2 / y
        sd = _sqrt(P1 * P1 + (4 * P2) / p)
        q = -0.5 * (P1 + sd)
        r2, r1 = q / P2, -1 / (p * q)
        t = 1 / (p * p * sd)                                  # dr2/dp = −dr1/dp
        if isinstance(p, complex):
            (G2, dG2), (G1, dG1) = _mp_cauchy_explicit(r2, y), _mp_cauchy_explicit(r1, y)
        else:
            (G2, G1), (dG2, dG1) = _mp_cauchy_explicit(np.array((r2, r1)), y)   # one pass
        dr = r1 - r2
        inner = (G2 - G1) / dr
        dinner = t * (dG2 + dG1 + 2 * inner) / dr
        pP2 = p * P2
        J = -inner / pP2
        dJ = (inner / p - dinner) / pP2
        w2 = (1 + y * (J - 1)) / p
        return w2, (y * dJ - w2) / p, p, 1.0, [], []

    @staticmethod
    def physical(pt, tol=1e-10):
        """True where the :class:`Point` is on the physical sheet: subordination points w₁, w₂
        (and ζ = K(g)) in the closed upper half-plane, Cauchy transforms G_h, G_Y (and g, G_ν)
        in the lower one, and, for a real solution, G_Y′(x) ≤ −G_Y(x)² as for every Cauchy
        transform on ℝ (Cauchy–Schwarz)."""
        G = pt.G
        real = np.abs(G.imag) <= 1e-12 * np.abs(G)
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = (pt.dG / pt.dz).real
        ok = (~real | (slope <= -(G.real ** 2) * (1 - 1e-6))) & np.isfinite(G) & np.isfinite(pt.z)
        values = np.array(pt.up + pt.down)              # all at once: up Im ≥ −tol|·|,
        signed = values.imag                            # down −Im ≥ −tol|·|
        signed[len(pt.up):] *= -1
        return ok & (signed >= -tol * np.abs(values)).all(axis=0)

    def is_physical(self, p, tol=1e-10):
        """:meth:`physical` at p (evaluates the chain once)."""
        with np.errstate(all="ignore"):
            return self.physical(self.evaluate(np.asarray(p, dtype=complex)), tol)

    def initial(self, z):
        """Large-|z| guess of p, from w2 ≈ H z: g ≈ (H z)^{-1/2} (untied), G_h ≈ 1/(H z) (kv)."""
        w2 = self.heads * z
        return 1 / np.sqrt(w2) if self.kind == "untied" else 1 / w2

    # ---- solvers ----------------------------------------------------------------------------
    def polish(self, z, p, least, most=60, tol=1e-14):
        """At least ``least`` and at most ``most`` Newton steps on z(p) = z: from its
        ``least``-th step on, a point stops by
        :func:`~attnspec.freeprob.roots.newton_converged`.  Once few points are left
        (:func:`~attnspec.freeprob.roots.few_points`), each finishes on its own in Python
        complex arithmetic (:meth:`_polish_one`)."""
        p = np.array(p, dtype=complex)
        active = np.ones(p.shape, bool)
        previous = np.zeros(p.shape)
        for k in range(1, most + 1):
            if k > least and few_points(np.count_nonzero(active)):
                for i in np.flatnonzero(active).tolist():
                    p[i] = self._polish_one(complex(z[i]), complex(p[i]), float(previous[i]),
                                            most - k + 1, tol)
                break
            q = p[active]
            pt = self.evaluate(q)
            step = (pt.z - z[active]) / pt.dz
            p[active] = q - step
            size = np.abs(step) / np.abs(q)
            done = newton_converged(size, previous[active], tol)
            previous[active] = size
            if k >= least:
                active[active] = ~done
                if not active.any():
                    break
        return p

    def _polish_one(self, z, p, previous, steps, tol):
        """:meth:`polish` of one point (Python complex) past its ``least`` steps: at most
        ``steps`` more, ``previous`` the last relative step; NaN where the arithmetic
        divides by zero or overflows (where numpy's inf or NaN would end in NaN)."""
        try:
            for _ in range(steps):
                value, slope = self.at(p)[:2]
                step = (value - z) / slope
                p, size = p - step, abs(step) / abs(p)
                if newton_converged(size, previous, tol):
                    break
                previous = size
        except (ZeroDivisionError, OverflowError, ValueError):
            return complex(np.nan, np.nan)
        return p

    def solve_from(self, x, p, most=30, near=2.5, root=1):
        """Newton on z(p)^{1/root} = x^{1/root} from the guesses p (x > 0 real).

        ``root``: a positive integer or one per point; root = k, the order of the zero of a
        hard edge z ≈ C(p − p₀)^k, converges quadratically there.  Steps longer than |p|/2 are
        shortened to |p|/2.  A point stops by
        :func:`~attnspec.freeprob.roots.newton_converged` (tol 1e-14), after |z − x| ≤ 1e-15 x,
        or when its residual, below 1e-10 x, stops falling.  Returns
        (Point at the solutions, ok), ok where |z − x| ≤ 1e-10 x on the physical sheet
        (:meth:`physical`) within ``near`` of the guess in log p.  Why each rule: chapter A1,
        "The backward map and the algorithm"."""
        p = np.array(p, dtype=complex)
        start = p.copy()
        idx = np.arange(p.size)                 # the points still iterating, compacted
        q, xa = p.copy(), np.asarray(x, dtype=float).copy()
        ra = np.broadcast_to(np.asarray(root, dtype=float), p.shape).copy()
        plain = bool((ra == 1).all())
        rounding, exact = 1e-10 * xa, 1e-15 * xa
        half = np.full(p.shape, np.inf)         # half the residual at the previous step
        previous = np.zeros(p.shape)            # the last full Newton step (0: none)
        with np.errstate(all="ignore"):
            for _ in range(most):
                pt = self.evaluate(q)
                diff = pt.z - xa
                res = np.abs(diff)
                step = diff / (pt.dz * q)                       # Newton step, relative to p
                if not plain:                                   # on z^{1/root} where root > 1
                    k = ra != 1
                    zk = pt.z[k]
                    step[k] = (ra[k] * zk * (1 - (xa[k] / zk) ** (1 / ra[k]))
                               / (pt.dz[k] * q[k]))
                size = np.abs(step)
                falling = np.isfinite(step) & ((res < half) | (res > rounding))
                go = falling & (res > exact) & ~newton_converged(size, previous, 1e-14)
                long = size > 0.5
                if long.any():
                    step = np.where(long, 0.5 * step / size, step)
                    size = np.where(long, 0.0, size)
                moved = q * (1 - step)                          # a last step when done
                q = moved if falling.all() else np.where(falling, moved, q)
                if go.all():
                    half, previous = 0.5 * res, size
                    continue
                p[idx] = q
                if not go.any():
                    break
                idx, q, xa, rounding, exact = idx[go], q[go], xa[go], rounding[go], exact[go]
                ra = ra if plain else ra[go]
                half, previous = 0.5 * res[go], size[go]
            else:
                p[idx] = q
            pt = self.evaluate(p)
            ok = (np.abs(pt.z - x) <= 1e-10 * x) & self.physical(pt)
            # |log(p/start)| ≤ near, the (slow) complex log only where |p/start − 1| > δ,
            # δ = min(near, 1)/2: inside that disc |log| ≤ (log²(1 − δ) + asin²δ)^½ < near
            ratio = p / start
            far = np.abs(ratio - 1) > 0.5 * min(near, 1.0)
            ok[far] &= np.abs(np.log(ratio[far])) <= near
        return pt, ok

    def cauchy_on_axis(self, x, scale, eta=0.0, guess=None, fallback=True, root=1):
        """G_Y(x + iη) for real x (default η = 0⁺, the boundary value), and the parameter p.

        With starting points ``guess`` (complex array like x; NaN where there is none) and
        η = 0, each point x > 0 is solved by :meth:`solve_from`; the points that do not
        converge on the physical sheet, and all points without a guess, go to the η-ladder:
        a short one first (10·scale down to 1e-6·scale, η divided by ≤ 10 per level, one
        Newton step each); points near 0 (|x| < 1e-3·scale, where hard edges live) and points
        that end off the physical sheet are redone with a long ladder (50·scale down to
        1e-9·scale, η divided by ≤ 2.2 per level, two steps each), and those still off the
        sheet with a longer one (≤ 1.3).  With ``fallback=False`` (a bool, or one per point)
        the points that need the ladder get NaN instead; ``root`` is passed to
        :meth:`solve_from`.
        """
        x = np.asarray(x, dtype=float)
        G = np.empty(x.shape, complex)
        p = np.empty(x.shape, complex)
        todo = np.ones(x.shape, bool)
        if guess is not None and eta == 0:
            has = (x > 0) & np.isfinite(guess)
            pt, ok = self.solve_from(x[has], guess[has], root=np.broadcast_to(root, x.shape)[has])
            idx = np.flatnonzero(has)[ok]
            G[idx], p[idx] = pt.G[ok], pt.p[ok]
            todo[idx] = False
        ladder = todo & fallback
        if ladder.any():
            G[ladder], p[ladder] = self.robust(x[ladder], scale, eta)
        G[todo & ~ladder] = p[todo & ~ladder] = np.nan
        return G, p

    def robust(self, x, scale, eta, near_zero=1e-3):
        """G_Y(x + iη) and p without starting guesses: the η-ladders of :meth:`cauchy_on_axis`
        (the short one, then long ones for the points that end off the physical sheet or whose
        density collapses on the way); points with |x| < near_zero·scale always take the
        long ladder."""
        G, p, G_low, ok = self._ladder(x, scale, eta, top=10.0, ratio=10.0, iters=1,
                                       bottom=1e-6)
        # a density that collapses (but not to 0) between the last ladder level and η = 0
        # means the final Newton steps jumped to another sheet (or x is within ~η of an
        # edge); a real solution is checked by the Cauchy–Schwarz test of physical()
        collapsed = (-G.imag < 0.5 * -G_low.imag) & (np.abs(G.imag) > 1e-12 * np.abs(G))
        redo = ~ok | (np.abs(x) < near_zero * scale) | collapsed
        for ratio in (2.2, 1.3):         # long ladders for the flagged points
            if not redo.any():
                break
            G[redo], p[redo], _, ok = self._ladder(x[redo], scale, eta, top=50.0, ratio=ratio,
                                                   iters=2)
            redo[redo] = ~ok
        return G, p

    def _ladder(self, x, scale, eta, top, ratio, iters, bottom=1e-9, final=2):
        """Newton on z(p) = x + iη', continued down a geometric ladder η' = top·scale … η_min
        (:func:`~attnspec.freeprob.ladder.continue_to_axis` with the first-order predictor
        p += iΔη'/z′(p) and ``iters`` Newton steps per level), then ``final`` Newton steps
        at η.  For η = 0 the ladder stops at η_min = min(bottom·scale, 1e-3·|x|), so that
        points near 0 are resolved; η' falls by at most ``ratio`` per level.  Returns G_Y
        at η, p, G_Y at the last ladder level (one Newton step before its p, as the
        predictor's z′), and where the end is :meth:`physical`."""
        x = np.asarray(x, dtype=float)
        low = (np.minimum(bottom * scale, 1e-3 * np.abs(x) + 1e-300) if eta == 0
               else np.full(x.shape, float(eta)))
        span = scale * top / np.min(low) if np.size(x) else 1.0
        levels = max(int(np.ceil(np.log(span) / np.log(ratio))) + 1, 2)
        last = []                                   # the chain at the last Newton step

        def newton_step(q, z):                      # correction and dp/dz = 1/z′(p)
            last[:] = [self.evaluate(q)]
            return (last[0].z - z) / last[0].dz, 1 / last[0].dz

        with np.errstate(all="ignore"):
            # the top level from the large-|z| guess: one Newton step, then the ladder
            z_top = x + 1j * scale * top
            p_top = self.polish(z_top, self.initial(z_top), 1, 1)
            p = continue_to_axis(x, newton_step, lambda z: p_top, scale, top=top,
                                 bottom=low / scale, levels=levels, newton_steps=iters,
                                 tol=0.0, tangent=True)
            pt = last[0] if last and last[0].p.shape == x.shape else self.evaluate(p)
            p = self.polish(x + 1j * eta, p + 1j * (eta - low) / pt.dz, final)
            end = self.evaluate(p)
            return end.G, p, pt.G, self.physical(end)


# ---- moments by exact power-series arithmetic (S- and R-transforms) ----------------------------
def chain_moments(chain, n):
    """Moments m_1..m_n of the output law of ``chain`` (exact series arithmetic), in units of
    ``chain.unit`` (m_k/unit^k)."""
    b2, c, a2 = chain.b2, chain.c, chain.alpha2
    if chain.kind == "untied":
        # ν∞: symmetrised free cumulants; m_k(ν) = M_2k(sym)
        kappa = nu_inf_free_cumulants(2 * n, chain.beta, c, unit=chain.unit)
        head = times_mp(np.array(free_cumulant_moments(kappa, 2 * n)[2::2]), chain.a, n)
    else:
        y = 1.0 / c
        mp = [mp_moment(k, y) for k in range(2 * n + 1)]          # MP(y), m_0..m_2n
        sigma = np.array([sum(comb(k, j) * (b2 / y) ** j * a2 ** (k - j) * mp[k + j]
                              for j in range(k + 1)) for k in range(1, n + 1)])
        head = y * times_mp(sigma / y ** np.arange(1, n + 1), y, n)
    H = chain.heads
    kappa_T = free_cumulants(head, n) / float(H) ** np.arange(n)
    return times_mp(np.array(free_cumulant_moments(kappa_T, n)[1:]), chain.gamma, n)
