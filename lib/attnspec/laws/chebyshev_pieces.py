"""Chebyshev series of a law's CDF, piece by piece: the maps, the adaptive build, the grading.

On a piece ``[a, b]`` of a support interval the CDF is a Chebyshev series in the angle
θ ∈ [0, π] of a map x(θ) chosen from the density's behaviour at the left end (``KIND_POWER``;
a ``"log"`` piece maps geometrically), so that ρ(x(θ)) x′(θ) is analytic and the series
converges geometrically. ``build_pieces`` samples the density, doubles the points or cuts
the piece in three until the tail is below 1e-14, and integrates the series exactly;
``graded_pieces`` cuts a support where the density keeps one power law over decades. The
evaluation (``cdf``, ``ppf``, the density from the series) is :mod:`attnspec.laws.chebyshev_stack`.
How and why: appendix A2 of the book, "The Chebyshev engine of the laws". Nothing here knows of
attention.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.fft import dct

__all__ = ["KIND_POWER", "build_pieces", "graded_pieces", "sin_map", "log_map",
           "sin2_map_inverse", "sin_map_inverse", "log_map_inverse"]

#: The power m of the CDF map x = a + (b − a) sin^{2m}(θ/2) for each kind of left end
#: ("log": a geometric map between the piece's ends, see :func:`graded_pieces`).
KIND_POWER = {"soft": 1, "hard": 1, "hard34": 2, "hard23": 3, "hard-sin6": 3, "inner": 1,
              "log": 1}
_CHEB_TOL = 1e-14
_CUT_ANGLES = (0.25 * np.pi, 0.75 * np.pi)  # a piece that does not converge is cut in three
_ABS_TOL = 1e-16            # a piece whose tail estimate (in mass) is below this is done

#: A support interval whose left end is within this fraction of its length of a change of
#: the density's power law (at distance f from the end) is cut at f·_GRADE_PAD and mapped
#: geometrically above (a "log" piece, see :func:`graded_pieces`).
#: Only when all those changes lie below _GRADE_SPAN of the length: the density then keeps
#: one power law over at least three decades (else one series resolves it, measured).
_GRADE_BELOW, _GRADE_PAD, _GRADE_SPAN = 1e-2, 10.0, 1e-3
_LONG_LOG = 35.0     # a log piece longer than this (in log t) needs 256 points (measured)


def sin_map(theta, a, b, m):
    """A piece's map x(θ) = a + (b − a) sin^{2m}(θ/2), θ ∈ [0, π], and its slope
    dx/dθ = (b − a) m sin^{2m−1}(θ/2) cos(θ/2): ``(x, dx/dθ)`` (arrays broadcast; one sine,
    cosine and power)."""
    half = 0.5 * theta
    sine = np.sin(half)
    power = (b - a) * sine ** (2 * m - 1)
    return a + power * sine, m * power * np.cos(half)


def log_map(theta, a, origin, rate):
    """A "log" piece's map x(θ) = o + (a − o) e^{λθ}, λ = ln((b − o)/(a − o))/π, and its
    slope dx/dθ = (a − o) λ e^{λθ}: ``(x, dx/dθ)`` (one exponential)."""
    growth = (a - origin) * np.exp(rate * theta)
    return origin + growth, rate * growth


def sin2_map_inverse(x, a, b):
    """θ of :func:`sin_map` for m = 1: 2 arctan(√(x − a)/√(b − x)) (full precision at both
    ends)."""
    return 2.0 * np.arctan2(np.sqrt(x - a), np.sqrt(b - x))


def sin_map_inverse(x, a, b, m):
    """θ of :func:`sin_map`: 2 arctan(r^{1/(2m)}/√(1 − r^{1/m})), r = (x − a)/(b − a)
    clipped to [0, 1]."""
    r = np.clip((x - a) / (b - a), 0.0, 1.0)
    return 2.0 * np.arctan2(r ** (1 / (2 * m)), np.sqrt(1.0 - r ** (1 / m)))


def log_map_inverse(x, a, origin, rate):
    """θ of :func:`log_map`: log1p((x − a)/(a − o))/λ (full precision near a)."""
    return np.log1p((x - a) / (a - origin)) / rate



class _Piece:
    """One support interval: the Chebyshev series of the CDF in the angle θ.

    Built by :func:`build_pieces`, which samples the density (``sample``), tests the
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
        """``(x(θ), dx/dθ)``: the piece's map (:func:`sin_map` or :func:`log_map`)."""
        if self.kind == "log":
            return log_map(theta, self.a, self.origin, self.rate)
        return sin_map(theta, self.a, self.b, self.m)

    def integrate(self, func):
        """∫ func(x) ρ(x) dx over the interval (Fejér's first rule on the stored nodes)."""
        return float(func(self.x) @ self.fejer_values())

    def fejer_values(self):
        """The samples ρ(x(θ_j)) x′(θ_j) times Fejér's weights (and π/2, the dθ of dy):
        ∫ f ρ dx over the piece is their dot product with f at the nodes."""
        if self._fejer is None:
            self._fejer = _fejer_weights(self.nodes.size) * self.values * (np.pi / 2)
        return self._fejer


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
#: ∫_{-1}^{1} T_{2i} = 2/(1 − 4i²), 2k for k ≥ 1, and (−1)^(k+1) for k ≥ 1.
_LONGEST = 1 << 14
_EVEN_INTEGRALS = 2.0 / (1.0 - (2.0 * np.arange(_LONGEST // 2 + 1)) ** 2)
_TWO_K = 2.0 * np.arange(1, _LONGEST + 1)
_ALTERNATING = np.where(np.arange(1, _LONGEST + 1) % 2 == 1, 1.0, -1.0)
for _table in (_EVEN_INTEGRALS, _TWO_K, _ALTERNATING):
    _table.flags.writeable = False


@functools.lru_cache(maxsize=32)
def _first_kind_angles(n):
    """θ_j = π(1 + cos(π(j + ½)/n))/2, j < n: the Chebyshev points of the first kind mapped
    to [0, π] (read-only)."""
    theta = 0.5 * np.pi * (1.0 + np.cos(np.pi * (np.arange(n) + 0.5) / n))
    theta.flags.writeable = False
    return theta


@functools.lru_cache(maxsize=64)
def _sin_powers(n, m):
    """sin^{2m}(θ/2) and m sin^{2m−1}(θ/2) cos(θ/2) at :func:`_first_kind_angles` (n): the
    sin map x = a + (b − a) sin^{2m}(θ/2) and its slope for a = 0, b = 1 (:func:`sin_map`;
    read-only)."""
    theta = _first_kind_angles(n)
    power, slope = sin_map(theta, 0.0, 1.0, m)
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


def build_pieces(intervals, pdf, points, max_pieces, trim):
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
