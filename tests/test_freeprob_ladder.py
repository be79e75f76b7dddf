"""Tests of attnspec.freeprob.ladder: the η-continuation ladder (MATH.md §3).

Oracle: the semicircle law of variance 1, G(z) = (z − √(z² − 4))/2, density √(4 − x²)/(2π).
"""

import numpy as np
from numpy.testing import assert_allclose

from attnspec.freeprob.ladder import continue_to_axis

X = np.linspace(-2.5, 2.5, 41)


def semicircle_step(g, z):
    """Newton correction for F(g; z) = g² − z g + 1."""
    return (g * g - z * g + 1) / (2 * g - z)


def semicircle_step_and_slope(g, z):
    """The correction and dg/dz = −∂_zF/∂_gF = g/(2g − z)."""
    return semicircle_step(g, z), g / (2 * g - z)


def exact(z):
    """The semicircle's Cauchy transform, branch with G ~ 1/z."""
    root = np.sqrt(z - 2) * np.sqrt(z + 2)
    return (z - root) / 2


def test_default_ladder_reaches_the_semicircle():
    g = continue_to_axis(X, semicircle_step, lambda z: 1 / z, 1.0)
    assert_allclose(g, exact(X + 1e-10j), rtol=1e-9, atol=1e-9)


def test_tangent_predictor_on_a_coarse_ladder():
    """One Newton step per level on 12 levels (η falls by ~10 per level): with the predictor
    the ladder ends on the right branch to 1e-6 at η = 1e-8 (the residual of one step), and
    per-point ladder bottoms (an array) are honoured; away from the edges ±2, where one
    step per level cannot follow the square-root singularity."""
    x = X[np.abs(np.abs(X) - 2) > 0.05]
    bottom = np.full(x.shape, 1e-8)
    g = continue_to_axis(x, semicircle_step_and_slope, lambda z: 1 / z, 1.0, top=100.0,
                         bottom=bottom, levels=12, newton_steps=1, tol=0.0, tangent=True)
    assert np.all(g.imag <= 0)
    assert_allclose(g, exact(x + 1e-8j), rtol=1e-6, atol=1e-6)
