"""Second methods for the multi-head law's Cauchy transform (test and benchmark oracles).

Independent of the solver of :class:`attnspec.laws.multihead.MultiHeadLaw` (Newton's method
from remembered solutions and an η-ladder): the polynomial method (all roots of a cleared
polynomial, selected by the Nevanlinna conditions only) for untied heads, and a damped forward
fixed point with quadrature for the key–value tie (chapter A1, Verification).  They share only
the backward map ``Chain.z_of`` (the formulas of A1) and ``Chain.is_physical``.
"""

import numpy as np

from attnspec.freeprob.chains import Jet

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
    zr = chain.z_of(g)[0]
    out = np.full(np.shape(z), np.nan + 0j)
    for k, zk in enumerate(np.atleast_1d(z)):
        poly = zr.num - zk * zr.den
        p = np.roots(poly.coef[::-1])
        p = p[p != 0]
        for _ in range(3):   # polish the companion-matrix roots
            J = chain.z_of(Jet(p, np.ones_like(p)))[0]
            p = p - (J.v - zk) / J.d
        z_p = chain.z_of(Jet(p, 0 * p))[0].v
        p = p[(np.abs(z_p - zk) < 1e-10 * abs(zk)) & chain.is_physical(p, tol=0.0)]
        p = p[np.r_[True, np.abs(np.diff(np.sort_complex(p))) > 1e-8 * np.abs(p[1:])]] \
            if p.size > 1 else p
        if p.size == 1:
            out.flat[k] = chain.z_of(Jet(p, 0 * p))[1].v[0]
    return out


# ---- second method: forward fixed point (test and benchmark oracle) ---------------------------
def cauchy_forward(chain, z, sweeps=4000, damping=0.5, nodes=2000):
    """G_Y(z), Im z > 0, for the kv chain by a damped forward fixed point (a second method).

    Independent of :meth:`Chain.z_of`: the kv head from the Silverstein–Bai equation
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
    ``Chain.z_of`` in forward-mode Jets): an oracle for the edges of the support.  The untied
    map is rational in p (no square roots), so ``Chain.z_of`` runs on mpmath numbers as is;
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
        p = mpmath.findroot(lambda q: exact.z_of(Jet(q, 1))[0].d, mpmath.mpc(p0))
        return complex(exact.z_of(Jet(p, 1))[0].v)
