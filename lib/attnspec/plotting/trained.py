"""Figure helpers of chapter 9: a trained transformer's heads on the phase diagram, by layer,
on the ablation ladder, and their spectra."""

from __future__ import annotations

import numpy as np

from .spectra import spectrum_histogram, threshold_scale_lines
from .style import COLORS

__all__ = ["heads_on_phase_diagram", "beta_by_layer", "ladder_strips", "layer_profile",
           "normalised_spectra", "ks_against_ell"]


def _layer_colors(layers):
    import matplotlib

    return matplotlib.colormaps["viridis"](np.linspace(0.0, 0.9, layers))


def heads_on_phase_diagram(ax, ells, betas, *, scales=("mean_bound", "row_sum_clt",
                                                      "largest_entry"), random=None):
    """Trained heads as points (ℓ, β_eff) over chapter 5's (β, ℓ) plane, coloured by layer.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    ells : array_like
        (passages,) token counts ℓ.
    betas : array_like
        (passages, layers, heads) β_eff of every head.
    scales : sequence of str
        Chapter 5's threshold scales drawn (names of
        :func:`attnspec.experiments.thresholds.threshold_scales`), by
        :func:`~attnspec.plotting.spectra.threshold_scale_lines`.
    random : tuple (ells, betas, label), optional
        Points of random heads for comparison (grey crosses).
    """
    ells = np.asarray(ells, dtype=float)
    betas = np.asarray(betas, dtype=float)
    colors = _layer_colors(betas.shape[1])
    offsets = np.linspace(-0.04, 0.04, betas.shape[2])
    for layer in range(betas.shape[1]):
        x = (ells[:, None] * np.exp(offsets)[None, :]).ravel()
        ax.scatter(x, betas[:, layer].ravel(), s=14, color=colors[layer], alpha=0.8,
                   label=f"layer {layer}")
    if random is not None:
        ax.scatter(random[0], random[1], s=40, marker="x", color="0.4", label=random[2])
    threshold_scale_lines(ax, ells, names=scales)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"tokens $\ell$")
    ax.set_ylabel(r"effective inverse temperature $\beta_{\rm eff}$")


def beta_by_layer(ax, betas, *, reference=None, reference_label=None):
    """Box plot of β_eff per layer (betas of shape (passages, layers, heads)), log scale."""
    betas = np.asarray(betas, dtype=float)
    data = [betas[:, layer].ravel() for layer in range(betas.shape[1])]
    ax.boxplot(data, positions=np.arange(len(data)), widths=0.6, whis=(0, 100))
    colors = _layer_colors(len(data))
    for layer, values in enumerate(data):
        jitter = np.linspace(-0.2, 0.2, values.size)
        ax.scatter(layer + jitter, values, s=6, color=colors[layer], alpha=0.6)
    if reference is not None:
        ax.axhline(reference, color=COLORS["mp"], ls="--", lw=1.5, label=reference_label)
    ax.set_yscale("log")
    ax.set_xlabel("layer")
    ax.set_ylabel(r"$\beta_{\rm eff}$")


def ladder_strips(ax, distances, *, markers=("o", "x"), labels=None, floor=None,
                  floor_label=None):
    """KS distances per rung of the ablation ladder as strips with median bars.

    Parameters
    ----------
    distances : sequence of dict
        One dict rung name -> 1-D array per law (e.g. to ν∞ and to MP); NaN values (law out
        of reach) are drawn at the top, as hollow markers.
    labels : sequence of str
        Legend label of each law.
    floor : float, optional
        A horizontal reference line (e.g. the distance of the theorem's own matrices).
    """
    names = list(distances[0])
    colors = [COLORS["theory"], COLORS["mp"], COLORS["other"]]
    for k, table in enumerate(distances):
        shift = (k - (len(distances) - 1) / 2) * 0.25
        for i, name in enumerate(names):
            values = np.asarray(table[name], dtype=float)
            ok = np.isfinite(values)
            x = i + shift + np.linspace(-0.08, 0.08, values.size)
            ax.scatter(x[ok], values[ok], s=10, marker=markers[k], color=colors[k],
                       alpha=0.6, label=(labels[k] if labels and i == 0 else None))
            if (~ok).any():
                ax.scatter(x[~ok], np.full((~ok).sum(), 1.04), s=12, marker=markers[k],
                           facecolors="none", edgecolors=colors[k], alpha=0.6)
            if ok.any():
                median = np.median(values[ok])
                ax.plot([i + shift - 0.12, i + shift + 0.12], [median, median],
                        color=colors[k], lw=2.5)
    if floor is not None:
        ax.axhline(floor, color="0.5", ls=":", lw=1.5, label=floor_label)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels([n.replace(", ", ",\n") for n in names])
    ax.set_ylim(0, 1.08)
    ax.set_ylabel("KS distance")


def layer_profile(ax, values, *, label=None, color=None, marker="o"):
    """Median over passages and heads per layer, with the interquartile range as a band.

    ``values`` has shape (passages, layers, heads).
    """
    values = np.asarray(values, dtype=float)
    per_layer = values.transpose(1, 0, 2).reshape(values.shape[1], -1)
    layers = np.arange(values.shape[1])
    q25, q50, q75 = np.nanpercentile(per_layer, [25, 50, 75], axis=1)
    ax.plot(layers, q50, marker=marker, color=color, lw=2, label=label)
    ax.fill_between(layers, q25, q75, color=color, alpha=0.2)
    ax.set_xlabel("layer")


def normalised_spectra(ax, values, random, law, law_mean, *, bins=50, upper=None):
    """Histograms of two unit-mean spectra (trained, random) and a law rescaled to mean 1."""
    upper = upper if upper is not None else float(np.quantile(values, 0.99)) * 1.2
    spectrum_histogram(ax, values, bins=bins, range=(0, upper), color=COLORS["softmax"],
                       label="trained layer (unit mean)")
    spectrum_histogram(ax, random, bins=bins, range=(0, upper), color=COLORS["linear"],
                       label="random heads, same parameters", alpha=0.35)
    if law is not None:
        x = np.linspace(upper / 400, upper, 400)
        ax.plot(x, law_mean * law.pdf(x * law_mean), color=COLORS["theory"], lw=2,
                label="MultiHeadLaw (unit mean)")
    ax.set_xlabel("squared singular value / mean")
    ax.set_ylabel("density")


def ks_against_ell(ax, rows, series, *, markers="osD^v<>"):
    """KS distance against ℓ on log–log axes, one line per entry of ``series``.

    ``rows`` are the rows of :func:`attnspec.experiments.realistic.relaxation_study`; ``series`` maps a key of
    ``row["ks"]`` to ``(label, color, linestyle)``. Points where a distance is NaN (a law out
    of reach) are left out.
    """
    ells = np.array([row["ell"] for row in rows], dtype=float)
    shown = []
    for k, (key, (label, color, ls)) in enumerate(series.items()):
        values = np.array([row["ks"][key] for row in rows], dtype=float)
        keep = np.isfinite(values) & (values > 0)
        shown.extend(values[keep])
        ax.plot(ells[keep], values[keep], marker=markers[k % len(markers)], color=color,
                ls=ls, lw=1.5, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(ells)
    ax.set_xticklabels([f"{e:g}" for e in ells])
    ax.minorticks_off()
    if shown:   # readable ticks 1, 2, 5 × 10^k inside the range of the data
        low, high = min(shown) / 1.3, max(shown) * 1.3
        ticks = [m * 10.0 ** e for e in range(-5, 1) for m in (1, 2, 5)
                 if low <= m * 10.0 ** e <= high]
        ax.set_yticks(ticks)
        ax.set_yticklabels([f"{t:g}" for t in ticks])
    ax.set_xlabel(r"tokens $\ell$")
    ax.set_ylabel("Kolmogorov–Smirnov distance")
    return ax
