"""Multi-head studies (chapters 06–07): pooled spectra, moment comparisons, the noise rule.

The samplers are :func:`attnspec.multihead_output` and the laws :class:`attnspec.MultiHeadLaw`;
this module runs them over draws, head counts and weight ties and summarises the result as the
tables the book prints (:mod:`attnspec.experiments.tables`): m₁, m₂ with standard errors
against the closed forms of A4 §6, and Kolmogorov–Smirnov distances between spectra. It
also holds the closed-form second moment of the wrong noise model of a shared pattern (one
noise matrix per head, :func:`attnspec.sampling.multihead.shared_pattern_per_head_noise`),
derived in chapter 07.

Everything in A4 §6 is this companion's reconstruction from the abstract of Hayase &
Karakida (2026), checked by simulation.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_beta, check_choice, check_int, check_rng
from ..laws.multihead import MultiHeadLaw
from ..laws.multihead_moments import multihead_moments
from ..sampling.multihead import (check_arguments, multihead_output,
                                  shared_pattern_per_head_noise)
from ..sampling.ties import TIE_KINDS, TIE_LABELS, TIES
from ..spectra import ks_distance, moments_with_se, squared_singular_values
from .tables import Comparison, MomentRow

__all__ = ["NOISE_MODELS", "standard_widths", "multihead_spectra", "shared_pattern_moments",
           "compare_head_counts", "compare_ties", "noise_rule_study"]

#: Noise models of the Gaussian equivalent. ``"rule"`` is one noise matrix per distinct score
#: matrix (the correct model, what :func:`attnspec.multihead_output` samples); ``"per_head"``
#: is one noise matrix per head, which differs from the rule only when heads share a pattern.
NOISE_MODELS = ("rule", "per_head")


# ---------------------------------------------------------------------------------------------
# helpers


def standard_widths(d, heads):
    """Widths (d_head, d_value) of the standard allocation H d_h = H d_v = d, rounded
    (A4 §6).

    Parameters
    ----------
    d : int
        Embedding width d ≥ 1.
    heads : int
        Number of heads H, 1 ≤ H ≤ d.

    Returns
    -------
    tuple of int
        ``(round(d/H), round(d/H))``, exact when H divides d. Passing the widths explicitly
        lets a chapter use any H; the sampler and the law then get the same widths.
    """
    d = check_int("d", d, min=1)
    heads = check_int("heads", heads, min=1, max=d)
    width = max(1, round(d / heads))
    return width, width


def _children(rng, n):
    """n independent child SeedSequences of ``rng`` (seed, SeedSequence or Generator)."""
    return check_rng(rng).bit_generator.seed_seq.spawn(n)


# ---------------------------------------------------------------------------------------------
# spectra over draws


def multihead_spectra(ell, d, heads, beta, *, tie="none", draws=1, equivalent=False,
                      noise="rule", d_head=None, d_value=None, groups=None, rng=None):
    """Squared singular values of the multi-head output Y, one array per independent draw.

    Parameters
    ----------
    ell, d, heads, beta, tie, d_head, d_value, groups
        As in :func:`attnspec.multihead_output`.
    draws : int
        Number of independent draws R ≥ 1.
    equivalent : bool
        Sample the Gaussian-equivalent model instead of softmax attention.
    noise : {"rule", "per_head"}
        Noise model of the Gaussian equivalent (only with ``equivalent=True``): ``"rule"``, one
        noise matrix per distinct score matrix (correct); ``"per_head"``, one per head, which
        differs from the rule only for ``tie="shared_pattern"`` and is accepted only there
        (:func:`attnspec.sampling.multihead.shared_pattern_per_head_noise`).
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Draw r uses child r of ``SeedSequence(rng)`` (of ``rng.spawn`` for a Generator). An int
        seed therefore gives the softmax model and its Gaussian equivalent **with the same
        weights** draw by draw (the samplers draw every weight before any noise), so their
        difference isolates the nonlinearity.

    Returns
    -------
    list of numpy.ndarray
        R arrays of ℓ squared singular values (descending), the input of
        :func:`attnspec.moments_with_se` and, pooled, of :func:`attnspec.ks_distance`.
    """
    draws = check_int("draws", draws, min=1)
    noise = check_choice("noise", noise, NOISE_MODELS)
    if noise == "per_head" and not (equivalent is True and tie == "shared_pattern"):
        raise ValueError("noise='per_head' is a model of the Gaussian equivalent of a shared "
                         "pattern only (it equals the rule whenever heads have distinct score "
                         "matrices); it needs equivalent=True and tie='shared_pattern'; got "
                         f"equivalent={equivalent!r}, tie={tie!r}")
    spectra = []
    for child in _children(rng, draws):
        if noise == "per_head":
            Y = shared_pattern_per_head_noise(ell, d, heads, beta, d_head=d_head,
                                              d_value=d_value, rng=child)
        else:
            Y = multihead_output(ell, d, heads, beta, tie=tie, d_head=d_head, d_value=d_value,
                                 groups=groups, equivalent=equivalent, rng=child)
        spectra.append(squared_singular_values(Y))
    return spectra


# ---------------------------------------------------------------------------------------------
# closed forms


def shared_pattern_moments(ell, d, heads, beta, *, noise="rule", d_head=None, d_value=None):
    r"""Closed-form m₁, m₂ of a shared pattern, for the true model and for per-head noise.

    Parameters
    ----------
    ell, d, heads, beta, d_head, d_value
        As in :func:`attnspec.multihead_output` with ``tie="shared_pattern"``.
    noise : {"rule", "per_head"}
        ``"rule"``: the true law (softmax, and the Gaussian equivalent with one shared noise
        matrix; formula (c) of A4 §6). ``"per_head"``: the Gaussian equivalent with an
        independent noise matrix in every head (:func:`attnspec.sampling.multihead.shared_pattern_per_head_noise`).

    Returns
    -------
    list of float
        ``[m1, m2]``.

    Notes
    -----
    With s = e^{β²} − 1, α² = s − β², c = ℓ/d_h and m₂⁽ᵃ⁾ the value of formula (a) for
    independent heads of the same widths,

    .. math::

        \begin{gathered}
        m_1 = s,\qquad m_2 = m_2^{(a)} + (1 - 1/H)\,X, \\
        X = \begin{cases} s^2 + c\beta^4 & \text{one shared noise (true)},\\
                          (1 + c)\beta^4 & \text{one noise per head.}\end{cases}
        \end{gathered}

    The true and per-head values differ by (1 − 1/H)(s² − β⁴) = (1 − 1/H)(α⁴ + 2α²β²): the
    cross-head correlation of the nonlinear part that independent noise throws away. This
    formula is this companion's derivation (chapter 07, which also compares it with samples).
    """
    noise = check_choice("noise", noise, NOISE_MODELS)
    ell, d, heads, beta, _, d_head, d_value, _, _ = check_arguments(
        ell, d, heads, beta, "shared_pattern", d_head, d_value, None, False)
    s, m2 = multihead_moments(ell, d, heads, beta, "shared_pattern", d_head, d_value)  # (c)
    if noise == "per_head":
        m2 -= (1 - 1 / heads) * (s * s - beta ** 4)
    return [s, m2]


# ---------------------------------------------------------------------------------------------
# comparisons


def _row(key, label, kind, theory, softmax, equivalent, law, reference=None):
    (m1, m2), (se1, se2) = moments_with_se(softmax)
    pooled = np.concatenate(softmax)
    row = dict(key=key, label=label, kind=kind, m1_theory=theory[0], m2_theory=theory[1],
               m1=m1, m1_se=se1, m2=m2, m2_se=se2, ks_law=ks_distance(pooled, law))
    if equivalent:
        (_, m2e), (_, se2e) = moments_with_se(equivalent)
        row.update(m2_equivalent=m2e, m2_equivalent_se=se2e,
                   ks_equivalent=ks_distance(pooled, np.concatenate(equivalent)))
    if reference is not None:
        row["ks_reference"] = ks_distance(pooled, reference)
    return MomentRow(**row)


def compare_head_counts(ell, d, heads_list, beta, *, draws=2, equivalent=True, rng=None):
    """Softmax vs Gaussian equivalent vs exact law for several head counts (chapter 06).

    Parameters
    ----------
    ell, d : int
        Tokens ℓ and embedding width d (2 ≤ ℓ ≤ d).
    heads_list : sequence of int
        Head counts H, each with the standard allocation d_h = d_v = d/H (rounded,
        :func:`standard_widths`, so any H ≤ d works).
    beta : float
        Inverse temperature 0 < β ≤ 26.
    draws : int
        Independent draws per head count (≥ 2 for standard errors).
    equivalent : bool
        Also sample the Gaussian-equivalent model, with the same weights as the softmax draws.
    rng : None, int or numpy.random.SeedSequence
        Head count i uses child i of ``SeedSequence(rng)``.

    Returns
    -------
    Comparison
        Keyed by H; rows with m₁, m₂ (± SE) against formula (a) and KS distances
        softmax–GE and softmax–law.
    """
    heads_list = [check_int("heads_list", h, min=1) for h in heads_list]
    if not heads_list:
        raise ValueError("heads_list must contain at least one head count; got []")
    beta = check_beta(beta)
    out = Comparison(settings=dict(ell=ell, d=d, heads_list=heads_list, beta=beta,
                                   draws=draws, key_name="H", label_name="d_h = d_v"))
    for H, child in zip(heads_list, _children(rng, len(heads_list))):
        d_head, d_value = standard_widths(d, H)
        kw = dict(d_head=d_head, d_value=d_value)
        seed = out.seeds[H] = int(child.generate_state(1)[0])
        out.softmax[H] = multihead_spectra(ell, d, H, beta, draws=draws, rng=seed, **kw)
        out.equivalent[H] = (multihead_spectra(ell, d, H, beta, draws=draws, rng=seed,
                                               equivalent=True, **kw) if equivalent else [])
        out.laws[H] = MultiHeadLaw(ell, d, H, beta, **kw)
        theory = multihead_moments(ell, d, H, beta, **kw)
        out.rows[H] = _row(H, f"{d_head}", "standard allocation", theory, out.softmax[H],
                           out.equivalent[H], out.laws[H])
    return out


def compare_ties(ell, d, heads, beta, ties=TIES, *, draws=2, groups=None, equivalent=True,
                 noise_floor=True, rng=None):
    """All weight ties against independent heads, in one call (chapter 07, A4 §6).

    Parameters
    ----------
    ell, d, heads, beta
        As in :func:`attnspec.multihead_output` (standard allocation d_h = d_v = d/H, so H
        must divide d).
    ties : sequence of str
        Ties of :data:`attnspec.TIES` to compare; ``"none"`` (independent heads, the
        reference) is always computed first, whether listed or not.
    draws : int
        Independent draws per tie (≥ 2 for standard errors).
    groups : int, optional
        Number of key–value groups for ``"gqa"`` (default: H/2 for even H, else 1).
    equivalent : bool
        Also sample each tie's Gaussian-equivalent model (same weights, draw by draw).
    noise_floor : bool
        Also sample a second, independent batch of independent heads and record the KS
        distance between the two batches (:attr:`attnspec.experiments.tables.Comparison.noise_floor`).
    rng : None, int or numpy.random.SeedSequence
        Tie i uses child i of ``SeedSequence(rng)`` (in the order of ``ties`` after
        ``"none"``); the noise-floor batch uses one more child.

    Returns
    -------
    Comparison
        Keyed by tie; each row has m₁, m₂ ± SE against the closed forms (a)–(c) of A4 §6,
        KS to independent heads, softmax–GE and softmax–law.

    Notes
    -----
    With H = 1, ``cross_kv`` (V_1 = K_{(1 mod 1)+1} = K_1) is the key–value tie, and its theory
    values and law are those of ``tie="kv"`` (as :func:`attnspec.multihead_moments` computes).
    """
    ties = [check_choice("ties", t, TIES) for t in ties]
    ties = ["none"] + [t for t in dict.fromkeys(ties) if t != "none"]
    heads = check_int("heads", heads, min=1)
    beta = check_beta(beta)
    if groups is None:
        groups = heads // 2 if heads % 2 == 0 else 1
    out = Comparison(settings=dict(ell=ell, d=d, heads=heads, beta=beta, draws=draws,
                                   groups=groups, key_name="tie", label_name="variant"))
    children = _children(rng, len(ties) + 1)
    for tie, child in zip(ties, children):
        kw = dict(tie=tie, groups=groups if tie == "gqa" else None)
        seed = out.seeds[tie] = int(child.generate_state(1)[0])
        out.softmax[tie] = multihead_spectra(ell, d, heads, beta, draws=draws, rng=seed, **kw)
        out.equivalent[tie] = (multihead_spectra(ell, d, heads, beta, draws=draws, rng=seed,
                                                 equivalent=True, **kw) if equivalent else [])
        m1, m2 = multihead_moments(ell, d, heads, beta, tie, groups=kw["groups"])
        out.laws[tie] = MultiHeadLaw(ell, d, heads, beta, tie=tie, groups=kw["groups"])
        reference = None if tie == "none" else out.pooled("none")
        out.rows[tie] = _row(tie, TIE_LABELS[tie], TIE_KINDS[tie], (m1, m2), out.softmax[tie],
                             out.equivalent[tie], out.laws[tie], reference)
    if noise_floor:
        seed = int(children[-1].generate_state(1)[0])
        second = multihead_spectra(ell, d, heads, beta, draws=draws, rng=seed)
        out.noise_floor = ks_distance(out.pooled("none"), np.concatenate(second))
    return out


def noise_rule_study(ell, d, heads, beta, *, draws=2, rng=None, comparison=None):
    """A shared attention pattern: softmax vs its Gaussian equivalent with shared or per-head noise.

    Parameters
    ----------
    ell, d, heads, beta
        As in :func:`attnspec.multihead_output` with ``tie="shared_pattern"``.
    draws : int
        Independent draws per model (≥ 2 for standard errors).
    rng : None, int or numpy.random.SeedSequence
        Seed of the draws; the three models use the same weights draw by draw.
    comparison : Comparison, optional
        A result of :func:`compare_ties` that contains ``"shared_pattern"``: its softmax and
        Gaussian-equivalent draws are reused (and their seed, so the per-head-noise model
        again has the same weights); ``rng`` and ``draws`` are then ignored.

    Returns
    -------
    Comparison
        Keyed by model: ``"softmax"``, ``"rule"`` (one noise matrix shared by the heads, the
        correct Gaussian equivalent) and ``"per_head"`` (one noise matrix per head). Rows hold
        m₁, m₂ ± SE against :func:`shared_pattern_moments`, the KS distance to the softmax
        spectrum (``ks_reference``) and to the law of formula (c) (``ks_law``).
    """
    law = MultiHeadLaw(ell, d, heads, beta, tie="shared_pattern")
    if comparison is not None and "shared_pattern" in comparison.softmax:
        seed = comparison.seeds["shared_pattern"]
        softmax = comparison.softmax["shared_pattern"]
        rule = comparison.equivalent["shared_pattern"] or multihead_spectra(
            ell, d, heads, beta, tie="shared_pattern", draws=len(softmax), rng=seed,
            equivalent=True)
        draws = len(softmax)
    else:
        seed = int(_children(rng, 1)[0].generate_state(1)[0])
        kw = dict(tie="shared_pattern", draws=draws, rng=seed)
        softmax = multihead_spectra(ell, d, heads, beta, **kw)
        rule = multihead_spectra(ell, d, heads, beta, equivalent=True, **kw)
    per_head = multihead_spectra(ell, d, heads, beta, tie="shared_pattern", draws=draws,
                                 rng=seed, equivalent=True, noise="per_head")
    out = Comparison(settings=dict(ell=ell, d=d, heads=heads, beta=beta, draws=draws,
                                   key_name="model", label_name="model",
                                   sample_name="simulated",
                                   reference_name=("KS to softmax", "KS(softmax)")),
                     laws={"shared_pattern": law})
    labels = {"softmax": "softmax attention", "rule": "GE, one shared noise matrix",
              "per_head": "GE, one noise matrix per head"}
    for key, spectra in (("softmax", softmax), ("rule", rule), ("per_head", per_head)):
        out.softmax[key], out.seeds[key] = spectra, seed
        noise = "per_head" if key == "per_head" else "rule"
        theory = shared_pattern_moments(ell, d, heads, beta, noise=noise)
        reference = None if key == "softmax" else np.concatenate(softmax)
        out.rows[key] = _row(key, labels[key], "shared pattern", theory, spectra, [], law,
                             reference)
    return out
