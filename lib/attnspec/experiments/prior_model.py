r"""The prior model against softmax attention: i.i.d. scores give Marchenko–Pastur (A4 §2).

Earlier work modelled attention at initialisation by a random Markov matrix with i.i.d.
scores (:func:`attnspec.iid_score_attention`). That √ℓ times its centred version has MP(1, s)
squared singular values, s = e^{β²} − 1, is this book's deduction from the circular law for
random Markov matrices (Bordenave, Caputo & Chafaï 2012), not a statement of that work. Real
scores are the product QKᵀ/√d_qk, and the law is ν_∞(β, c) instead.
"""

from __future__ import annotations

import numpy as np

from attnspec._validation import BETA_MAX, check_float, check_int
from attnspec.hermite import total_variance
from attnspec.laws.attention import AttentionLaw
from attnspec.laws.classical import MarchenkoPastur
from attnspec.sampling.softmax import centered, iid_score_attention, softmax_attention
from attnspec.spectra import ks_distance, squared_singular_values

__all__ = ["prior_model_spectra", "prior_model_distances"]


def prior_model_spectra(ell, beta, draws=1, seed=0):
    """Squared singular values of √ℓA^⊥ for i.i.d. scores and for softmax attention (c = 1).

    Parameters
    ----------
    ell : int
        Tokens ℓ ≥ 2 (d_qk = ℓ for softmax attention).
    beta : float
        Inverse temperature, 0 < β ≤ BETA_MAX.
    draws : int
        Independent matrices of each model.
    seed : int
        Seed; draw k of each model uses its own stream spawned from it.

    Returns
    -------
    dict
        ``{"iid": [arrays], "softmax": [arrays]}``, each array descending, length ℓ.
    """
    ell = check_int("ell", ell, min=2)
    beta = check_float("beta", beta, min=0, max=BETA_MAX, min_open=True)
    draws = check_int("draws", draws, min=1)
    seed = check_int("seed", seed, min=0)
    streams = np.random.SeedSequence(seed).spawn(2 * draws)
    return {
        "iid": [squared_singular_values(centered(iid_score_attention(ell, beta, rng=r)))
                for r in streams[:draws]],
        "softmax": [squared_singular_values(centered(softmax_attention(ell, ell, beta, rng=r)))
                    for r in streams[draws:]],
    }


def prior_model_distances(spectra, beta, drop_top=0):
    """KS distances of both models' pooled spectra to MP(1, s) and to ν_∞(β, 1).

    ``drop_top`` largest values of each draw are removed first (outliers of softmax, A4 §5).

    Returns
    -------
    dict
        ``{(model, law): distance}`` for model in ("iid", "softmax"), law in ("mp", "nu").
    """
    beta = check_float("beta", beta, min=0, max=BETA_MAX, min_open=True)
    drop_top = check_int("drop_top", drop_top, min=0)
    laws = {"mp": MarchenkoPastur(1.0, total_variance(beta)), "nu": AttentionLaw(beta, 1.0)}
    out = {}
    for model in ("iid", "softmax"):
        pooled = np.concatenate([v[drop_top:] for v in spectra[model]])
        for name, law in laws.items():
            out[model, name] = ks_distance(pooled, law)
    return out
