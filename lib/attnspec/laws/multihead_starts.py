"""Starting points of Newton's method for the multi-head law's solver
(:class:`attnspec.laws.multihead.MultiHeadLaw`): known solutions interpolated in the angle of
the CDF map, the zero of a chord, the projection of a solution on the axis of an edge, and the
limit of p at a hard edge at 0.
"""

from __future__ import annotations

import numpy as np

from .chebyshev_pieces import sin_map_inverse

__all__ = ["interpolate", "sign_change", "on_axis", "toward_limit", "log_near_zero", "R_LOG"]


def interpolate(c, nodes, values, group):
    """Complex ``values`` at the sorted ``nodes`` interpolated at ``c``: cubic (Lagrange on
    the four nearest nodes) where they are distinct, belong to one ``group`` and bracket c;
    linear (``numpy.interp``) elsewhere."""
    linear = np.interp(c, nodes, values.real) + 1j * np.interp(c, nodes, values.imag)
    n = nodes.size
    if n < 4:
        return linear
    stencil = np.clip(np.searchsorted(nodes, c), 2, n - 2)[:, None] + np.arange(-2, 2)
    at, dist = nodes[stencil], c[:, None] - nodes[stencil]
    cubic = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        for j in range(4):
            weight = 1.0
            for k in range(4):
                if k != j:
                    weight = weight * dist[:, k] / (at[:, j] - at[:, k])
            cubic = cubic + weight * values[stencil[:, j]]
    usable = (np.isfinite(cubic) & (c >= nodes[0]) & (c <= nodes[-1])
              & np.all(group[stencil] == group[stencil[:, :1]], axis=1))
    return np.where(usable, cubic, linear)


def sign_change(p, f, i):
    """Where f changes sign between p[i − 1] and p[i] (f[i − 1] < 0 ≤ f[i], real p): the zero
    of the chord (regula falsi, error O((p[i] − p[i − 1])²)); else p[max(i − 1, 0)]."""
    if i == 0 or not (f[i - 1] < 0 <= f[i] < np.inf):
        return p[max(i - 1, 0)]
    return p[i - 1] - f[i - 1] * (p[i] - p[i - 1]) / (f[i] - f[i - 1])


def on_axis(inside, outside):
    """A start for Newton's method on z′(p) = 0 at an edge, from the solutions p at the scan
    points just inside and just outside the support.  Outside, p lies on the real or the
    imaginary axis (where z is real: z(p̄) = z(p)‾, and for untied heads z(−p) = z(p)), and so
    does the edge; inside, p − p_edge ∝ √(x − edge) leaves the axis at a right angle.  So the
    projection of ``inside`` on the line through 0 and ``outside`` has an error O(x − edge)
    instead of O(√(x − edge)); ``inside`` itself where ``outside`` is not on an axis (or the
    projection is 0, where the map has a pole)."""
    if not (np.isfinite(outside) and outside != 0
            and min(abs(outside.real), abs(outside.imag)) <= 1e-8 * abs(outside)):
        return inside
    axis = outside / abs(outside)
    projection = (inside * np.conj(axis)).real * axis
    return projection if projection != 0 else inside


def toward_limit(xs, ps, x):
    """Starting points at x below the three lowest solutions ``ps`` (at ``xs``, ascending)
    where p tends to a finite p₀ as x → 0 (a hard edge at 0, z ≈ C(p − p₀)^k):
    p₀ + (p₁ − p₀)(x/x₁)^{1/k}, on the ray along which Newton's method approaches the root,
    with p₀ from the two lowest solutions for the k ∈ {2, 3, 4} at which the next two give
    the same p₀ to 5 % of |p₁ − p₀|; None if no k does."""
    best = None
    for k in (2, 3, 4):
        ratio = (xs[:2] / xs[1:]) ** (1 / k)            # (p_j − p₀)/(p_{j+1} − p₀)
        limits = (ps[:2] - ratio * ps[1:]) / (1 - ratio)
        miss = abs(limits[0] - limits[1]) / abs(ps[0] - limits[0])
        if best is None or miss < best[0]:
            best = (miss, k, limits[0])
    miss, k, limit = best
    if not miss <= 0.05:
        return None
    return limit + (ps[0] - limit) * (x / xs[0]) ** (1 / k)


R_LOG = 1e-3   # below this fraction of an interval from a hard edge at 0: log θ


def log_near_zero(theta, m):
    """θ, and below θ_c (the angle at R_LOG of the interval) θ_c(1 + log(θ/θ_c)): continuous
    with its derivative at θ_c, and where p → ∞ as a power of x (so of θ) towards a hard
    edge at 0, log p is linear in it (cubic interpolation of log p in θ is not)."""
    tc = sin_map_inverse(R_LOG, 0.0, 1.0, m)
    with np.errstate(divide="ignore"):
        return np.where(theta < tc, tc * (1 + np.log(np.maximum(theta, 1e-300) / tc)), theta)
