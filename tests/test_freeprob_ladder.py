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
