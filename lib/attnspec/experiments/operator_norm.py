r"""Operator norms: the top singular value of A and the norm of the linear model (A4 §1, §3).

Two facts about the largest singular values, each with a simulation:

- **The top singular value σ₁(A)**: chapter 1's Proposition 1.1 (paper 1 states that
  σ₁(A) → 1; the sandwich is this book's derivation). Since A1 = 1 and A^⊥(1/ℓ) = 0,
  AAᵀ = 11ᵀ/ℓ + A^⊥A^⊥ᵀ, hence exactly

  .. math:: 1 \le \sigma_1(A)^2 \le 1 + \|\sqrt{\ell}A^\perp\|^2/\ell,

  so σ₁(A) → 1 whenever ‖√ℓA^⊥‖² = o(ℓ), in particular when ‖√ℓA^⊥‖ = O(1)
  (:func:`attention_norms`).
- **The edge of the linear model** (derived). ‖Y_lin‖² → z₊², the right edge of ν_∞(β, c),
  with z₊ = min over ω > β√e_M(c) of ω + α²G_b(ω), i.e. the stationary equation
  1 + α²G_b′(ω*) = 0, where G_b(ω) = ωG_M(ω²/β²)/β² and G_M is the Cauchy transform of the
  score-product law M (:func:`stationary_edge`, computed independently of
  :class:`attnspec.AttentionLaw`); the small- and large-β approximations are
  :func:`edge_approximations`; simulated norms are :func:`linear_model_norms`.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg
from scipy import optimize

from attnspec._validation import BETA_MAX, check_float, check_int
from attnspec.freeprob.roots import cubic_roots, polish_roots
from attnspec.freeprob.transforms import mp_edges, score_product_edges
from attnspec.hermite import noise_variance, total_variance
from attnspec.laws.classical import score_cauchy_cubic
from attnspec.sampling.equivalents import linear_equivalent
from attnspec.sampling.softmax import centered, softmax_attention

__all__ = ["score_cauchy_transform", "stationary_edge",
           "edge_approximations", "largest_squared_singular_value", "linear_model_norms",
           "attention_norms"]

#: β range of :func:`stationary_edge` (below 0.05 the minimiser sits within ~1e-11 of the
#: edge of M and double precision cannot resolve it).
STATIONARY_BETA_MIN = 0.05


def _cubic_root(x, c):
    """G_M(x) for real x > e_M(c): the smallest positive root of the cubic for G_M
    (:func:`attnspec.laws.classical.score_cauchy_cubic`, in v = 1/(G√x): its largest
    positive real root), Newton-polished (G ~ 1/x)."""
    coeffs = [float(a) for a in score_cauchy_cubic(x, c)]
    roots = cubic_roots(*coeffs)
    real = roots.real[(np.abs(roots.imag) <= 1e-10 * np.abs(roots)) & (roots.real > 0)]
    if real.size == 0:
        raise ValueError(f"x must lie right of the edge e_M(c) = {score_product_edges(c)[1]!r}; "
                         f"got x={x!r}")
    v = polish_roots(coeffs, [float(real.max())], 3)[0]
    return 1.0 / (v * math.sqrt(x))


def score_cauchy_transform(x, c):
    r"""Cauchy transform G_M(x) and its derivative at real x > e_M(c) (A4 §3).

    G solves c x² G³ + (1 − c) x G² − x G + 1 = 0; right of the support it is the smallest
    positive root (the branch with G ~ 1/x). G′ = −P_x/P_G by implicit differentiation.

    Returns
    -------
    (float, float)
        G_M(x) and G_M′(x).
    """
    c = check_float("c", c, min=0, min_open=True)
    x = check_float("x", x, min=score_product_edges(c)[1], min_open=True)
    G = _cubic_root(x, c)
    P_x = 2 * c * x * G ** 3 + (1 - c) * G * G - G
    P_G = 3 * c * x * x * G * G + 2 * (1 - c) * x * G - x
    return G, -P_x / P_G


def stationary_edge(beta, c):
    r"""Right edge z₊² of ν_∞(β, c) from the stationary equation 1 + α²G_b′(ω) = 0.

    .. math:: \begin{gathered}
              z_+ = \min_{\omega > \beta\sqrt{e_M(c)}} \omega + \alpha^2 G_b(\omega), \\
              G_b(\omega) = \frac{\omega}{\beta^2} G_M\!\Bigl(\frac{\omega^2}{\beta^2}\Bigr),
              \end{gathered}

    the subordination form of A4 §3 (free convolution of sym(b) with a semicircle of
    variance α²). Independent of :class:`attnspec.AttentionLaw`, which takes the critical point
    of the inverse Cauchy transform instead; the two agree to ~1e-14 relative (tests/test_operator_norm.py).

    Parameters
    ----------
    beta : float
        Inverse temperature, STATIONARY_BETA_MIN ≤ β ≤ 6 (beyond 6, α² G_b is a difference of
        numbers ~e^{36} and the root bracket loses precision).
    c : float
        c = ℓ/d_qk, 0 < c ≤ 64.

    Returns
    -------
    float
        z₊² (≥ the Marchenko–Pastur edge 4s, strictly above it).
    """
    beta = check_float("beta", beta, min=STATIONARY_BETA_MIN, max=6.0)
    c = check_float("c", c, min=0, max=64.0, min_open=True)
    a2 = noise_variance(beta)
    e_M = score_product_edges(c)[1]
    w_edge = beta * math.sqrt(e_M)

    def slope(w):
        G, dG = score_cauchy_transform(w * w / beta ** 2, c)
        dGb = G / beta ** 2 + 2 * w * w * dG / beta ** 4
        return 1 + a2 * dGb

    lo = w_edge * (1 + 1e-13)
    while slope(lo) > 0:  # the divergence of G_M′ is not yet felt: step towards the edge
        lo = w_edge + (lo - w_edge) * 1e-2
        if lo - w_edge <= 4e-16 * w_edge:
            break
    hi = w_edge * 2 + 2 * math.sqrt(a2)
    while slope(hi) < 0:
        hi *= 2
    w = optimize.brentq(slope, lo, hi, xtol=1e-15 * hi, rtol=1e-15, maxiter=400)
    G, _ = score_cauchy_transform(w * w / beta ** 2, c)
    z = w + a2 * w * G / beta ** 2
    return z * z


def edge_approximations(beta, c):
    r"""Small- and large-β approximations of the edge z₊² (A4 §3).

    ``small`` = e_M(c)β² (the noise α² ≈ β⁴/2 vanishes against β², so z₊²/β² → e_M(c), and
    z₊²/(4s) → e_M(c)/4, 27/16 at c = 1); ``large`` = 4s + 4cβ⁴/s (first order in the fourth
    free cumulant cβ⁴ when s dominates). ``beta`` may be an array.

    Returns
    -------
    dict
        ``{"small": ..., "large": ..., "mp": 4s}`` (arrays shaped like ``beta``).
    """
    c = check_float("c", c, min=0, min_open=True)
    b = np.asarray(beta, dtype=float)
    if b.size == 0 or not np.all(np.isfinite(b)) or np.any(b <= 0) or np.any(b > BETA_MAX):
        raise ValueError(f"beta must be finite numbers in (0, {BETA_MAX}]; got beta={beta!r}")
    s = total_variance(b)
    mp_edge = mp_edges(1.0, s)[1]
    return {"small": score_product_edges(c)[1] * b ** 2, "large": mp_edge + 4 * c * b ** 4 / s,
            "mp": mp_edge}


def largest_squared_singular_value(M):
    """‖M‖², the largest eigenvalue of the smaller Gram matrix (no vectors, one eigenvalue)."""
    M = np.asarray(M, dtype=np.float64)
    if M.ndim != 2 or M.size == 0 or not np.all(np.isfinite(M)):
        raise ValueError(f"M must be a non-empty finite 2-d array; got shape {np.shape(M)}")
    gram = M @ M.T if M.shape[0] <= M.shape[1] else M.T @ M
    n = gram.shape[0]
    return float(scipy.linalg.eigh(gram, eigvals_only=True, subset_by_index=[n - 1, n - 1])[0])


def _checked_study(ells, beta, c, draws, seed):
    """Checked (ells, β, c, draws) of a size study and one random stream per (ℓ, draw)."""
    ells = _check_sizes(ells)
    beta = check_float("beta", beta, min=0, max=BETA_MAX, min_open=True)
    c = check_float("c", c, min=0, min_open=True)
    draws = check_int("draws", draws, min=1)
    return ells, beta, c, draws, iter(_streams(seed, len(ells) * draws))


def _check_sizes(ells):
    """The sizes ℓ as a non-empty list of ints ≥ 2."""
    sizes = np.atleast_1d(ells)
    if sizes.ndim != 1 or sizes.size == 0:
        raise ValueError(f"ells must be a non-empty list of sizes >= 2; got ells={ells!r}")
    return [check_int("ells", e, min=2) for e in sizes]


def _streams(seed, count):
    seed = check_int("seed", seed, min=0)
    return np.random.SeedSequence(seed).spawn(count)


def linear_model_norms(ells, beta, c, draws=1, seed=0):
    """‖Y_lin‖² for each ℓ in ``ells`` (d_qk = round(ℓ/c)), ``draws`` seeded draws each.

    Returns
    -------
    numpy.ndarray
        Shape (len(ells), draws); row i converges to z₊²(β, c) as ℓ grows (from below on
        average: Tracy–Widom fluctuations of order ℓ^{-2/3}).
    """
    ells, beta, c, draws, streams = _checked_study(ells, beta, c, draws, seed)
    out = np.empty((len(ells), draws))
    for i, ell in enumerate(ells):
        d_qk = max(1, round(ell / c))
        for j in range(draws):
            Y = linear_equivalent(ell, d_qk, beta, rng=next(streams))
            out[i, j] = largest_squared_singular_value(Y)
    return out


def attention_norms(ells, beta, c=1.0, draws=1, seed=0):
    r"""Top singular value σ₁(A) and ‖√ℓA^⊥‖² of softmax attention, for each ℓ in ``ells``.

    Returns
    -------
    dict
        ``"s1"`` (σ₁(A)), ``"centred_norm2"`` and ``"upper"`` = √(1 + ‖√ℓA^⊥‖²/ℓ), arrays of
        shape (len(ells), draws). Exactly 1 ≤ σ₁(A) ≤ upper (the sandwich of chapter 1's
        Proposition 1.1).
    """
    ells, beta, c, draws, streams = _checked_study(ells, beta, c, draws, seed)
    s1 = np.empty((len(ells), draws))
    norm2 = np.empty_like(s1)
    for i, ell in enumerate(ells):
        d_qk = max(1, round(ell / c))
        for j in range(draws):
            A = softmax_attention(ell, d_qk, beta, rng=next(streams))
            s1[i, j] = math.sqrt(largest_squared_singular_value(A))
            norm2[i, j] = largest_squared_singular_value(centered(A))
    ell_col = np.asarray(ells, dtype=float)[:, None]
    return {"s1": s1, "centred_norm2": norm2, "upper": np.sqrt(1 + norm2 / ell_col)}
