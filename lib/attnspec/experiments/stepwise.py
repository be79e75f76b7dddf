"""The stepwise chain, measured: bulk spectra of its six matrices and their distances (A4 §4).

:func:`stepwise_spectra` is the per-draw function of chapter 4's sweep (module level, so
:func:`attnspec.sweep` can run it in worker processes); :func:`compare_bulks` turns two families
of per-draw spectra into the KS, W₁ and sorted-gap distances the chapter tabulates.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_int, check_rng
from ..sampling.equivalents import STEPWISE_KEYS, mp_surrogate, stepwise_chain
from ..spectra import ks_distance, squared_singular_values, wasserstein1

__all__ = ["stepwise_spectra", "compare_bulks", "STEPWISE_LABELS"]


#: LaTeX labels of the stepwise chain (keys of :func:`attnspec.stepwise_chain`) and of the
#: Marchenko–Pastur surrogate, for figures and tables.
STEPWISE_LABELS = {
    "softmax": r"$\sqrt{\ell}A^{\perp}$",
    "Y": r"$Y$",
    "Y_f": r"$Y^{f}$",
    "Y_Q": r"$Y^{Q}$",
    "Y_Q_lin": r"$Y^{Q}_{\mathrm{lin}}$",
    "Y_f_lin": r"$Y^{f}_{\mathrm{lin}}$",
    "mp": r"MP surrogate",
}


def stepwise_spectra(ell, d_qk, beta, rng=None, *, degree=3, drop_top=3, surrogate=True):
    r"""Bulk spectra of the six matrices of the stepwise chain, from one draw (A4 §4).

    Parameters
    ----------
    ell, d_qk : int
        Tokens ℓ ≥ 2 and query/key width d_qk ≥ 1.
    beta : float
        Inverse temperature β > 0.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of randomness: the chain is drawn first (Q, K, then Z, see
        :func:`attnspec.stepwise_chain`), then the surrogate.
    degree : int
        Hermite truncation degree n ≥ 1 of ``Y_Q`` and ``Y_Q_lin`` (n as in A4 §4 and
        chapter 4).
    drop_top : int
        Largest squared singular values removed from each spectrum (0 ≤ drop_top < ℓ − 1).
    surrogate : bool
        Also return the Marchenko–Pastur surrogate ``"mp"`` (:func:`attnspec.mp_surrogate`),
        an independent ℓ×ℓ Gaussian matrix with variance s/ℓ per entry.

    Returns
    -------
    dict
        Keys :data:`attnspec.sampling.equivalents.STEPWISE_KEYS` (and ``"mp"``), each the squared singular values
        without the top ``drop_top``, in descending order (length ℓ − drop_top).

    Notes
    -----
    Only eigenvalues of Gram matrices are computed (``eigh`` without vectors), seven per draw;
    the ℓ×ℓ matrices are freed one by one. A draw costs those seven eigenvalue computations of
    ℓ×ℓ symmetric matrices plus the products that form them (``make bench`` times one such
    computation on your machine).
    """
    drop_top = check_int("drop_top", drop_top, min=0)
    rng = check_rng(rng)
    chain = stepwise_chain(ell, d_qk, beta, rng, degree=degree)
    spectra = {}
    for key in STEPWISE_KEYS:
        spectra[key] = squared_singular_values(chain.pop(key), drop_top=drop_top)
    if surrogate:
        spectra["mp"] = squared_singular_values(mp_surrogate(ell, beta, rng), drop_top=drop_top)
    return spectra


def compare_bulks(spectra, reference):
    r"""Three distances between two families of spectra, one spectrum per draw (A4 §4).

    Parameters
    ----------
    spectra, reference : list of array_like
        Per-draw spectra (e.g. bulks from :func:`stepwise_spectra`), the same number of draws
        and, within a draw, the same number of values.

    Returns
    -------
    dict
        ``"ks"``: two-sample Kolmogorov–Smirnov distance of the pooled values;
        ``"w1"``: Wasserstein-1 distance of the pooled values;
        ``"sorted_gap"``: the mean over draws r and ranks k of
        :math:`|s_{k,r}^2 - t_{k,r}^2|`, both sorted within the draw.

    Notes
    -----
    KS and W₁ compare the two empirical laws. The sorted gap compares draw by draw: when the
    two families are built from the same Q, K, Z (the stepwise chain), it measures how far each
    step moves the individual eigenvalues, and it is never smaller than the W₁ distance of
    the pooled values. For samples that share nothing (the MP surrogate) it is a W₁-type
    distance at the level of single draws.
    """
    spectra = [np.sort(np.asarray(s, dtype=np.float64).ravel()) for s in spectra]
    reference = [np.sort(np.asarray(s, dtype=np.float64).ravel()) for s in reference]
    if not spectra or len(spectra) != len(reference):
        raise ValueError("spectra and reference must be non-empty lists with one spectrum per "
                         f"draw, as many of each; got {len(spectra)} and {len(reference)}")
    for r, (a, b) in enumerate(zip(spectra, reference)):
        if a.size != b.size or a.size == 0:
            raise ValueError("each draw must have the same, non-zero number of values in "
                             f"spectra and reference; got {a.size} and {b.size} in draw {r}")
    pooled, pooled_ref = np.concatenate(spectra), np.concatenate(reference)
    gaps = [np.mean(np.abs(a - b)) for a, b in zip(spectra, reference)]
    return {"ks": ks_distance(pooled, pooled_ref), "w1": wasserstein1(pooled, pooled_ref),
            "sorted_gap": float(np.mean(gaps))}
