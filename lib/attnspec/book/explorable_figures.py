"""The book's interactive figures (chapters 3, 5, 6, 7 and the explorer page): the data of each,
computed by the library for every slider position (:mod:`attnspec.book.explorables` draws them).

Each function returns an :class:`~attnspec.book.explorables.Explorable`; a chapter cell that
ends with the call shows it. Every random draw is seeded from ``seed`` and the position, so the
same seed gives the same page.
"""

from __future__ import annotations

import zlib

import numpy as np

from attnspec._validation import check_int
from attnspec.book.explorables import Control, Explorable, Frame, Panel, Series, page_values
from attnspec.experiments.multihead import multihead_spectra
from attnspec.experiments.thresholds import threshold_scales
from attnspec.laws.attention import AttentionLaw
from attnspec.laws.classical import MarchenkoPastur
from attnspec.laws.multihead import MultiHeadLaw
from attnspec.plotting import COLORS
from attnspec.sampling.softmax import centered, softmax_attention
from attnspec.sampling.ties import TIE_LABELS
from attnspec.spectra import squared_singular_values

__all__ = ["single_head_law", "outliers_and_scales", "multihead_law", "law_explorer"]

_SQUARED = "squared singular value"


def _rng(seed, *position):
    """The generator of one slider position: independent across positions, same seed same draw.
    A number enters as round(1000·value), a name (a tie) by its CRC-32, so that two names of
    the same length draw differently."""
    return np.random.default_rng([int(seed), *(zlib.crc32(p.encode()) if isinstance(p, str)
                                               else int(round(1000 * p)) for p in position)])


def _histogram(values, edges):
    """Heights of a density histogram over ``edges``, normalised by all values (so values
    beyond the last edge, such as outliers, count in the total but are not drawn)."""
    values = np.concatenate([np.ravel(v) for v in values])
    counts, _ = np.histogram(values, bins=edges)
    return counts / (values.size * np.diff(edges))


def _law_grid(upper, points):
    """x from upper/points to upper, spaced in the singular value √x (resolves a hard edge)."""
    return page_values(np.linspace(0.0, np.sqrt(upper), points + 1)[1:] ** 2)


def _bulk_top(*densities):
    """A y-range top that shows the bulk: 1.3 × the largest density away from x = 0."""
    tops = [np.nanmax(d[len(d) // 10:]) for d in densities if np.any(np.isfinite(d))]
    return 1.3 * max(tops)


def _fmt(value):
    return f"{value:.6g}"


def single_head_law(betas, cs, *, ell=400, seed=0, points=120, bins=40, name="exp-03-law"):
    r"""ν∞(β, c) against MP(1, s) (same mean s) and one draw of √ℓA^⊥ at ℓ tokens, d_qk = ℓ/c.

    Sliders β and c; readouts: the right edge z₊² of ν∞, the MP edge 4s, m₁ = s and
    m₂ = 2s² + cβ⁴ (A4 §3), the mean of the draw over s, where β stands against chapter 5's
    scale √(2 log ℓ/3) of the mean's shortfall (a heuristic order of growth, A4 §5),
    and the ``attnspec law`` command that prints the law's numbers.
    """
    ell, seed = check_int("ell", ell, min=2), check_int("seed", seed, min=0)
    points, bins = check_int("points", points, min=2), check_int("bins", bins, min=1)
    scale = threshold_scales(ell)["mean_shortfall"].value    # √(2 log ℓ/3)

    def frame(beta, c):
        law = AttentionLaw(beta, c)
        mp = MarchenkoPastur(1.0, law.s)
        d_qk = max(1, round(ell / c))
        sample = squared_singular_values(centered(
            softmax_attention(ell, d_qk, beta, rng=_rng(seed, beta, c))))
        edge = law.support()[1]
        upper = 1.15 * max(edge, mp.support()[1])
        x = _law_grid(upper, points)
        density, mp_density = law.pdf(x), mp.pdf(x)
        edges = np.linspace(0.0, upper, bins + 1)
        return (Frame()
                .hist("softmax", edges, _histogram([sample], edges))
                .line("law", x, density).line("mp", x, mp_density)
                .rule("edge", [edge])
                .domain(0, x=(0.0, upper), y=(0.0, _bulk_top(density, mp_density)))
                .readout("right edge z₊²", _fmt(edge)).readout("MP edge 4s", _fmt(4 * law.s))
                .readout("m₁", _fmt(law.moment(1))).readout("m₂", _fmt(law.moment(2)))
                .readout("MP m₂ = 2s²", _fmt(2 * law.s ** 2))
                .readout("this draw's mean / s", f"{np.mean(sample) / law.s:.3g}")
                .readout(f"ν∞ at ℓ = {ell}", _finite_ell_remark(beta, scale))
                .with_command(f"attnspec law --beta {beta:g} --c {c:g}"))

    return Explorable(
        name, [Control("beta", "β", betas, default=1.0 if 1.0 in betas else None),
               Control("c", "c = ℓ/d_qk", cs, default=1.0 if 1.0 in cs else None)],
        [Panel(_SQUARED, "density")],
        [Series("softmax", "hist", f"softmax attention, ℓ = {ell}", COLORS["softmax"]),
         Series("law", "line", "ν∞(β, c)", COLORS["theory"]),
         Series("mp", "line", "MP(1, s)", COLORS["mp"], dash=(6, 4)),
         Series("edge", "rule", "right edge z₊²", "#777777", dash=(2, 3))],
        frame, alt="The density of the limit law nu-infinity(beta, c), the Marchenko-Pastur "
                   "law with the same mean, and a histogram of one draw of softmax attention, "
                   "at the inverse temperature and aspect ratio chosen with the sliders.")


def _finite_ell_remark(beta, scale):
    """Where β stands against √(2 log ℓ/3) (``scale``): chapter 5's heuristic order of growth
    (as ℓ → ∞) of the mean's shortfall, not a finite-ℓ threshold; the exact bound is √(log ℓ)."""
    if beta < scale:
        return (f"β below √(2 log ℓ/3) = {scale:.3g}: the mean of softmax attention falls "
                "short of s more and more as β nears it (chapter 5)")
    return (f"β past √(2 log ℓ/3) = {scale:.3g}: at this ℓ the mean of softmax attention "
            "falls well short of s, and ν∞ does not describe the histogram (chapter 5)")


def outliers_and_scales(ells, betas, *, draws=2, seed=0, bins=50, name="exp-05-outliers"):
    r"""The spectrum of √ℓA^⊥ (c = 1) with its outliers beyond z₊², and the threshold scales.

    Sliders β and ℓ. Top: the pooled spectrum of ``draws`` draws (log x), ν∞(β, 1) and its edge,
    the outliers as points. Bottom: the threshold scales of chapter 5 at this ℓ
    (β against its factor of √(log ℓ)) and the current β. Readout: outliers per draw.
    """
    draws, seed = check_int("draws", draws, min=1), check_int("seed", seed, min=0)
    bins = check_int("bins", bins, min=1)

    def frame(ell, beta):
        law = AttentionLaw(beta, 1.0)
        edge = law.support()[1]
        rng = _rng(seed, ell, beta)
        spectra = [squared_singular_values(centered(softmax_attention(ell, ell, beta, rng=rng)))
                   for _ in range(draws)]
        top = max(1.2 * edge, 1.1 * max(v[0] for v in spectra))
        edges = np.geomspace(edge * 1e-3, top, bins + 1)
        x = page_values(np.geomspace(edge * 1e-3, edge, 160))
        density = law.pdf(x)
        outliers = np.concatenate([v[v > edge] for v in spectra])
        y_top = _bulk_top(density)
        counts = [int(np.sum(v > edge)) for v in spectra]
        scales = threshold_scales(ell)
        labels = {}
        for scale_name, scale in scales.items():
            labels.setdefault((round(scale.value, 9), scale.factor), []).append(scale_name)
        scale_x = [key[0] for key in labels]
        scale_y = [key[1] for key in labels]
        return (Frame()
                .hist("spectrum", edges, _histogram(spectra, edges))
                .line("law", x, density).rule("edge", [edge])
                .point("outliers", outliers, np.full(outliers.size, 0.04 * y_top))
                .domain(0, x=(edges[0], top), y=(0.0, y_top))
                .point("scales", scale_x, scale_y, labels=[", ".join(v) for v in labels.values()])
                .rule("beta", [beta])
                .domain(1, x=(0.0, 1.4 * max(max(scale_x), max(betas))),
                        y=(0.0, 1.1 * max(scale_y)))
                .readout("outliers per draw", ", ".join(map(str, counts)))
                .readout("edge z₊²", _fmt(edge))
                .readout("largest / edge", f"{max(v[0] for v in spectra) / edge:.3g}")
                .with_command(f"attnspec law --beta {beta:g} --c 1"))

    return Explorable(
        name, [Control("ell", "ℓ", ells, format="{:d}"), Control("beta", "β", betas)],
        [Panel(_SQUARED + " (log scale)", "density", x_scale="log"),
         Panel("β", "factor of √(log ℓ)", height=150)],
        [Series("spectrum", "hist", "softmax attention (draws pooled)", COLORS["softmax"]),
         Series("law", "line", "ν∞(β, 1)", COLORS["theory"]),
         Series("edge", "rule", "right edge z₊²", "#777777", dash=(2, 3)),
         Series("outliers", "point", "outliers (beyond z₊²)", COLORS["mp"]),
         Series("scales", "point", "threshold scales at this ℓ", COLORS["other"], panel=1),
         Series("beta", "rule", "current β", COLORS["softmax"], panel=1)],
        frame, alt="The spectrum of softmax attention with its outliers beyond the edge of the "
                   "limit law, at the number of tokens and inverse temperature chosen with the "
                   "sliders, and the threshold scales of beta at that number of tokens.")


def multihead_law(ell, d, beta, *, heads=(1, 2, 4, 8), ties=("none",), value_ratios=(1.0,),
                  draws=2, seed=0, points=120, bins=40, name="exp-06-heads"):
    r"""MultiHeadLaw against the Gaussian-equivalent model, over H, the tie and d_v/d_h.

    Controls: the head count H (d_h = d/H), the tie (when several are given) and the value
    width ratio d_v/d_h (when several are given). The histogram pools ``draws`` draws of the
    Gaussian-equivalent multi-head output (:func:`attnspec.experiments.multihead.multihead_spectra`
    with ``equivalent=True``), drawn per position (H, tie, d_v/d_h); readouts: the tie (when
    several are given; grouped-query has G = max(1, H/2) groups, so at H = 2 it is one group,
    the model of multi-query, and the readout says so), the law's right edge, m₁ and m₂.
    """
    ell, d = check_int("ell", ell, min=2), check_int("d", d, min=2)
    draws, seed = check_int("draws", draws, min=1), check_int("seed", seed, min=0)
    points, bins = check_int("points", points, min=2), check_int("bins", bins, min=1)

    def frame(heads, tie="none", ratio=1.0):
        d_head = d // heads
        d_value = max(1, round(ratio * d_head))
        groups = max(1, heads // 2) if tie == "gqa" else None
        law = MultiHeadLaw(ell, d, heads, beta, tie, d_head=d_head, d_value=d_value,
                           groups=groups)
        sample = multihead_spectra(ell, d, heads, beta, tie=tie, draws=draws, equivalent=True,
                                   d_head=d_head, d_value=d_value, groups=groups,
                                   rng=_rng(seed, heads, tie, ratio))
        edge = law.support()[1]
        upper = 1.15 * max(edge, max(v[0] for v in sample))
        x = _law_grid(upper, points)
        density = law.pdf(x)
        edges = np.linspace(0.0, upper, bins + 1)
        result = (Frame()
                  .hist("equivalent", edges, _histogram(sample, edges))
                  .line("law", x, density).rule("edge", [edge])
                  .domain(0, x=(0.0, upper), y=(0.0, _bulk_top(density))))
        if len(ties) > 1:
            result.readout("tie", _tie_text(tie, heads, groups))
        return (result
                .readout("right edge", _fmt(edge)).readout("m₁", _fmt(law.moment(1)))
                .readout("m₂", _fmt(law.moment(2)))
                .with_command(f"attnspec.MultiHeadLaw({ell}, {d}, {heads}, {beta:g}, "
                              f"{tie!r}, d_head={d_head}, d_value={d_value}"
                              + (f", groups={groups})" if groups else ")")))

    controls = [Control("heads", "H", heads, format="{:d}",
                        default=4 if 4 in heads else None)]
    if len(ties) > 1:
        controls.append(Control("tie", "tie", ties, default=ties[0]))
    if len(value_ratios) > 1:
        controls.append(Control("ratio", "d_v/d_h", value_ratios,
                                default=1.0 if 1.0 in value_ratios else None))
    return Explorable(
        name, controls, [Panel(_SQUARED, "density")],
        [Series("equivalent", "hist", f"Gaussian equivalent, ℓ = {ell}, d = {d}",
                COLORS["linear"]),
         Series("law", "line", "MultiHeadLaw", COLORS["theory"]),
         Series("edge", "rule", "right edge", "#777777", dash=(2, 3))],
        frame, alt="The limit law of the centred multi-head output against a histogram of its "
                   "Gaussian-equivalent model, for the head count, tie and value width chosen "
                   "with the controls.")


def _tie_text(tie, heads, groups):
    """The tie's name; for grouped-query its groups, and at one group that it is multi-query;
    for the output tied to keys, that its law (that of independent heads) rests on Monte Carlo
    only (A4 §6)."""
    if tie == "output_keys":
        return (f"{TIE_LABELS[tie]} (the law drawn is that of independent heads, "
                "supported by Monte Carlo only, chapter 7)")
    if tie != "gqa":
        return TIE_LABELS[tie]
    size = heads // groups
    text = (f"{TIE_LABELS[tie]}, G = {groups} group{'s' * (groups > 1)} "
            f"of {size} head{'s' * (size > 1)}")
    if groups == 1:
        text += (f" (at H = {heads}, one group shares K and V across every head: "
                 "the model of multi-query, drawn independently)")
    return text


def law_explorer(betas, cs, *, points=120, name="exp-explorer"):
    r"""``attnspec law`` in the browser: the density and CDF of ν∞(β, c), its edges and moments
    (a moment beyond the float64 range reads so)."""
    points = check_int("points", points, min=2)

    def moment(law, k):
        try:
            return _fmt(law.moment(k))
        except ValueError:                  # refused: beyond the float range at large β
            return "beyond float64"

    def frame(beta, c):
        law = AttentionLaw(beta, c)
        edges = law.edges()
        upper = 1.05 * edges[-1]
        x = _law_grid(upper, points)
        density = law.pdf(x)
        result = (Frame().area("density", x, density).line("cdf", x, law.cdf(x))
                  .rule("edges", edges)
                  .domain(0, x=(0.0, upper), y=(0.0, _bulk_top(density)))
                  .domain(1, x=(0.0, upper), y=(0.0, 1.0))
                  .readout("s = exp(β²) − 1", _fmt(law.s))
                  .readout("support", " ∪ ".join(f"[{_fmt(a)}, {_fmt(b)}]"
                                                 for a, b in zip(edges[::2], edges[1::2]))))
        for k in (1, 2, 3, 4):
            result.readout(f"m{'₁₂₃₄'[k - 1]}", moment(law, k))
        return result.with_command(f"attnspec law --beta {beta:g} --c {c:g} --table 20")

    return Explorable(
        name, [Control("beta", "β", betas, default=1.0 if 1.0 in betas else None),
               Control("c", "c = ℓ/d_qk", cs, default=1.0 if 1.0 in cs else None)],
        [Panel(_SQUARED, "density"), Panel(_SQUARED, "CDF", height=180)],
        [Series("density", "area", "density of ν∞(β, c)", COLORS["softmax"]),
         Series("edges", "rule", "support edges", "#777777", dash=(2, 3)),
         Series("cdf", "line", "CDF", COLORS["theory"], panel=1)],
        frame, alt="The density and the cumulative distribution function of the limit law "
                   "nu-infinity(beta, c) with its support edges, for the inverse temperature and "
                   "aspect ratio chosen with the sliders.")
