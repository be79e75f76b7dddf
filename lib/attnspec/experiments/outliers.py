"""Outliers and distances of sampled attention spectra to their limit laws (A4 §5).

The per-draw functions here are what the book's sweeps run (:func:`attnspec.sweep` needs
module-level, picklable functions): the distances of one softmax spectrum to its limit law
(:func:`spectrum_distances`), and where the outliers of √ℓ A^⊥ sit (:func:`outlier_localisation`).
"""

from __future__ import annotations


import numpy as np
import scipy.linalg

from .._docstrings import fill_docstring
from .._validation import check_beta, check_float, check_int, check_matrix, check_rng
from ..hermite import total_variance
from ..laws.attention import AttentionLaw
from ..laws.classical import MarchenkoPastur
from ..sampling.softmax import centered, softmax_attention
from ..spectra import column_ipr, ks_distance, squared_singular_values

__all__ = ["spectrum_distances", "outlier_localisation", "outlier_study"]


def _limit_laws(beta, c):
    return AttentionLaw(beta, c), MarchenkoPastur(1.0, total_variance(beta))


@fill_docstring
def spectrum_distances(ell, beta, rng=None, *, c=1.0, draws=1):
    r"""Distances of sampled softmax spectra to ν_∞ and to Marchenko–Pastur (A4 §5).

    The function a (β, ℓ) sweep runs at each point (module level, so processes can run it).

    Parameters
    ----------
    %(ell)s
    %(beta)s
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of randomness; the draws are taken one after the other from it.
    %(c)s
    draws : int
        Independent attention matrices, each measured separately.

    Returns
    -------
    dict
        Lists with one entry per draw: ``"ks_law"`` (KS distance to
        ``AttentionLaw(beta, c)``), ``"ks_mp"`` (to ``MarchenkoPastur(1, s)``, the prior
        prediction), ``"outliers"`` (number of squared singular values above the right edge
        z₊² of ν_∞), ``"m1"`` (mean) and ``"top"`` (largest value); plus the floats
        ``"edge"`` (z₊²) and ``"s"`` (e^{β²} − 1, the limiting mean).

    Notes
    -----
    The spectrum is the ℓ − 1 largest squared singular values of √ℓ A^⊥: A^⊥ 1 = 0, so the
    ℓ-th is 0 for structural reasons and is left out (at ℓ = 125 it alone would add 1/ℓ = 0.008
    to a KS distance). Outliers are kept: they are part of the finite-ℓ discrepancy. Their
    count uses the limiting edge itself, without a margin, so it also counts finite-ℓ
    fluctuations of the top of the bulk: the Gaussian-equivalent linear model, which has no
    outliers in the limit, can exceed z₊² in some draws by a small amount, expected of relative
    order ℓ^{-2/3} (the Tracy–Widom scale of a Wishart matrix; assumed for this model, not
    proved; chapter 5, section "Outliers above the bulk", gives this scale).
    """
    ell = check_int("ell", ell, min=2)
    beta = check_beta(beta)
    c = check_float("c", c, min=0, min_open=True)
    draws = check_int("draws", draws, min=1)
    rng = check_rng(rng)
    d_qk = max(1, round(ell / c))
    law, mp = _limit_laws(beta, ell / d_qk)
    edge = float(law.support()[1])
    out = {"ks_law": [], "ks_mp": [], "outliers": [], "m1": [], "top": []}
    for _ in range(draws):
        values = squared_singular_values(centered(softmax_attention(ell, d_qk, beta, rng)))[:-1]
        out["ks_law"].append(ks_distance(values, law))
        out["ks_mp"].append(ks_distance(values, mp))
        out["outliers"].append(int(np.sum(values > edge)))
        out["m1"].append(float(values.mean()))
        out["top"].append(float(values[0]))
    out["edge"] = edge
    out["s"] = total_variance(beta)
    return out


def outlier_localisation(M, k=10):
    r"""Where the top singular vectors of M sit, and how localised they are (A4 §5).

    Parameters
    ----------
    M : array_like
        ℓ×n real matrix (e.g. ``centered(A)``), ℓ ≤ n.
    k : int
        Number of leading singular pairs described, 1 ≤ k ≤ ℓ.

    Returns
    -------
    dict
        ``"values"``: all squared singular values, descending (length ℓ);
        ``"ipr"``: inverse participation ratio Σᵢ uᵢ⁴ of every left singular vector, in the
        same order (≈ 3/ℓ for a delocalised vector, 1 on a single coordinate);
        and for the top k pairs (u, v): ``"row"`` = :math:`\arg\max_i |u_i|`, ``"col"`` =
        :math:`\arg\max_j |v_j|`, ``"entry"`` = ``M[row, col]``, ``"entry_rank"`` = rank of
        ``abs(M[row, col])`` among the absolute values of all entries of M (1 = the
        largest), ``"ipr_right"`` = Σⱼ vⱼ⁴,
        ``"row_norm2"`` = ‖M[row, :]‖², ``"col_norm2"`` = ‖M[:, col]‖².

    Notes
    -----
    Computes every eigenvector of M Mᵀ (``eigh``, about three times the cost of the values
    alone); v = Mᵀu/s for the top k. A delocalised (Gaussian) vector has IPR ≈ 3/ℓ, a flat
    one 1/ℓ. What chapter 5 measures with it for √ℓ A^⊥ (A4 §5) [measured]: the singular
    vectors of the larger outliers sit on one row and one column, at one of the largest
    entries (the largest attention weights), while those just above the edge spread over
    several sites and mix with the bulk. That these weights are extreme scores is expected
    where the row sums concentrate, but not checked separately. The outliers are not a
    deterministic spike because their number and position change from draw to draw.
    """
    M = check_matrix("M", M)
    ell, n = M.shape
    if ell > n:
        raise ValueError(f"M must have at most as many rows as columns; got shape {M.shape}")
    k = check_int("k", k, min=1, max=ell)
    M = np.asarray(M, dtype=np.float64)
    values, vectors = scipy.linalg.eigh(M @ M.T, driver="evd")
    values, vectors = np.maximum(values[::-1], 0.0), vectors[:, ::-1]
    ipr = column_ipr(vectors)
    U = vectors[:, :k]
    V = M.T @ U
    V /= np.linalg.norm(V, axis=0, keepdims=True)
    rows = np.argmax(np.abs(U), axis=0)
    cols = np.argmax(np.abs(V), axis=0)
    entries = M[rows, cols]
    magnitudes = np.sort(np.abs(M), axis=None)[::-1]
    ranks = np.searchsorted(-magnitudes, -np.abs(entries), side="left") + 1
    return {"values": values, "ipr": ipr, "row": rows, "col": cols, "entry": entries,
            "entry_rank": ranks, "ipr_right": column_ipr(V),
            "row_norm2": np.sum(M[rows] ** 2, axis=1), "col_norm2": np.sum(M[:, cols] ** 2, axis=0)}


@fill_docstring
def outlier_study(ell, beta, rng=None, *, c=1.0):
    r"""One draw of √ℓ A^⊥: its outliers above the edge of ν_∞ and where they sit (A4 §5).

    The per-draw function of the outlier sweep of chapter 5 (module level, picklable; its
    result is cacheable by :func:`attnspec.sweep`).

    Parameters
    ----------
    %(ell)s
    %(beta)s
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of randomness.
    %(c)s

    Returns
    -------
    dict
        ``"edge"``: right edge z₊² of ``AttentionLaw(beta, ℓ/d_qk)``; ``"count"``: number of
        squared singular values above it; ``"values"``, ``"ipr"``: all squared singular values
        (descending) and the IPR of their left singular vectors; and the per-pair entries of
        :func:`outlier_localisation` for the top max(count, 1) pairs.

    Notes
    -----
    Cost: one eigendecomposition with vectors of an ℓ×ℓ matrix.
    """
    ell = check_int("ell", ell, min=2)
    c = check_float("c", c, min=0, min_open=True)
    d_qk = max(1, round(ell / c))
    law, _ = _limit_laws(beta, ell / d_qk)
    M = centered(softmax_attention(ell, d_qk, beta, check_rng(rng)))
    values = squared_singular_values(M)
    edge = float(law.support()[1])
    count = int(np.sum(values > edge))
    result = outlier_localisation(M, k=max(count, 1))
    result.update(edge=edge, count=count)
    return result

