"""Centred multi-head attention output under weight ties, and its Gaussian equivalent."""

from __future__ import annotations

import math

import numpy as np

from .._validation import (ParameterTypeError, check_beta, check_choice, check_int,
                           check_memory, check_rng)
from ..hermite import alpha
from .equivalents import linear_model
from .softmax import orthonormal_input, scores, softmax_rows
from .ties import TIES

__all__ = ["multihead_output", "shared_pattern_per_head_noise", "check_arguments"]

# ties under which V_h is a key matrix, so the value width must equal the key width
_VALUES_ARE_KEYS = ("cross_kv", "kv")


def _layout(tie, heads, groups):
    """For each head h: (query index, key index, value source).

    The value source is ("value", j) for the j-th value matrix or ("key", j) for the j-th
    key matrix. Heads with equal (query, key) indices share their score matrix.
    """
    H = heads
    if tie == "mqa":
        return [(h, 0, ("value", 0)) for h in range(H)]
    if tie == "gqa":
        size = H // groups
        return [(h, h // size, ("value", h // size)) for h in range(H)]
    if tie == "shared_values":
        return [(h, h, ("value", 0)) for h in range(H)]
    if tie == "cross_kv":
        return [(h, h, ("key", (h + 1) % H)) for h in range(H)]
    if tie == "kv":
        return [(h, h, ("key", h)) for h in range(H)]
    if tie == "shared_pattern":
        return [(0, 0, ("value", h)) for h in range(H)]
    return [(h, h, ("value", h)) for h in range(H)]  # none, output_keys


def check_arguments(ell, d, heads, beta, tie, d_head, d_value, groups, equivalent):
    ell = check_int("ell", ell, min=2)
    check_memory("ell", ell, 4 * ell * ell * 8)
    d = check_int("d", d, min=1)
    if ell > d:
        raise ValueError(f"ell must be <= d (the input X has orthonormal rows); got ell={ell}, "
                         f"d={d}")
    heads = check_int("heads", heads, min=1)
    beta = check_beta(beta)
    tie = check_choice("tie", tie, TIES)
    if (d_head is None or d_value is None) and d % heads:
        raise ValueError(f"heads must divide d under the standard allocation d_head = d_value = "
                         f"d/heads; got heads={heads}, d={d} (choose heads dividing d, or pass "
                         "d_head and d_value)")
    d_head = d // heads if d_head is None else check_int("d_head", d_head, min=1)
    d_value = d // heads if d_value is None else check_int("d_value", d_value, min=1)
    if (tie in _VALUES_ARE_KEYS or tie == "output_keys") and d_value != d_head:
        raise ValueError(f"tie={tie!r} needs d_value == d_head; got d_value={d_value}, "
                         f"d_head={d_head}")
    if tie == "gqa":
        if groups is None:
            raise ValueError("groups is required with tie='gqa' (a number of groups >= 1 "
                             f"dividing heads={heads}); got groups=None")
        groups = check_int("groups", groups, min=1, max=heads)
        if heads % groups:
            raise ValueError(f"groups must divide heads={heads}; got groups={groups}")
    elif groups is not None:
        raise ValueError(f"groups is only used with tie='gqa'; got groups={groups!r} with "
                         f"tie={tie!r}")
    if not isinstance(equivalent, (bool, np.bool_)):
        raise ParameterTypeError(f"equivalent must be True or False; got "
                                 f"equivalent={equivalent!r}")
    return ell, d, heads, beta, tie, d_head, d_value, groups, bool(equivalent)


def multihead_output(ell, d, heads, beta, tie="none", d_head=None, d_value=None, groups=None,
                     equivalent=False, rng=None):
    r"""Sample Y = √(ℓ/d) O^⊥, the centred multi-head attention output (A4 §6).

    Parameters
    ----------
    ell : int
        Number of tokens, 2 ≤ ℓ ≤ d.
    d : int
        Embedding width d.
    heads : int
        Number of heads H ≥ 1.
    beta : float
        Inverse temperature 0 < β ≤ 26 (e^{β²} must be a finite float).
    tie : str
        Weight tie, one of :data:`attnspec.TIES` (appendix A3, "Weight ties", says what
        each shares).
    d_head, d_value : int, optional
        Query/key width d_h and value width d_v; default d/H each (standard allocation
        H d_h = H d_v = d, which needs H to divide d). ``kv``, ``cross_kv`` and
        ``output_keys`` need d_v = d_h.
    groups : int, optional
        Number of key–value groups for ``tie="gqa"`` (must divide H); only used there.
    equivalent : bool
        Sample the Gaussian-equivalent model instead: each A_h^⊥ is replaced by
        (βS_h + αZ_h)P/ℓ, α² = e^{β²} − 1 − β², keeping every weight tie, with **one noise
        matrix Z per distinct score matrix** (``shared_pattern`` shares one Z).
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of randomness. All weights are drawn before any noise, so the same seed gives
        the softmax model and its Gaussian equivalent with the same weights; it gives the same
        bytes at the same number of BLAS threads (~1e-15 relative apart at another).

    Returns
    -------
    numpy.ndarray
        ℓ×d float64 matrix Y; its squared singular values are the observable of §6.

    Notes
    -----
    Heads h = 1..H with Q_h = X W_Q^h, K_h = X W_K^h, V_h = X W_V^h (N(0, 1) weights),
    S_h = Q_h K_hᵀ/√d_h, A_h = softmax(βS_h), and W_O^h ∈ ℝ^{d_v×d} with N(0, 1/(H d_v))
    entries:

    .. math:: \begin{gathered}
              Y = \sqrt{\ell/d}\; \sum_h A_h P\, V_h W_O^h, \\
              P = I - \mathbf 1\mathbf 1^\top/\ell.
              \end{gathered}

    What each tie shares, and how the weights are drawn (Q_h, K_h, V_h directly as i.i.d.
    N(0, 1) matrices, A4 §1; X itself for ``output_keys``): appendix A3, "Weight ties".
    Grouped-query attention splits the H heads into ``groups`` groups of H/groups heads.
    The variants and their claims are this companion's reconstruction from paper 2's abstract
    (A4 §6, [reconstructed]). Closed-form moments: untied, across-head ties and ``output_keys``
    (taken: Monte Carlo) m₁ = s = e^{β²} − 1; ``kv`` m₁ = s + β²ℓ/d_h.
    """
    (ell, d, heads, beta, tie, d_head, d_value, groups,
     equivalent) = check_arguments(ell, d, heads, beta, tie, d_head, d_value, groups, equivalent)
    return _sample(ell, d, heads, beta, tie, d_head, d_value, groups, equivalent, check_rng(rng))


def shared_pattern_per_head_noise(ell, d, heads, beta, *, d_head=None, d_value=None, rng=None):
    r"""Sample the *wrong* Gaussian equivalent of a shared pattern: one noise matrix per head.

    Parameters
    ----------
    ell, d, heads, beta, d_head, d_value
        As in :func:`attnspec.multihead_output` with ``tie="shared_pattern"``.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Source of randomness. The weights are drawn by the same code and in the same order as
        ``multihead_output(..., tie="shared_pattern", equivalent=True)``, so the same seed
        gives the same weights (Q, K, the values, W_O) and only the noise differs.

    Returns
    -------
    numpy.ndarray
        ℓ×d matrix :math:`Y = \sqrt{\ell/d}\,\sum_h (\beta S + \alpha Z_h) P V_h W_O^h/\ell`
        with **independent** Z_h, although every head has the same score matrix
        S = Q Kᵀ/√d_h.

    Notes
    -----
    The rule of A4 §6 is one noise matrix per distinct score matrix: heads sharing a
    pattern must share Z. This sampler breaks the rule on purpose (chapter 07): the noise of
    different heads becomes asymptotically free where the true nonlinear parts are identical,
    and m₂ drops by (1 − 1/H)(s² − β⁴)
    (:func:`attnspec.experiments.multihead.shared_pattern_moments`).
    """
    ell, d, heads, beta, tie, d_head, d_value, groups, _ = check_arguments(
        ell, d, heads, beta, "shared_pattern", d_head, d_value, None, True)
    return _sample(ell, d, heads, beta, tie, d_head, d_value, groups, True, check_rng(rng),
                   noise_per_head=True)


def _sample(ell, d, heads, beta, tie, d_head, d_value, groups, equivalent, rng, *,
            noise_per_head=False):
    """The multi-head output from validated arguments: weights first, then the noise, drawn
    once per score matrix (the rule) or, with ``noise_per_head``, once per head."""
    layout = _layout(tie, heads, groups)
    n_queries = 1 + max(q for q, _, _ in layout)
    n_keys = 1 + max(k for _, k, _ in layout)
    n_values = 1 + max((v[1] for _, _, v in layout if v[0] == "value"), default=-1)

    # weights first (same draws for softmax and GE), then one noise matrix per score matrix
    if tie == "output_keys":
        X = orthonormal_input(ell, d, rng)
        W_Q = [rng.standard_normal((d, d_head)) for _ in range(n_queries)]
        W_K = [rng.standard_normal((d, d_head)) for _ in range(n_keys)]
        W_V = [rng.standard_normal((d, d_value)) for _ in range(n_values)]
        queries, keys, values = ([X @ W for W in Ws] for Ws in (W_Q, W_K, W_V))
        W_O = [W.T / math.sqrt(heads * d_head) for W in W_K]
    else:
        queries = [rng.standard_normal((ell, d_head)) for _ in range(n_queries)]
        keys = [rng.standard_normal((ell, d_head)) for _ in range(n_keys)]
        values = [rng.standard_normal((ell, d_value)) for _ in range(n_values)]
        W_O = list(rng.standard_normal((heads, d_value, d)) / math.sqrt(heads * d_value))

    centred_values = {}  # P V for each value source, computed once
    for _, _, source in layout:
        if source not in centred_values:
            V = (values if source[0] == "value" else keys)[source[1]]
            centred_values[source] = V - V.mean(axis=0, keepdims=True)

    heads_of_score = {}  # (query, key) -> heads sharing that score matrix, in head order
    for h, (q, k, _) in enumerate(layout):
        heads_of_score.setdefault((q, k), []).append(h)

    noise = alpha(beta)
    O = np.zeros((ell, d))
    for (q, k), members in heads_of_score.items():
        S = scores(queries[q], keys[k])
        if not equivalent:
            core = softmax_rows(S, beta, out=S)
            for h in members:
                O += (core @ centred_values[layout[h][2]]) @ W_O[h]
            continue
        sharing = [[h] for h in members] if noise_per_head else [members]
        for noise_members in sharing:
            core = linear_model(S, beta, noise, rng.standard_normal((ell, ell)))
            core *= 1.0 / math.sqrt(ell)                 # (βS + αZ)/ℓ; P is applied to V
            for h in noise_members:
                O += (core @ centred_values[layout[h][2]]) @ W_O[h]
    O *= math.sqrt(ell / d)
    return O
