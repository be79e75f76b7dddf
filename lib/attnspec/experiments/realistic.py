r"""How far the theorem reaches: random attention with one assumption relaxed (chapter 8).

Each *relaxation* changes one assumption of the theorem (A4 §1–§2) and keeps Gaussian
weights:

``"causal"``
    a causal mask (row i attends to keys j ≤ i); observable Y = N(A − U)/√ℓ and the masked
    linear model (:mod:`attnspec.sampling.masked`); d_qk = ℓ/c.
``"iid_tokens"``
    unit-norm i.i.d. Gaussian token rows, ℓ = γd > d (:func:`attnspec.gaussian_tokens`),
    explicit W_Q, W_K ∈ ℝ^{d×d_qk}, d_qk = ℓ/c; linear model on the same scores.
``"shared_mean"``
    the same with a shared mean direction of weight ρ (``shared``).
``"head_width"``
    the theorem's inputs with a realistic head width d_qk = d_h fixed while ℓ grows
    (c = ℓ/d_h ≫ 1).
``"given_tokens"``
    the first ℓ rows of a given token matrix (``tokens``, e.g. a trained model's
    embeddings), normalised to unit norm, with Gaussian W_Q, W_K ∈ ℝ^{d×d_qk}, d_qk = ℓ/c.

For each ℓ, :func:`attnspec.experiments.realistic.relaxation_study` draws coupled pairs (softmax attention and the linear
model built on the *same* scores) and measures Kolmogorov–Smirnov distances of the bulks to
each other, to ν_∞(β, c) and to Marchenko–Pastur MP(1, s).
"""

from __future__ import annotations

import numpy as np

from .._validation import (ParameterTypeError, check_choice, check_float, check_int,
                           check_matrix)
from ..hermite import total_variance
from ..laws.attention import AttentionLaw
from ..laws.classical import MarchenkoPastur
from ..laws.variance_profile import TriangularProfileLaw
from ..sampling.inputs import gaussian_tokens, reweighted_linear_model, scores_linear_model
from ..sampling.masked import causal_attention, causal_centered, causal_linear_equivalent
from ..sampling.softmax import attention_from_weights, centered, softmax_attention
from ..spectra import ks_distance, squared_singular_values

__all__ = ["RELAXATIONS", "relaxation_spectra", "relaxation_study", "law_or_none",
           "ks_distance_resolved", "draw_distances"]

#: The five relaxations of chapter 8, each described in the module docstring above.
RELAXATIONS = ("causal", "iid_tokens", "shared_mean", "head_width", "given_tokens")


def ks_distance_resolved(sample, other, *, floor_ratio=1e-9):
    r"""KS distance over the values that double precision resolves (triangular matrices).

    Parameters
    ----------
    sample : array_like
        Squared singular values (pooled), finite, not all zero.
    other : array_like or law object
        A second sample or an object with a ``cdf`` method.
    floor_ratio : float
        The floor is ``floor_ratio`` times the largest value of ``sample``;
        0 < floor_ratio < 1e-3.

    Returns
    -------
    float
        :math:`\sup_{x \ge f} |F_n(x) - G(x)|` with f the floor.

    Notes
    -----
    A lower-triangular random matrix is exponentially ill-conditioned: a fraction
    F(t) ≈ 1/log(1/t) of its squared singular values lies below any t, so some lie below
    the rounding floor (~1e-16 of the largest) where the computed values are noise and
    change with the order of floating-point operations. Every value below f is replaced by
    f, and G by 0 below f and G itself from f on (an atom at f): the statistic then only
    compares what is resolved, F_n(f) against G(f) and the values above f (computed to
    relative accuracy ~1e-7). For spectra without tiny values it is ``ks_distance``.
    """
    sample = np.asarray(sample, dtype=np.float64)
    floor_ratio = check_float("floor_ratio", floor_ratio, min=0, max=1e-3, min_open=True,
                              max_open=True)
    if sample.size == 0 or not np.isfinite(sample).all() or not (sample > 0).any():
        raise ValueError("sample must be non-empty, finite and not all zero")
    floor = floor_ratio * float(sample.max())
    clipped = np.maximum(sample, floor)
    if hasattr(other, "cdf"):
        def cdf(x):
            x = np.asarray(x, dtype=np.float64)
            return np.where(x < floor, 0.0, other.cdf(np.maximum(x, floor)))
        return ks_distance(clipped, cdf)
    return ks_distance(clipped, np.maximum(np.asarray(other, dtype=np.float64), floor))


def law_or_none(beta, c):
    """``AttentionLaw(beta, c)``, or ``None`` when (β, c) is outside the law's domain.

    The reason is not swallowed silently: callers report such a point as out of reach.
    """
    try:
        return AttentionLaw(beta, c)
    except ValueError:
        return None


def _widths(relaxation, ell, c, gamma, d_h):
    """(d, d_qk) of one relaxation at size ℓ (d is None where no explicit input is used)."""
    if relaxation == "head_width":
        return None, d_h
    d_qk = max(1, round(ell / c))
    if relaxation in ("causal", "given_tokens"):
        return None, d_qk
    return max(1, round(ell / gamma)), d_qk


def _check_tokens(tokens, rows):
    """The token matrix of ``given_tokens``: 2-D, finite, ≥ ``rows`` non-zero rows."""
    if tokens is None:
        raise ParameterTypeError("relaxation 'given_tokens' needs tokens=<an ℓ×d array>")
    tokens = check_matrix("tokens", tokens, min_rows=rows)
    norms = np.linalg.norm(tokens[:rows], axis=1)
    if not np.isfinite(tokens).all() or not (norms > 0).all():
        raise ValueError("tokens must be finite with non-zero rows; got "
                         f"{int(np.sum(~(norms > 0)))} zero or non-finite rows")
    return tokens


def relaxation_spectra(relaxation, ell, beta, rng, *, c=1.0, gamma=2.0, shared=0.25, d_h=64,
                       tokens=None):
    r"""One coupled draw: squared singular values of softmax attention and its linear model.

    Parameters
    ----------
    relaxation : str
        One of :data:`attnspec.experiments.realistic.RELAXATIONS` (module docstring).
    ell : int
        Tokens ℓ ≥ 2.
    beta : float
        Inverse temperature β > 0.
    rng : numpy.random.Generator, SeedSequence or int
        Source of randomness (the linear model's noise Z is drawn after the attention).
    c : float
        ℓ/d_qk for ``causal``, ``iid_tokens``, ``shared_mean`` (0 < c ≤ 100).
    gamma : float
        ℓ/d for ``iid_tokens`` and ``shared_mean`` (0 < γ ≤ 100; γ > 1 means ℓ > d).
    shared : float
        ρ ∈ [0, 1) of ``shared_mean`` (``iid_tokens`` uses ρ = 0).
    d_h : int
        Head width of ``head_width`` (1 ≤ d_h).
    tokens : array_like, optional
        The token matrix of ``given_tokens`` (at least ℓ rows, each non-zero and finite).

    Returns
    -------
    dict
        ``{"softmax": values, "linear": values, "corrected": values}``, each sorted
        descending (float64). ``corrected`` (not for ``causal``) is the corrected model on the
        same scores: :func:`attnspec.reweighted_linear_model` for the token relaxations,
        :func:`attnspec.scores_linear_model` with ``exact_degree=3`` for ``head_width``.
    """
    relaxation = check_choice("relaxation", relaxation, RELAXATIONS)
    ell = check_int("ell", ell, min=2)
    c = check_float("c", c, min=0, max=100, min_open=True)
    gamma = check_float("gamma", gamma, min=0, max=100, min_open=True)
    shared = check_float("shared", shared, min=0, max=1, max_open=True)
    d_h = check_int("d_h", d_h, min=1)
    rng = np.random.default_rng(rng)
    d, d_qk = _widths(relaxation, ell, c, gamma, d_h)
    if relaxation == "causal":
        A, S = causal_attention(ell, d_qk, beta, rng, return_scores=True)
        return {"softmax": squared_singular_values(causal_centered(A)),
                "linear": squared_singular_values(causal_linear_equivalent(S, beta, rng))}
    if relaxation == "head_width":
        A, S = softmax_attention(ell, d_qk, beta, rng, return_scores=True)
        corrected = scores_linear_model(S, beta, rng, exact_degree=3)
    else:
        if relaxation == "given_tokens":
            X = _check_tokens(tokens, ell)[:ell]
            X = X / np.linalg.norm(X, axis=1, keepdims=True)
            d = X.shape[1]
        else:
            X = gaussian_tokens(ell, d, rng,
                                shared=shared if relaxation == "shared_mean" else 0.0)
        W_Q, W_K = rng.standard_normal((d, d_qk)), rng.standard_normal((d, d_qk))
        A, S = attention_from_weights(X, W_Q, W_K, beta, return_scores=True)
        corrected = reweighted_linear_model(S, beta, rng)
    return {"softmax": squared_singular_values(centered(A)),
            "linear": squared_singular_values(scores_linear_model(S, beta, rng)),
            "corrected": squared_singular_values(corrected)}


def relaxation_study(relaxation, ells, *, beta=1.0, draws=1, seed=0, drop_top=3, **options):
    r"""KS distances against ℓ for one relaxation (coupled softmax / linear-model draws).

    Parameters
    ----------
    relaxation : str
        One of :data:`attnspec.experiments.realistic.RELAXATIONS`.
    ells : sequence of int
        Sizes ℓ ≥ 8, at most 8 of them.
    beta : float
        Inverse temperature β > 0.
    draws : int
        Draws per size, 1 ≤ draws ≤ 100, pooled.
    seed : int
        Seed; draw k of size ℓ uses its own stream of ``SeedSequence(seed)``.
    drop_top : int
        Largest values removed from each softmax and linear-model draw before every bulk
        statistic (finite-ℓ outliers, A4 §5), 0 ≤ drop_top < ℓ/4.
    **options
        ``c``, ``gamma``, ``shared``, ``d_h``, ``tokens`` of
        :func:`attnspec.experiments.realistic.relaxation_spectra`.

    Returns
    -------
    list of dict
        One row per ℓ: ``ell``, ``c`` (= ℓ/d_qk, the ratio of the law), ``law`` (the
        :class:`attnspec.AttentionLaw`, or ``None`` if out of its domain), ``spectra``
        (``softmax``, ``linear``, ``corrected``: lists of per-draw full spectra) and
        ``ks``, computed on the pooled bulks (top ``drop_top`` of each draw removed) by
        :func:`attnspec.experiments.realistic.ks_distance_resolved`: ``softmax_linear`` and (except ``causal``)
        ``softmax_corrected`` (two-sample), ``softmax_law``, ``linear_law`` (NaN when the
        law is out of reach), ``softmax_mp``, ``linear_mp`` (MP(1, s)), and for ``causal`` also
        ``softmax_masked_iid``, ``linear_masked_iid`` (the masked i.i.d.-score law,
        :class:`attnspec.TriangularProfileLaw` with scale s).
    """
    relaxation = check_choice("relaxation", relaxation, RELAXATIONS)
    if isinstance(ells, (str, bytes)) or not hasattr(ells, "__iter__"):
        raise ParameterTypeError(f"ells must be a sequence of integers; got ells={ells!r}")
    ells = [check_int("ells[]", e, min=8) for e in ells]
    if not 1 <= len(ells) <= 8:
        raise ValueError(f"ells must hold 1 to 8 sizes; got {len(ells)}")
    beta = check_float("beta", beta, min=0, max=5, min_open=True)
    draws = check_int("draws", draws, min=1, max=100)
    seed = check_int("seed", seed, min=0)
    drop_top = check_int("drop_top", drop_top, min=0, max=min(ells) // 4 - 1)
    unknown = set(options) - {"c", "gamma", "shared", "d_h", "tokens"}
    if unknown:
        raise ParameterTypeError(
            f"relaxation_study got unknown option(s) "
            f"{', '.join(f'{k}={options[k]!r}' for k in sorted(unknown))}; allowed options: c, "
            "gamma, shared, d_h, tokens")
    if relaxation == "given_tokens":
        options["tokens"] = _check_tokens(options.get("tokens"), max(ells))
    s = total_variance(beta)
    mp = MarchenkoPastur(1.0, s)
    masked_iid = TriangularProfileLaw(s)
    streams = np.random.SeedSequence(seed).spawn(len(ells) * draws)
    rows = []
    for index, ell in enumerate(ells):
        spectra = {}
        for k in range(draws):
            pair = relaxation_spectra(relaxation, ell, beta, streams[index * draws + k],
                                      **options)
            for key, values in pair.items():
                spectra.setdefault(key, []).append(values)
        _, d_qk = _widths(relaxation, ell, options.get("c", 1.0), options.get("gamma", 2.0),
                          options.get("d_h", 64))
        c = ell / d_qk
        law = law_or_none(beta, c)
        pooled = {key: np.concatenate([v[drop_top:] for v in values])
                  for key, values in spectra.items()}
        ks = {f"softmax_{key}": ks_distance_resolved(pooled["softmax"], pooled[key])
              for key in pooled if key != "softmax"}
        for key in ("softmax", "linear"):
            ks[f"{key}_law"] = ks_distance_resolved(pooled[key], law) if law else float("nan")
            ks[f"{key}_mp"] = ks_distance_resolved(pooled[key], mp)
            if relaxation == "causal":
                ks[f"{key}_masked_iid"] = ks_distance_resolved(pooled[key], masked_iid)
        rows.append({"ell": ell, "c": c, "law": law, "spectra": spectra, "ks": ks})
    return rows


def draw_distances(row, first="softmax", second="linear", *, drop_top=3):
    r"""Per-draw KS distances of one ``relaxation_study`` row, and a noise reference.

    Parameters
    ----------
    row : dict
        One row of :func:`attnspec.experiments.realistic.relaxation_study`.
    first, second : str
        Keys of ``row["spectra"]`` (``softmax``, ``linear``, ``corrected``).
    drop_top : int
        Largest values removed from each draw, as in the study (0 ≤ drop_top < ℓ/4).

    Returns
    -------
    per_draw : numpy.ndarray
        ``per_draw[k]`` = KS distance between draw k of ``first`` and draw k of ``second``
        (coupled: the same scores), by :func:`ks_distance_resolved`.
    noise : float
        Mean KS distance between draws k and k + 1 of ``second`` (independent draws of one
        model at the same size): what sampling noise alone gives for one draw. NaN with
        a single draw.
    """
    spectra = row["spectra"]
    for name, key in (("first", first), ("second", second)):
        if key not in spectra:
            raise ValueError(f"{name}={key!r} is not a spectrum of this row; allowed: "
                             f"{sorted(spectra)}")
    drop_top = check_int("drop_top", drop_top, min=0, max=row["ell"] // 4 - 1)
    a = [v[drop_top:] for v in spectra[first]]
    b = [v[drop_top:] for v in spectra[second]]
    per_draw = np.array([ks_distance_resolved(x, y) for x, y in zip(a, b)])
    pairs = [ks_distance_resolved(b[k], b[k + 1]) for k in range(len(b) - 1)]
    return per_draw, float(np.mean(pairs)) if pairs else float("nan")
