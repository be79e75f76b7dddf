"""The η-continuation ladder (freeprob/ladder.py).

Oracles: the semicircle's closed-form density √(4 − x²)/(2π) and Marchenko–Pastur's, each
reached by the ladder from its quadratic equation, with a scalar and with a vector unknown.
"""

import numpy as np

from attnspec.freeprob.ladder import continue_to_axis


def semicircle_step(g, z):
    """Newton correction for g² − z g + 1 = 0 (semicircle of variance 1)."""
    return (g * g - z * g + 1) / (2 * g - z)


def test_scalar_unknown_gives_the_semicircle():
    x = np.linspace(-1.99, 1.99, 41)
    g = continue_to_axis(x.astype(complex), semicircle_step, lambda z: 1 / z, 1.0)
    assert np.max(np.abs(-g.imag / np.pi - np.sqrt(4 - x ** 2) / (2 * np.pi))) < 1e-8
    assert (g.imag <= 0).all()


def test_vector_unknown_solves_each_component_as_the_scalar_ladder_does():
    """Two decoupled components per point: a semicircle of variance 1 and
    Marchenko–Pastur MP(1, 1) (z g² − z g + 1 = 0), solved together."""
    x = np.linspace(0.05, 1.95, 30)

    def step(g, z):
        zz = z[:, None]
        F = np.stack([g[:, 0] ** 2 - z * g[:, 0] + 1,
                      z * g[:, 1] ** 2 - z * g[:, 1] + 1], axis=1)
        dF = np.stack([2 * g[:, 0] - z, 2 * zz[:, 0] * g[:, 1] - z], axis=1)
        return F / dF

    g = continue_to_axis(x, step, lambda z: np.stack([1 / z, 1 / z], axis=1), 1.0)
    assert g.shape == (x.size, 2) and (g.imag <= 0).all()
    semicircle = np.sqrt(4 - x ** 2) / (2 * np.pi)
    mp = np.sqrt(x * (4 - x)) / (2 * np.pi * x)
    assert np.max(np.abs(-g[:, 0].imag / np.pi - semicircle)) < 1e-8
    assert np.max(np.abs(-g[:, 1].imag / np.pi - mp)) < 1e-8


def semicircle_step_and_slope(g, z):
    """The correction and the branch slope dg/dz = −∂_zF/∂_gF = g/(2g − z)."""
    return semicircle_step(g, z), g / (2 * g - z)


def semicircle_cauchy(z):
    """The semicircle's Cauchy transform (z − √(z² − 4))/2, branch with G ~ 1/z."""
    return (z - np.sqrt(z - 2) * np.sqrt(z + 2)) / 2


def test_tangent_predictor_on_a_coarse_ladder():
    """One Newton step per level on 12 levels (η falls by ~10 per level) from the predictor
    g + (dg/dz)Δz: the ladder ends on the right branch at η = 1e-8 (per-point bottoms, an
    array, honoured), away from the edges ±2 where one step per level cannot follow the
    square-root singularity."""
    x = np.linspace(-2.5, 2.5, 41)
    x = x[np.abs(np.abs(x) - 2) > 0.05]
    g = continue_to_axis(x, semicircle_step_and_slope, lambda z: 1 / z, 1.0, top=100.0,
                         bottom=np.full(x.shape, 1e-8), levels=12, newton_steps=1, tol=0.0,
                         tangent=True)
    assert (g.imag <= 0).all()
    assert np.max(np.abs(g - semicircle_cauchy(x + 1e-8j))) < 1e-6
