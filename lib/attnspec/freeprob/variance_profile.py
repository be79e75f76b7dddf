r"""Gram matrices of Gaussian matrices with a variance profile: the vector Dyson equation.

Let X be an ℓ×ℓ matrix with independent centred Gaussian entries of variance
E X_ij² = σ²(i/ℓ, j/ℓ)/ℓ. As ℓ → ∞ the eigenvalue law of X Xᵀ (the squared singular values
of X) converges to a deterministic law whose Stieltjes transform is

.. math:: \begin{gathered}
          m(z) = \int_0^1 ψ(x)\,dx, \\
          ψ(x) = \frac{-1}{z\,(1 + \int_0^1 σ^2(x, y)\, \tilde ψ(y)\,dy)}, \\
          \tilde ψ(y) = \frac{-1}{z\,(1 + \int_0^1 σ^2(x, y)\, ψ(x)\,dx)},
          \end{gathered}

the vector Dyson (quadratic vector) equation of the Gram matrix
(Hachem, Loubaton & Najim 2007; Ajanki, Erdős & Krüger 2019), solved for Im z > 0 with
Im ψ, Im ψ̃ > 0. A flat profile σ² gives Marchenko–Pastur MP(1, σ²).

The causal (lower-triangular) profile σ²·1{y ≤ x} has a closed form (derived in the book,
chapter 8, consistent with Dykema & Haagerup's DT operators: the moments are
σ^{2n} nⁿ/(n + 1)!). With v ∈ (0, π),

.. math:: \begin{gathered}
          t(v) = σ^2 \frac{\sin v}{v} e^{v\cot v}, \qquad
          ρ(t(v)) = \frac{\sin v\, e^{-v\cot v}}{π σ^2}, \\
          F(t(v)) = \frac{π - v + \sin^2 v / v}{π},
          \end{gathered}

supported on [0, e σ²]: :class:`attnspec.TriangularProfileLaw` (in :mod:`attnspec.laws`).
"""

from __future__ import annotations

import numpy as np

from .._validation import ParameterTypeError, check_float, check_int
from .ladder import continue_to_axis

__all__ = ["variance_profile_density", "triangular_profile"]


def triangular_profile(n, scale=1.0):
    r"""Cell averages of the causal profile σ²·1{y ≤ x} on an n×n grid of [0, 1]².

    Parameters
    ----------
    n : int
        Grid cells per axis, n ≥ 1.
    scale : float
        σ² > 0.

    Returns
    -------
    numpy.ndarray
        n×n array: σ² below the diagonal, σ²/2 on it (the cell average of the triangle),
        0 above.
    """
    n = check_int("n", n, min=1)
    scale = check_float("scale", scale, min=0, min_open=True)
    profile = np.tril(np.full((n, n), scale), k=-1)
    profile[np.diag_indices(n)] = scale / 2
    return profile


def _check_profile(profile):
    array = np.asarray(profile)
    if array.ndim != 2 or array.shape[0] != array.shape[1] or array.shape[0] < 1 \
            or not np.issubdtype(array.dtype, np.number) or np.iscomplexobj(array):
        raise ParameterTypeError("profile must be a square 2-D real array (cell averages of "
                                 f"σ²(x, y)); got shape {array.shape}, dtype {array.dtype}")
    array = array.astype(np.float64)
    if not np.isfinite(array).all() or (array < 0).any() or not (array > 0).any():
        raise ValueError("profile must be finite, non-negative and not all zero; got "
                         f"min {array.min()}, max {array.max()}")
    return array


def _dyson_step(psi, z, profile):
    """Residual F(ψ) = ψ + 1/(z v) of the discretised equation, with u, v."""
    n = profile.shape[0]
    u = 1.0 + psi @ profile / n                # 1 + ∫ σ²(x, y) ψ(x) dx, per column y
    psi_tilde = -1.0 / (z[:, None] * u)
    v = 1.0 + psi_tilde @ profile.T / n         # 1 + ∫ σ²(x, y) ψ̃(y) dy, per row x
    return psi + 1.0 / (z[:, None] * v), u, v


def _newton_step(g, z, profile, tol):
    """Newton correction for G = −ψ (the ladder's convention, Im G ≤ 0) at each z (batched).

    J = I − diag(1/(z v²)) Σ diag(1/(z u²)) Σᵀ / n² is the Jacobian of F(ψ) of
    :func:`_dyson_step`; the ψ-step J⁻¹F is a G-step of −J⁻¹F. Points whose residual is
    already below ``tol`` get a zero step (converged: the ladder stops them).
    """
    n = profile.shape[0]
    F, u, v = _dyson_step(-g, z, profile)
    delta = np.zeros_like(g)
    todo = np.max(np.abs(F), axis=1) > tol * np.maximum(1.0, np.max(np.abs(g), axis=1))
    if todo.any():
        F, u, v, z = F[todo], u[todo], v[todo], z[todo]
        inner = profile[None, :, :] * (1.0 / (z[:, None] * u ** 2))[:, None, :]
        J = np.eye(n) - ((1.0 / (z[:, None] * v ** 2))[:, :, None]
                         * (inner @ profile.T) / n ** 2)
        delta[todo] = -np.linalg.solve(J, F[:, :, None])[:, :, 0]
    return delta


def _far_from_axis(z, profile):
    """G = −ψ at z far from the real axis, by damped fixed-point iteration (a contraction)."""
    psi = np.tile(-1.0 / z[:, None], (1, profile.shape[0]))
    for _ in range(200):
        F, _, _ = _dyson_step(psi, z, profile)
        psi = psi - 0.5 * F
    return -psi


def variance_profile_density(profile, t, *, eta_min=1e-9, tol=1e-11):
    r"""Density of the limit law of X Xᵀ for a Gaussian X with a variance profile.

    Parameters
    ----------
    profile : array_like
        n×n cell averages of σ²(x, y) on [0, 1]² (row x, column y; e.g.
        :func:`attnspec.freeprob.variance_profile.triangular_profile`); entries ≥ 0, finite, not all zero.
    t : array_like
        Points t > 0 (finite) where the density is wanted.
    eta_min : float
        Final distance η of z = t + iη to the real axis, relative to the scale of the law
        (the largest row mean of the profile); 0 < eta_min ≤ 1e-3.
    tol : float
        Newton tolerance on the residual of the discretised equation, 0 < tol ≤ 1e-6.

    Returns
    -------
    numpy.ndarray
        ρ(t) = Im m(t + iη_min)/π, same shape as ``t``.

    Notes
    -----
    Solves the discretised vector Dyson equation (module docstring) with n unknowns ψ (ψ̃
    eliminated), for all t at once: damped fixed-point iteration at a large η, then
    Newton's method continued down a geometric ladder of 40 values of η to η_min, keeping
    the physical branch Im ψ > 0 (the library's one ladder,
    :func:`attnspec.freeprob.ladder.continue_to_axis`; A4 §3's recipe for ν_∞).
    Raises ``RuntimeError`` if a point fails to converge. Accuracy: the discretised equation
    is solved to ``tol``; what remains is the discretisation of the profile (measured in
    ``tests/test_freeprob_variance_profile.py`` and chapter 8: a flat profile gives
    Marchenko–Pastur to rounding at any n; the causal triangle, with cell averages, is within
    7e-4 relative of its closed form in the bulk at n = 50 and 1.7e-4 at n = 100, i.e.
    O(1/n²)). Cost O(len(t)·n³) per Newton step.
    """
    profile = _check_profile(profile)
    eta_min = check_float("eta_min", eta_min, min=0, max=1e-3, min_open=True)
    tol = check_float("tol", tol, min=0, max=1e-6, min_open=True)
    t0 = np.asarray(t, dtype=np.float64)
    t_flat = t0.reshape(-1)
    if t_flat.size == 0 or not np.isfinite(t_flat).all() or (t_flat <= 0).any():
        raise ValueError("t must be a non-empty array of finite values > 0; got values in "
                         f"[{np.min(t_flat) if t_flat.size else None}, "
                         f"{np.max(t_flat) if t_flat.size else None}]")
    scale = float(np.max(profile.mean(axis=1)))
    psi = -continue_to_axis(t_flat, lambda g, z: _newton_step(g, z, profile, tol),
                            lambda z: _far_from_axis(z, profile), scale,
                            top=4.0 + np.max(t_flat) / scale, bottom=eta_min,
                            levels=40, newton_steps=30, tol=tol)
    F, _, _ = _dyson_step(psi, t_flat + 1j * scale * eta_min, profile)
    residual = np.max(np.abs(F), axis=1)
    bad = ~(residual <= 10 * tol * np.maximum(1.0, np.max(np.abs(psi), axis=1)))
    if bad.any():
        raise RuntimeError(f"vector Dyson equation did not converge at t = {t_flat[bad][:5]} "
                           f"(residual {residual[bad][:5]})")
    density = psi.mean(axis=1).imag / np.pi
    return density.reshape(t0.shape)
