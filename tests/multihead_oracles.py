"""Second methods for the multi-head law's Cauchy transform (test and benchmark oracles).

Independent of the solver of :class:`attnspec.laws.multihead.MultiHeadLaw` (Newton's method
from remembered solutions and an η-ladder): the polynomial method (all roots of a cleared
polynomial, selected by the Nevanlinna conditions only) for untied heads, and a damped forward
fixed point with quadrature for the key–value tie (chapter A1, Verification).  They share only
the backward map :func:`z_of` (the formulas of A1, in generic arithmetic: forward-mode
:class:`Jet`, rationals, mpmath numbers) and ``Chain.is_physical``.
"""

import numpy as np

from attnspec.freeprob.transforms import mp_edges, nu_inf_inverse_cauchy


# ---- the backward map in generic arithmetic (second form of the formulas of A1) ------------------
class Jet:
    """A complex value with its derivative with respect to the Newton unknown (forward mode)."""

    __slots__ = ("v", "d")

    def __init__(self, v, d):
        self.v, self.d = v, d

    @staticmethod
    def _lift(o):
        return o if isinstance(o, Jet) else Jet(o, 0.0)

    def __add__(self, o):
        o = Jet._lift(o)
        return Jet(self.v + o.v, self.d + o.d)

    __radd__ = __add__

    def __sub__(self, o):
        o = Jet._lift(o)
        return Jet(self.v - o.v, self.d - o.d)

    def __rsub__(self, o):
        return Jet._lift(o) - self

    def __neg__(self):
        return Jet(-self.v, -self.d)

    def __mul__(self, o):
        o = Jet._lift(o)
        return Jet(self.v * o.v, self.d * o.v + self.v * o.d)

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = Jet._lift(o)
        q = self.v / o.v
        return Jet(q, (self.d - q * o.d) / o.v)

    def __rtruediv__(self, o):
        return Jet._lift(o) / self


def jsqrt(u):
    """Principal square root of a Jet."""
    r = np.sqrt(u.v)
    return Jet(r, u.d / (2 * r))


def mp_cauchy(r, y):
    """Cauchy transform of Marchenko–Pastur with ratio ``y`` and mean 1 (atom 1 - 1/y if y > 1).

    ``G(r) = [r + y - 1 - sqrt(r - e_-) sqrt(r - e_+)] / (2 y r)``, ``e_± = (1 ± sqrt y)²``; the
    product of two principal roots is the branch analytic off ``[e_-, e_+]`` with ``G ~ 1/r``.
    """
    em, ep = mp_edges(y)
    root = jsqrt(r - em) * jsqrt(r - ep)
    return (r + (y - 1) - root) / (2 * y * r)


def head_untied(chain, g):
    """Attention core ν∞(β, c) then the value map ⊠ MP(a), parametrised by the symmetrised
    Cauchy variable g of ν∞:  K(g) = 1/g + α²g + β²g/(1 - cβ²g²)."""
    K = nu_inf_inverse_cauchy(g, chain.alpha2, chain.b2, chain.c)
    tau = 1 - chain.a + chain.a * g * K   # = 1 - a + a w3 G_nu(w3)
    return K * K * tau, (g / K) / tau


def head_kv(chain, p):
    """Key–value tie: T_h = G Σ Gᵀ/d_h, Σ = (β²/y)Ĉ² + α²Ĉ, Ĉ ~ MP(y), y = d_h/ℓ = 1/c.
    Silverstein–Bai: w2 = 1/p + y ∫ τ(x)/(1 - p τ(x)) dMP_y(x), τ(x) = Σ(x)/y."""
    y = 1.0 / chain.c
    P2 = chain.b2 / y ** 2
    P1 = chain.alpha2 / y
    q = -0.5 * (P1 + jsqrt(P1 * P1 + 4 * P2 / p))
    r2 = q / P2
    r1 = -1 / (p * q)
    inner = (mp_cauchy(r2, y) - mp_cauchy(r1, y)) / (r1 - r2)
    J = -inner / (p * P2)
    return 1 / p + y * (J - 1) / p, p


def z_of(chain, p):
    """The backward map p -> (z, G_Y(z)) of a :class:`~attnspec.freeprob.chains.Chain` by
    generic arithmetic (Jets, rationals, mpmath numbers): the formulas of A1 written a second
    time, independently of the solver's ``Chain.evaluate`` (explicit, with derivatives)."""
    w2, Gh = head_kv(chain, p) if chain.kind == "kv" else head_untied(chain, p)
    H = chain.heads
    GT = H * Gh
    w1 = w2 - (H - 1) / GT
    tauY = 1 - chain.gamma + chain.gamma * w1 * GT
    return w1 * tauY, GT / tauY



class Rational:
    """A rational function num/den of the unknown, with numpy Polynomials (untied chain only)."""

    def __init__(self, num, den=None):
        P = np.polynomial.Polynomial
        self.num = num if isinstance(num, P) else P([num])
        self.den = den if den is not None else P([1.0])

    @staticmethod
    def _lift(o):
        return o if isinstance(o, Rational) else Rational(o)

    def __add__(self, o):
        o = Rational._lift(o)
        return Rational(self.num * o.den + o.num * self.den, self.den * o.den)

    __radd__ = __add__

    def __neg__(self):
        return Rational(-self.num, self.den)

    def __sub__(self, o):
        return self + (-Rational._lift(o))

    def __rsub__(self, o):
        return Rational._lift(o) - self

    def __mul__(self, o):
        o = Rational._lift(o)
        return Rational(self.num * o.num, self.den * o.den)

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = Rational._lift(o)
        return Rational(self.num * o.den, self.den * o.num)

    def __rtruediv__(self, o):
        return Rational._lift(o) / self


def cauchy_polynomial(chain, z):
    """G_Y(z), Im z > 0, for the untied chain by the polynomial method (a second method).

    z(g) is a rational function N(g)/D(g) of the core variable g; all roots of N − z D are
    found with ``numpy.roots`` (companion-matrix eigenvalues) and the root is chosen by the
    Nevanlinna conditions alone (:meth:`Chain.is_physical`) — no continuation, no Newton.
    Returns NaN where not exactly one root is physical.
    """
    if chain.kind != "untied":
        raise ValueError("cauchy_polynomial covers the untied chain only")
    g = Rational(np.polynomial.Polynomial([0.0, 1.0]))
    zr = z_of(chain, g)[0]
    out = np.full(np.shape(z), np.nan + 0j)
    for k, zk in enumerate(np.atleast_1d(z)):
        poly = zr.num - zk * zr.den
        p = np.roots(poly.coef[::-1])
        p = p[p != 0]
        for _ in range(3):   # polish the companion-matrix roots
            J = z_of(chain, Jet(p, np.ones_like(p)))[0]
            p = p - (J.v - zk) / J.d
        z_p = z_of(chain, Jet(p, 0 * p))[0].v
        p = p[(np.abs(z_p - zk) < 1e-10 * abs(zk)) & chain.is_physical(p, tol=0.0)]
        p = p[np.r_[True, np.abs(np.diff(np.sort_complex(p))) > 1e-8 * np.abs(p[1:])]] \
            if p.size > 1 else p
        if p.size == 1:
            out.flat[k] = z_of(chain, Jet(p, 0 * p))[1].v[0]
    return out


# ---- second method: forward fixed point (test and benchmark oracle) ---------------------------
def cauchy_forward(chain, z, sweeps=4000, damping=0.5, nodes=2000):
    """G_Y(z), Im z > 0, for the kv chain by a damped forward fixed point (a second method).

    Independent of :func:`z_of`: the kv head from the Silverstein–Bai equation
    m = 1/(−w₂ + y ∫ τ dMP_y/(1 + τ m)) with the MP integral done by Gauss–Chebyshev quadrature
    (not by the closed form at the roots), H heads in the Belinschi–Bercovici form
    w₂ = w₁ + (1 − 1/H)/G_h(w₂), the output projection by Silverstein's equation.  Slow; for
    checks only (needs d_head ≤ ℓ and ℓ ≤ d).
    """
    if chain.kind != "kv" or chain.c < 1 or chain.gamma > 1:
        raise ValueError("cauchy_forward covers the kv chain with d_head <= ell <= d only")
    z = np.asarray(z, dtype=complex)
    H, gam, b2, al2 = chain.heads, chain.gamma, chain.b2, chain.alpha2
    y = 1.0 / chain.c
    em, ep = (1 - np.sqrt(y)) ** 2, (1 + np.sqrt(y)) ** 2
    t = np.cos(np.pi * (np.arange(nodes) + 0.5) / nodes)
    xq = 0.5 * (em + ep) + 0.5 * (ep - em) * t
    wq = (np.pi / nodes) * (0.5 * (ep - em)) ** 2 * (1 - t * t) / (2 * np.pi * y * xq)
    tau_q = (b2 / y * xq * xq + al2 * xq) / y
    GY, w2, Gh = 1 / z, H * z, 1 / (H * z)
    for _ in range(sweeps):
        w1 = z / (1 - gam + gam * z * GY)
        w2 = (1 - damping) * w2 + damping * (w1 + (1 - 1 / H) / Gh)
        integral = np.sum(wq * tau_q / (1 - np.multiply.outer(Gh, tau_q)), axis=-1)
        Gh = (1 - damping) * Gh + damping / (w2 - y * integral)      # G = −m
        GY = (1 - damping) * GY + damping * H * Gh / (1 - gam + gam * z * GY)
    return GY


# ---- edges in extended precision (test oracle) ---------------------------------------------------
def critical_value(chain, p0, dps=40):
    """z(p*) at the critical point z′(p*) = 0 of the untied chain's backward map nearest p0, in
    ``dps``-digit arithmetic (mpmath; the secant method of ``mpmath.findroot`` on z′ from
    ``z_of`` in forward-mode Jets): an oracle for the edges of the support.  The untied
    map is rational in p (no square roots), so ``z_of`` runs on mpmath numbers as is;
    the chain's parameters are taken exactly from its floats (β, unit, c, a, γ)."""
    import copy

    import mpmath

    if chain.kind != "untied":
        raise ValueError("critical_value covers the untied chain only")
    with mpmath.workdps(dps):
        beta2, unit = mpmath.mpf(chain.beta) ** 2, mpmath.mpf(chain.unit)
        exact = copy.copy(chain)
        for name, value in (("alpha2", (mpmath.expm1(beta2) - beta2) / unit),
                            ("b2", beta2 / unit), ("c", mpmath.mpf(chain.c)),
                            ("a", mpmath.mpf(chain.a)), ("gamma", mpmath.mpf(chain.gamma))):
            object.__setattr__(exact, name, value)
        p = mpmath.findroot(lambda q: z_of(exact, Jet(q, 1))[0].d, mpmath.mpc(p0))
        return complex(z_of(exact, Jet(p, 1))[0].v)
