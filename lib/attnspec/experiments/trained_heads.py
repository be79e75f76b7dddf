r"""A trained transformer under the lens: all-MiniLM-L6-v2's heads against ν∞ (chapter 9).

Every measurement of chapter 9, per head of the pretrained model (6 layers × 12 heads,
d_h = 32) and per passage of :func:`attnspec.pretrained.passages.minilm_passages`:

* β_eff, the effective inverse temperature: the per-row standard deviation of the scores
  βS, averaged over rows (for the theorem's object, S_ij = q_i·k_j/√d_h with N(0, 1)
  entries, it is β up to O(1/√d_h));
* the Kolmogorov–Smirnov distance of the squared singular values of √ℓ A^⊥ to
  ν∞(β_eff, c = ℓ/d_h) (:class:`attnspec.AttentionLaw`) and to Marchenko–Pastur with ratio 1
  and scale e^{β_eff²} − 1 (the i.i.d.-score prediction); NaN where the law is out of reach
  (:class:`attnspec.AttentionLaw` refuses β > 26 or c outside [0.01, 100]);
* the ablation ladder: (1) Gaussian weights on Gaussian queries/keys (the theorem's object),
  (2) Gaussian weights on the model's real layer-0 input, (3) trained layer 0, (4) deeper
  trained layers; and rung-1 references drawn at the median β_eff of each β_eff bin and
  passage;
* what the trained spectra have instead: the attention sink (largest mean attention m a key
  receives, and which token), the share of the top squared singular value σ₁² that the sink
  alone forces (σ₁² ≥ (ℓm − 1)², from the test vector 1/√ℓ), the normalised row entropy, the
  share of σ₁² in the total, the distance left after removing the top k values with ν∞
  refitted to the remaining mean, and the distance between the softmax spectrum and the
  Gaussian-equivalent model built from the head's own scores, (βSP + αZP)/√ℓ with
  α² = e^{β_eff²} − 1 − β_eff² (β = 1 for a trained head, whose scores carry their own
  temperature);
* the centred multi-head output of a layer against :class:`attnspec.MultiHeadLaw`, and random
  layers whose heads sit at the trained heads' own β_eff.

Everything here is a measurement of this companion (chapter 9), not a claim of the papers.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import ParameterError, check_float, check_int, check_rng
from ..hermite import alpha, total_variance
from ..laws.attention import AttentionLaw
from ..laws.classical import MarchenkoPastur
from ..laws.multihead import MultiHeadLaw
from ..pretrained.minilm import (HEAD_WIDTH, HEADS, LAYERS, WIDTH, minilm_forward,
                                minilm_weights)
from ..sampling.equivalents import linear_model
from ..sampling.multihead import multihead_output
from ..sampling.softmax import (attention_from_weights, centered, project_rows, scores,
                                softmax_attention)
from ..spectra import ks_distance, squared_singular_values

__all__ = ["effective_beta", "law_distances", "standard_init_beta", "head_measurements",
           "passage_study", "multihead_comparison", "trained_array", "rung_values",
           "ladder_summary", "beta_matched_references", "random_layer", "own_beta_layers",
           "STANDARD_INIT_STD", "RUNGS"]

#: Standard deviation of BERT's weight initialisation (``initializer_range`` of its config).
STANDARD_INIT_STD = 0.02
#: The rungs of the ablation ladder, in order.
RUNGS = ("gaussian, orthonormal", "gaussian, real embeddings", "trained, layer 0",
         "trained, layers 1-5")
_LAW_FAILURES = (ValueError, RuntimeError, ArithmeticError)


def effective_beta(scores, beta=1.0):
    r"""β_eff = mean over rows i of std_j(β S_ij), for every matrix in a stack.

    Parameters
    ----------
    scores : array_like
        (..., ℓ, ℓ) score matrices S (the softmax is taken of βS).
    beta : float
        Inverse temperature β > 0 applied to S (1 for a trained model, whose scores already
        include it).

    Returns
    -------
    numpy.ndarray or float
        Shape ``scores.shape[:-2]`` (a float for one matrix).
    """
    S = np.asarray(scores, dtype=np.float64)
    if S.ndim < 2 or S.shape[-1] != S.shape[-2] or S.shape[-1] < 2:
        raise ParameterError(f"scores must be a stack of square matrices with ℓ >= 2; got shape "
                         f"{S.shape}")
    beta = check_float("beta", beta, min=0, min_open=True)
    value = beta * S.std(axis=-1).mean(axis=-1)
    return float(value) if value.ndim == 0 else value


def law_distances(values, beta, c):
    """KS distances of squared singular values to ν∞(β, c) and to MP(1, e^{β²} − 1).

    Returns ``(ks_nu, ks_mp)``; an entry is NaN where that law cannot be built at (β, c)
    (the "law out of reach" of chapter 9: :class:`attnspec.AttentionLaw` refuses β > 26 or
    c outside [0.01, 100]; MP is evaluated as MP(1, 1) at x/s, exact for every β ≤ 26).
    """
    try:
        ks_nu = ks_distance(values, AttentionLaw(beta, c))
    except _LAW_FAILURES:
        ks_nu = math.nan
    try:
        scale = total_variance(beta)
    except ValueError:   # beyond BETA_MAX: s is not a float64
        scale = math.inf
    if math.isfinite(scale):   # MP(1, s) is MP(1, 1) stretched by s: no overflow at huge s
        unit = MarchenkoPastur(1.0, 1.0)
        ks_mp = ks_distance(values, lambda x: unit.cdf(np.asarray(x) / scale))
    else:
        ks_mp = math.nan
    return ks_nu, ks_mp


def _fitted_law_distance(values, c):
    """KS to ν∞(β_fit, c) with β_fit = √log(1 + mean): the law with the sample's mean."""
    beta = math.sqrt(math.log1p(float(np.mean(values))))
    if beta <= 0:
        return math.nan
    return law_distances(values, beta, c)[0]


def standard_init_beta(embeddings, rng=None, *, std=STANDARD_INIT_STD, draws=4):
    r"""β_eff of heads at BERT's standard initialisation, reading the given layer input.

    W_Q, W_K ∈ ℝ^{d×d_h} with i.i.d. N(0, std²) entries and zero biases act on ``embeddings``
    (ℓ×d); β_eff of S = (X W_Q)(X W_K)ᵀ/√d_h is averaged over ``draws`` heads.

    Returns
    -------
    measured : float
        The mean β_eff over the draws.
    predicted : float
        σ² · mean_i ‖x_i‖ · √(mean_j ‖x_j‖² − ‖x̄‖²), σ = ``std``, x̄ the mean row: over the
        weights, E S_ij S_ik = σ⁴‖x_i‖²(x_j·x_k), so the expected variance along row i is
        σ⁴‖x_i‖²(mean_j ‖x_j‖² − ‖x̄‖²) (a shared mean direction of the rows lowers it).
    """
    X = np.asarray(embeddings, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2:
        raise ParameterError(f"embeddings must be an ℓ×d array with ℓ >= 2; got shape {X.shape}")
    std = check_float("std", std, min=0, min_open=True)
    draws = check_int("draws", draws, min=1)
    rng = check_rng(rng)
    measured = []
    for _ in range(draws):
        W_Q, W_K = (std * rng.standard_normal((X.shape[1], HEAD_WIDTH)) for _ in range(2))
        measured.append(effective_beta(scores(X @ W_Q, X @ W_K)))
    norms = np.linalg.norm(X, axis=1)
    spread = (norms ** 2).mean() - float(X.mean(axis=0) @ X.mean(axis=0))
    return float(np.mean(measured)), float(std ** 2 * norms.mean() * math.sqrt(spread))


def _entropy(A):
    """Mean row entropy −Σ_j A_ij log A_ij of a row-stochastic ℓ×ℓ A, divided by log ℓ."""
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(A > 0, np.log(np.where(A > 0, A, 1.0)), 0.0)
    return float(-(A * logs).sum(axis=1).mean() / math.log(A.shape[0]))


def head_measurements(A, S, *, tokens=None, beta=1.0, ks=(0, 1, 2, 4, 8), rng=None):
    r"""Every chapter-9 measurement of one head (one ℓ×ℓ attention matrix and its scores).

    Parameters
    ----------
    A : array_like
        ℓ×ℓ row-stochastic attention A = softmax(βS).
    S : array_like
        Its ℓ×ℓ scores.
    tokens : list of str, optional
        Token strings (to name the sink).
    beta : float
        β applied to S (1 for the trained model).
    ks : tuple of int
        Numbers k of top squared singular values removed for the rank-k distances.
    rng : seed or Generator
        For the noise Z of the score-built Gaussian-equivalent model.

    Returns
    -------
    dict
        ``beta_eff``, ``ks_nu``, ``ks_mp`` (NaN: law out of reach), ``ks_fit`` (ν∞ with the
        sample's mean), ``rank_k`` (KS after removing the top k, ν∞ refitted; one per k),
        ``ks_ge`` (two-sample KS between √ℓA^⊥ and (βSP + αZP)/√ℓ), ``sink_mass`` (largest
        column mean m of A), ``sink_token``, ``sink_bound`` ((ℓm − 1)² over the largest
        squared singular value σ₁²: at most 1, since 1ᵀ√ℓA^⊥/√ℓ = (κ − 1)ᵀ with κ the column
        sums gives σ₁² ≥ ‖κ − 1‖² ≥ (ℓm − 1)²), ``entropy`` (mean row entropy / log ℓ),
        ``top_share`` (largest squared singular value over their sum), ``values``.
    """
    A = np.asarray(A, dtype=np.float64)
    ell = A.shape[0]
    c = ell / HEAD_WIDTH
    rng = check_rng(rng)
    values = squared_singular_values(centered(A))
    beta_eff = effective_beta(S, beta)
    ks_nu, ks_mp = law_distances(values, beta_eff, c)
    rank_k = [_fitted_law_distance(values[k:], c) for k in ks]
    try:
        linear = linear_model(np.asarray(S, dtype=np.float64), beta, alpha(beta_eff),
                              rng.standard_normal((ell, ell)))
        ks_ge = ks_distance(values, squared_singular_values(project_rows(linear)))
    except _LAW_FAILURES:
        ks_ge = math.nan
    column_mass = A.mean(axis=0)
    sink = int(np.argmax(column_mass))
    entropy = _entropy(A)
    forced = (ell * column_mass[sink] - 1) ** 2
    return {"beta_eff": beta_eff, "ks_nu": ks_nu, "ks_mp": ks_mp,
            "ks_fit": _fitted_law_distance(values, c), "rank_k": rank_k, "ks_ge": ks_ge,
            "sink_mass": float(column_mass[sink]),
            "sink_token": tokens[sink] if tokens is not None else sink,
            "sink_bound": float(forced / values[0]) if values[0] > 0 else math.nan,
            "entropy": entropy, "top_share": float(values[0] / values.sum()) if values.sum() > 0 else math.nan,
            "values": values}


def passage_study(text, rng=None, *, beta_random=1.0, draws=2, ks=(0, 1, 2, 4, 8),
                  max_tokens=512):
    r"""The ablation ladder and the trained-head measurements on one passage.

    Parameters
    ----------
    text : str
        The passage (ℓ ≤ max_tokens tokens with [CLS] and [SEP]).
    rng : seed or Generator
        Randomness of rungs 1–2 and of the Gaussian-equivalent noise.
    beta_random : float
        β of the random rungs 1–2 (0 < β ≤ 3).
    draws : int
        Random heads per random rung (≥ 1).
    ks : tuple of int
        See :func:`head_measurements`.

    Returns
    -------
    dict
        ``tokens``, ``ell``, ``c`` = ℓ/d_h, ``output`` (the :class:`MiniLMOutput`), and
        ``rungs``: rung name -> list of :func:`head_measurements` dicts (each with ``layer``
        and ``head``; ``None`` for the random rungs). Rung 2 reads the model's layer-0 input
        with each row rescaled to norm 1 (the theorem's inputs have unit rows) through
        N(0, 1) weights W_Q, W_K ∈ ℝ^{384×32}.
    """
    beta_random = check_float("beta_random", beta_random, min=0, max=3, min_open=True)
    draws = check_int("draws", draws, min=1)
    rng = check_rng(rng)
    out = minilm_forward(text, max_tokens)
    ell = len(out.tokens)
    rungs = {name: [] for name in RUNGS}
    X = out.embeddings / np.linalg.norm(out.embeddings, axis=1, keepdims=True)
    for _ in range(draws):
        A1, S1 = softmax_attention(ell, HEAD_WIDTH, beta_random, rng, return_scores=True)
        rungs[RUNGS[0]].append(head_measurements(A1, S1, beta=beta_random, ks=ks, rng=rng))
        W_Q, W_K = (rng.standard_normal((WIDTH, HEAD_WIDTH)) for _ in range(2))
        A2, S2 = attention_from_weights(X, W_Q, W_K, beta_random, return_scores=True)
        rungs[RUNGS[1]].append(head_measurements(A2, S2, tokens=out.tokens, beta=beta_random,
                                                 ks=ks, rng=rng))
    for layer in range(LAYERS):
        for head in range(HEADS):
            m = head_measurements(out.attention[layer, head], out.scores[layer, head],
                                  tokens=out.tokens, ks=ks, rng=rng)
            m.update(layer=layer, head=head)
            rungs[RUNGS[2] if layer == 0 else RUNGS[3]].append(m)
    return {"tokens": out.tokens, "ell": ell, "c": ell / HEAD_WIDTH, "output": out,
            "rungs": rungs}


def multihead_comparison(output, layer, rng=None, *, beta=None):
    r"""The centred multi-head output of one trained layer against MultiHeadLaw.

    The layer's output before its dense bias is O = Σ_h A_h V_h W_O^h; its centred version
    is Y = Σ_h A_h P V_h W_O^h (P = I − 11ᵀ/ℓ). Its squared singular values, divided by
    their mean, are compared with :class:`attnspec.MultiHeadLaw` (ℓ, d = 384, H = 12, β)
    divided by its mean (only the shape is compared: the trained weights have their own
    scale), and with one random draw of :func:`attnspec.multihead_output` at the same
    parameters, normalised the same way (the distance finite size alone gives).

    Parameters
    ----------
    output : MiniLMOutput
        A forward pass with ℓ ≤ 384 (MultiHeadLaw needs ℓ ≤ d).
    layer : int
        Layer index, 0 ≤ layer ≤ 5.
    rng : seed or Generator
        For the random draw.
    beta : float, optional
        β of the law; default the median β_eff of the layer's heads.

    Returns
    -------
    dict
        ``beta``, ``values`` (trained, normalised), ``random_values`` (normalised),
        ``ks_trained`` and ``ks_random`` (KS to the normalised law; NaN if out of reach),
        ``law`` (the MultiHeadLaw or None), ``law_mean``.
    """
    layer = check_int("layer", layer, min=0, max=LAYERS - 1)
    ell = len(output.tokens)
    if ell > WIDTH:
        raise ParameterError(f"the passage must have ell <= d = {WIDTH} tokens for MultiHeadLaw; "
                         f"got ell={ell}")
    rng = check_rng(rng)
    if beta is None:
        beta = float(np.median(effective_beta(output.scores[layer])))
    beta = check_float("beta", beta, min=0, min_open=True)
    W_O = minilm_weights()[f"encoder.layer.{layer}.attention.output.dense.weight"]
    V = output.values[layer]
    context = output.attention[layer] @ (V - V.mean(axis=1, keepdims=True))
    Y = context.transpose(1, 0, 2).reshape(ell, WIDTH) @ W_O.T
    values = squared_singular_values(Y)
    values = values / values.mean()
    random = squared_singular_values(multihead_output(ell, WIDTH, HEADS, beta, rng=rng))
    random = random / random.mean()
    try:
        law = MultiHeadLaw(ell, WIDTH, HEADS, beta)
        mean = law.mean()

        def cdf(x):
            return law.cdf(np.asarray(x) * mean)

        ks_trained, ks_random = ks_distance(values, cdf), ks_distance(random, cdf)
    except _LAW_FAILURES:
        law, mean, ks_trained, ks_random = None, math.nan, math.nan, math.nan
    return {"beta": beta, "values": values, "random_values": random, "law": law,
            "law_mean": mean, "ks_trained": ks_trained, "ks_random": ks_random}


def random_layer(ell, betas, rng=None):
    r"""A random layer of independent heads of the theorem, each at its own β (chapter 9).

    Y = √(ℓ/d) Σ_h A_h P V_h W_O^h with H = len(betas) heads, A_h = softmax(β_h S_h) drawn
    by :func:`attnspec.softmax_attention` (ℓ, d_h = 32), V_h ∈ ℝ^{ℓ×32} with N(0, 1) entries
    and W_O^h ∈ ℝ^{32×384} with N(0, 1/(H·32)) entries: the untied heads of
    :func:`attnspec.multihead_output` (A4 §6), whose β is one for all heads, with one β per
    head instead. Over V and W_O the expected mean squared singular value of Y is
    (1/H) Σ_h m₁(A_h), with m₁(A) = Σ_ij A_ij² − 1 the mean of √ℓA^⊥ (the heads are
    independent and E W_O^h W_O^hᵀ = (d/(32H)) I), near e^{β_h²} − 1 for β_h of order one.

    Parameters
    ----------
    ell : int
        Number of tokens, 2 ≤ ℓ ≤ d = 384.
    betas : array_like
        One β per head, each 0 < β ≤ 26.
    rng : seed or Generator

    Returns
    -------
    numpy.ndarray
        The ℓ×384 matrix Y.
    """
    ell = check_int("ell", ell, min=2, max=WIDTH)
    betas = np.atleast_1d(np.asarray(betas, dtype=np.float64))
    if betas.ndim != 1 or not betas.size:
        raise ParameterError(f"betas must be a non-empty list of numbers; got shape {betas.shape}")
    betas = [check_float("betas", b, min=0, max=26, min_open=True) for b in betas]
    rng = check_rng(rng)
    scale = 1 / math.sqrt(len(betas) * HEAD_WIDTH)
    Y = np.zeros((ell, WIDTH))
    for beta in betas:
        A = softmax_attention(ell, HEAD_WIDTH, beta, rng)
        V = rng.standard_normal((ell, HEAD_WIDTH))
        Y += A @ (V - V.mean(axis=0)) @ (scale * rng.standard_normal((HEAD_WIDTH, WIDTH)))
    return math.sqrt(ell / WIDTH) * Y


def own_beta_layers(output, layer, comparison, rng=None, *, draws=4):
    r"""Random layers at the trained heads' own β_eff against the law of a layer (chapter 9).

    :func:`multihead_comparison` draws its random heads at one β, the layer's median β_eff.
    Here each of ``draws`` random layers (:func:`random_layer`) puts head h at the β_eff of
    trained head h of ``layer``; its squared singular values, divided by their mean, are
    compared with the normalised ``MultiHeadLaw`` of ``comparison`` (the law the trained
    layer is compared with).

    Returns
    -------
    dict
        ``betas`` (the 12 β_eff), ``ks`` (one KS per draw; NaN if the law is out of reach),
        ``tops`` (largest normalised squared singular value per draw).
    """
    layer = check_int("layer", layer, min=0, max=LAYERS - 1)
    draws = check_int("draws", draws, min=1)
    rng = check_rng(rng)
    betas = effective_beta(output.scores[layer])
    law, mean = comparison["law"], comparison["law_mean"]
    ks, tops = [], []
    for _ in range(draws):
        values = squared_singular_values(random_layer(len(output.tokens), betas, rng))
        values = values / values.mean()
        tops.append(float(values[0]))
        ks.append(math.nan if law is None
                  else ks_distance(values, lambda x: law.cdf(np.asarray(x) * mean)))
    return {"betas": betas, "ks": np.array(ks), "tops": np.array(tops)}


def trained_array(studies, key):
    """A trained-head measurement over passages as an array (passages, 6, 12).

    ``key`` is a scalar entry of :func:`head_measurements` (``"beta_eff"``, ``"ks_nu"``,
    ...) or ``"rank_k"`` (then the shape is (passages, 6, 12, len(ks))).
    """
    rows = []
    for study in studies:
        heads = study["rungs"][RUNGS[2]] + study["rungs"][RUNGS[3]]
        rows.append(np.array([m[key] for m in heads], dtype=np.float64))
    array = np.array(rows)
    return array.reshape((len(studies), LAYERS, HEADS) + array.shape[2:])


def rung_values(studies, key):
    """rung name -> 1-D array of one measurement pooled over passages (and heads/draws)."""
    return {name: np.array([m[key] for study in studies for m in study["rungs"][name]],
                           dtype=np.float64)
            for name in RUNGS}


def ladder_summary(studies):
    """Per rung: number of heads, median KS to ν∞ and to MP (over heads whose law is in
    reach), the share of heads out of reach, and the median KS to ν∞ at the fitted β.

    Returns
    -------
    dict
        rung name -> dict(heads, ks_nu, ks_mp, out_of_reach, ks_fit).
    """
    nu, mp, fit = (rung_values(studies, k) for k in ("ks_nu", "ks_mp", "ks_fit"))
    summary = {}
    for name in RUNGS:
        reach = np.isfinite(nu[name])
        summary[name] = {
            "heads": int(nu[name].size),
            "ks_nu": float(np.median(nu[name][reach])) if reach.any() else math.nan,
            "ks_mp": float(np.nanmedian(mp[name])) if np.isfinite(mp[name]).any() else math.nan,
            "out_of_reach": float(1 - reach.mean()),
            "ks_fit": float(np.nanmedian(fit[name])) if np.isfinite(fit[name]).any()
            else math.nan,
        }
    return summary


def beta_matched_references(studies, rng=None, *, edges=(0.75, 1.5, 3.0), draws=2):
    r"""Rung-1 references at the median β_eff of each β_eff bin and passage (chapter 9).

    The trained heads are binned by β_eff at ``edges`` (bins [0, e_1), [e_1, e_2), ...,
    [e_last, ∞)). For each bin and passage with trained heads in it, ``draws`` heads of the
    theorem, softmax_attention(ℓ, d_h = 32, β), are drawn at β the median β_eff of those
    heads, and their KS distance to ν∞(β, ℓ/d_h) is measured as in :func:`law_distances`,
    with their normalised row entropy and sink mass (as in :func:`head_measurements`).

    Returns
    -------
    list of dict
        One per bin with trained heads: ``low``, ``high``, ``heads`` (trained heads in the
        bin), ``trained`` (their median KS to ν∞, heads in reach), ``reference`` and
        ``reference_max`` (median and largest KS of the random heads), ``within`` (share of
        the bin's trained heads in reach at most ``reference_max`` from ν∞),
        ``trained_entropy`` and ``reference_entropy`` (median normalised row entropies),
        ``trained_sink`` (median sink mass of the trained heads) and ``reference_sink_max``
        (largest sink mass of the random heads).
    """
    edges = [check_float("edges", e, min=0, min_open=True) for e in edges]
    if any(b <= a for a, b in zip(edges, edges[1:])):
        raise ParameterError(f"edges must increase; got {edges}")
    draws = check_int("draws", draws, min=1)
    rng = check_rng(rng)
    betas, nu = trained_array(studies, "beta_eff"), trained_array(studies, "ks_nu")
    entropy, sink = trained_array(studies, "entropy"), trained_array(studies, "sink_mass")
    bounds = [0.0] + edges + [math.inf]
    rows = []
    for low, high in zip(bounds[:-1], bounds[1:]):
        inside = (betas >= low) & (betas < high)
        if not inside.any():
            continue
        reference, reference_entropy, reference_sink = [], [], []
        for study, passage_betas, heads in zip(studies, betas, inside):
            if heads.any():
                beta = float(np.median(passage_betas[heads]))
                for _ in range(draws):
                    A, S = softmax_attention(study["ell"], HEAD_WIDTH, beta, rng,
                                             return_scores=True)
                    values = squared_singular_values(centered(A))
                    reference.append(law_distances(values, beta, study["ell"] / HEAD_WIDTH)[0])
                    reference_entropy.append(_entropy(A))
                    reference_sink.append(float(A.mean(axis=0).max()))
        reference = np.array(reference)
        trained = nu[inside][np.isfinite(nu[inside])]
        top = float(np.nanmax(reference)) if np.isfinite(reference).any() else math.nan
        rows.append({"low": low, "high": high, "heads": int(inside.sum()),
                     "trained": float(np.median(trained)) if trained.size else math.nan,
                     "reference": float(np.nanmedian(reference)) if math.isfinite(top)
                     else math.nan,
                     "reference_max": top,
                     "within": float(np.mean(trained <= top)) if trained.size else math.nan,
                     "trained_entropy": float(np.median(entropy[inside])),
                     "reference_entropy": float(np.median(reference_entropy)),
                     "trained_sink": float(np.median(sink[inside])),
                     "reference_sink_max": float(np.max(reference_sink))})
    return rows
