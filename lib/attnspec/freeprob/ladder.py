"""One η-continuation ladder for Cauchy transforms on the real axis (A4 §3).

``continue_to_axis(x, step, start, scale)`` solves an equation ``F(g; z) = 0`` for the
Cauchy transform ``g = G(z)`` at ``z = x + iη`` for a decreasing geometric ladder of η
(from ``top·scale`` to ``bottom·scale``), by Newton's method at each level started from the
solution of the level above. Continuation in η at fixed x (never along the real axis) keeps
the physical sheet; a Newton step that would leave the lower half plane (``Im g ≤ 0`` is the
physical sheet for ``Im z > 0``) is halved until it does not. The unknown may also be a
vector per point (g of shape (len(x), n), e.g. the n cell values of a vector Dyson
equation): a point's step is then halved, and the point stops, as a whole. Optionally each
level starts from the first-order predictor along the solution branch g(z). Used by
:class:`attnspec.AttentionLaw` (points the closed-form roots cannot resolve), by the
subordination densities of chapter 2, by the variance-profile solver
(:func:`attnspec.variance_profile_density`) and by the multi-head chains
(:mod:`attnspec.freeprob.chains`, where the unknown is the chain's parameter p, also in the
lower half plane).
"""

from __future__ import annotations

import numpy as np

__all__ = ["continue_to_axis", "LADDER_LEVELS", "NEWTON_STEPS"]

#: Default number of values of η in the ladder, and Newton iterations (at most) per value.
LADDER_LEVELS, NEWTON_STEPS = 30, 40


def continue_to_axis(x, step, start, scale, *, top=4.0, bottom=1e-10, levels=LADDER_LEVELS,
                     newton_steps=NEWTON_STEPS, tol=1e-13, tangent=False):
    r"""G(x + iη) at the bottom of a geometric ladder of η, for real points x (A4 §3).

    Parameters
    ----------
    x : numpy.ndarray
        Real points, 1-D (float or complex dtype with zero imaginary part).
    step : callable
        ``step(g, z)``: the Newton correction ``F/∂F`` for the equation at ``z``
        (vectorised over matching 1-D arrays); with ``tangent=True`` the pair
        ``(F/∂F, dg/dz)``, dg/dz = −∂_zF/∂_gF the slope of the solution branch.
    start : callable
        ``start(z)``: the starting value at the top of the ladder (typically ``1/z``): shape
        ``(len(x),)``, or ``(len(x), n)`` for a vector unknown per point (then ``step``
        works on the same shape).
    scale : float
        Typical size of the law; η runs from ``top·scale`` to ``bottom·scale``.
    top, bottom : float or numpy.ndarray
        Ends of the ladder in units of ``scale`` (η = scale·geomspace(top, bottom, levels));
        an array (one value per point) gives each point its own ladder.
    levels, newton_steps : int
        Number of ladder levels, and Newton iterations at most per level.
    tol : float
        A point stops iterating at a level once its step is below ``tol·|g|`` (``tol = 0``:
        always ``newton_steps`` steps).
    tangent : bool, default False
        Start each level below the top from the predictor ``g + (dg/dz)·(z_new − z_old)``
        (dg/dz from the point's last Newton step at the level above; kept where it would
        leave the lower half plane), so that one Newton step per level suffices on coarse
        ladders.

    Returns
    -------
    numpy.ndarray
        Complex g at ``z = x + i·bottom·scale``, with ``Im g ≤ 0``, shaped like
        ``start``'s value. (Finish with a few Newton steps at η = 0 if the boundary value
        itself is wanted.)

    Examples
    --------
    >>> x = np.array([0.0, 1.0])   # semicircle of variance 1: g² − z g + 1 = 0
    >>> g = continue_to_axis(x, lambda g, z: (g * g - z * g + 1) / (2 * g - z),
    ...                      lambda z: 1 / z, 1.0)
    >>> [round(float(-v.imag / np.pi), 8) for v in g]   # √(4 − x²)/(2π)
    [0.31830989, 0.27566445]
    """
    x = np.asarray(x)
    etas = scale * np.geomspace(top, bottom, levels)      # (levels,) or (levels, x.size)
    g = start(x + 1j * etas[0])
    slope = np.zeros(np.shape(g), complex) if tangent else None
    previous = None
    for eta in etas:
        z = x + 1j * eta
        if tangent and previous is not None:
            shift = (z - previous).reshape((-1,) + (1,) * (np.ndim(g) - 1))
            predicted = g + slope * shift
            off = _per_point(~(np.isfinite(predicted) & (predicted.imag <= 0)), np.ndim(g))
            g = np.where(off, g, predicted)
        previous = z
        active = None                                    # None: every point
        for k in range(newton_steps):
            ga, za = (g, z) if active is None else (g[active], z[active])
            delta = step(ga, za)
            if tangent:
                delta, slope_a = delta
                slope[... if active is None else active] = slope_a
            finite = np.isfinite(delta)
            if not finite.all():
                delta = np.where(finite, delta, 0.0)
            trial = ga - delta
            for _ in range(30):
                bad = _per_point(trial.imag > 0, delta.ndim)
                if not bad.any():
                    new = trial
                    break
                delta = np.where(bad, delta / 2, delta)
                trial = ga - delta
            else:                                        # still above: mirror the old value
                new = np.where(trial.imag > 0, ga.real - 1j * np.abs(ga.imag), trial)
            if active is None:
                g = new
            else:
                g[active] = new
            if k + 1 == newton_steps:                   # the last step at this level
                break
            moved = np.abs(delta) > tol * np.maximum(np.abs(trial), 1e-300)
            active = (np.flatnonzero(_per_point(moved, 1)) if active is None
                      else active[_per_point(moved, 1)])
            if active.size == 0:
                break
    return g


def _per_point(flags, ndim):
    """Any flag over a point's components (trailing axes), shaped for ``ndim`` dimensions."""
    if flags.ndim == 1:
        return flags
    anywhere = flags.reshape(flags.shape[0], -1).any(axis=1)
    return anywhere.reshape((-1,) + (1,) * (ndim - 1))
