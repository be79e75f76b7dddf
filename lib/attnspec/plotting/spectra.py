"""Figure helpers for spectra: histograms, sorted values, law curves, heat maps, the
threshold scales and the phase diagram (chapters 1–8)."""

from __future__ import annotations

import numpy as np

from .style import COLORS, COLUMN_WIDTH, MIN_FONT_PT, legend_below, subplots

__all__ = ["spectrum_histogram", "law_curve", "bulk_ylim", "sorted_spectrum",
           "histogram_over_sorted", "heat_map", "edge_approximations_plot", "curve_color",
           "SCALE_STYLES", "threshold_scale_lines", "phase_diagram"]


def spectrum_histogram(ax, values, *, bins=80, range=None, label=None, color=None, alpha=0.45):
    """Draw a density-normalised histogram of squared singular values on ``ax``.

    ``values`` is one array or a list of arrays (pooled over draws).
    """
    pooled = np.concatenate([np.ravel(v) for v in values]) if isinstance(values, (list, tuple)) \
        else np.ravel(values)
    ax.hist(pooled, bins=bins, range=range, density=True, histtype="stepfilled", alpha=alpha,
            color=color, label=label, edgecolor="none")
    ax.set_xlabel("squared singular value $s^2$")
    ax.set_ylabel("density")
    return ax


def law_curve(ax, law, *, points=400, upper=None, label=None, color=None, ls="-", lw=2):
    """Draw the density of a law object (anything with ``pdf`` and ``support``) on ``ax``.

    The grid is spaced in the singular-value variable, so the hard edge at 0 is resolved.
    """
    low, high = law.support()
    high = high if upper is None else min(high, upper)
    s = np.linspace(np.sqrt(max(low, 0.0)), np.sqrt(high), points)
    t = s**2
    ax.plot(t, law.pdf(t), color=COLORS["theory"] if color is None else color, ls=ls, lw=lw, label=label)
    return ax


def bulk_ylim(ax, law, *, quantile=0.1, headroom=1.2):
    """Scale the y-axis to the bulk of ``law``, cutting the hard-edge spike at 0.

    Near 0 the density of squared singular values may diverge like t^{-1/2}; the axis is set
    to ``headroom`` times the density at the ``quantile`` of the law, so the bulk is readable.
    """
    ax.set_ylim(0, headroom * float(law.pdf(law.ppf(quantile))))
    return ax


def sorted_spectrum(ax, values, *, label=None, color=None, ls="-", lw=1.5):
    """Plot squared singular values in decreasing order against their rank (k = 1, 2, ...)."""
    values = np.sort(np.ravel(values))[::-1]
    ax.plot(np.arange(1, values.size + 1), values, color=color, ls=ls, lw=lw, label=label)
    ax.set_xlabel("rank $k$")
    ax.set_ylabel(r"$\sigma_k^2$")
    return ax


def histogram_over_sorted(spectra, labels, *, law=None, reference=None, columns=3, bins=60,
                          upper=None, colors=None, law_label=None, reference_label=None,
                          offset=0, first_full_bin=1, figsize=None):
    """Panels of spectra, each a histogram above its sorted values (the stepwise figure, ch. 4).

    Parameters
    ----------
    spectra : dict
        Name → list of per-draw spectra (1-D arrays of equal length), in panel order.
    labels : dict
        Name → panel title (LaTeX allowed).
    law : law object, optional
        Drawn on every histogram (``pdf``), and its quantiles ``ppf(1 − (k − ½)/n)`` on every
        sorted panel (the k-th largest of n values it predicts).
    reference : dict, optional
        Name → name of the spectrum drawn dashed on the sorted panel (e.g. the previous step).
    columns : int
        Panels per row; each row of panels is a row of histograms over a row of sorted plots.
    bins, upper : int, float
        Histogram bins on ``[0, upper]`` (default: the largest value shown).
    colors : dict, optional
        Name → colour (default: the softmax colour).
    law_label, reference_label : str, optional
        Entries of the figure legend for the law and for the dashed reference.
    offset : int
        Number of largest values removed from every spectrum before the call: ranks are
        shown as k = offset + 1, offset + 2, … and the quantiles use n = length + offset.
    first_full_bin : int
        The histograms share a vertical axis cut at 1.3 times the tallest bin from this one on
        (default 1: only the first bin may be cut, where a density like t^{-1/2} at a hard edge
        would flatten everything else); 0 shows every bin in full. The sorted panels share
        the vertical axis [0, upper].
    figsize : tuple, optional
        Default: the column width, 3.6 inches per row of panels.

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    The sorted panels show the mean over draws of the k-th largest value, against k.
    """
    import matplotlib.pyplot as plt

    names = list(spectra)
    rows = -(-len(names) // columns)
    fig, axes = plt.subplots(2 * rows, columns, figsize=figsize or (COLUMN_WIDTH, 3.6 * rows),
                             gridspec_kw={"height_ratios": [1.2, 1.0] * rows}, squeeze=False,
                             layout="constrained")
    means = {name: np.mean([np.sort(np.ravel(s))[::-1] for s in spectra[name]], axis=0)
             for name in names}
    top = upper or max(float(np.max(means[name])) for name in names) * 1.05
    caps = []
    for index, name in enumerate(names):
        row, col = divmod(index, columns)
        hist_ax, sort_ax = axes[2 * row, col], axes[2 * row + 1, col]
        color = (colors or {}).get(name, COLORS["softmax"])
        pooled = np.concatenate([np.ravel(s) for s in spectra[name]])
        heights, _, _ = hist_ax.hist(pooled, bins=bins, range=(0, top), density=True,
                                     histtype="stepfilled", alpha=0.45, color=color,
                                     edgecolor="none", label="simulated")
        hist_ax.set_title(labels[name])
        hist_ax.set_xlabel("$s^2$")
        ranks = np.arange(1, means[name].size + 1) + offset
        sort_ax.plot(ranks, means[name], color=color, lw=1.5, label="simulated")
        if reference and reference.get(name) in means:
            sort_ax.plot(ranks, means[reference[name]], color="0.35", ls="--", lw=1,
                         label=reference_label)
        if law is not None:
            law_curve(hist_ax, law, upper=top, lw=1.2, label=law_label)
            quantiles = law.ppf(1 - (ranks - 0.5) / (ranks.size + offset))
            sort_ax.plot(ranks, quantiles, color=COLORS["theory"], lw=0.8, label=law_label)
        caps.append(np.max(heights[first_full_bin:]))
        sort_ax.set_xlabel("rank $k$")
        if col == 0:
            hist_ax.set_ylabel("density")
            sort_ax.set_ylabel(r"$\sigma_k^2$")
    for index in range(len(names), rows * columns):
        row, col = divmod(index, columns)
        axes[2 * row, col].set_visible(False)
        axes[2 * row + 1, col].set_visible(False)
    for index in range(len(names)):  # common scales, so the panels compare at a glance
        row, col = divmod(index, columns)
        axes[2 * row, col].set_ylim(0, 1.3 * max(caps))
        axes[2 * row + 1, col].set_ylim(0, top)
    legend_below(fig)
    return fig


def heat_map(ax, x, y, values, *, logx=True, lognorm=True, annotate="{:.2g}", cmap="viridis",
             colorbar_label=None, vmin=None, vmax=None):
    """A heat map of ``values[i, j]`` over a grid ``y[i]`` × ``x[j]`` (phase diagrams, ch. 5).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    x, y : array_like
        Grid values along the horizontal and vertical axes (any order; cells are sorted).
    values : array_like
        Shape (len(y), len(x)).
    logx : bool
        Logarithmic horizontal axis (cells centred on ``x`` in log scale).
    lognorm : bool
        Logarithmic colour scale (for positive values spanning decades).
    annotate : str or None
        Format of the number written in each cell (None: no numbers), at
        :data:`MIN_FONT_PT`, right of the cell's centre on a patch of the cell's colour, so
        curves drawn over the map pass under it (and bars at the centre's left miss it).
    cmap, vmin, vmax : colour map and its limits.
    colorbar_label : str, optional
        Label of the colour bar (None: no colour bar).

    Returns
    -------
    matplotlib.collections.QuadMesh
    """
    from matplotlib.colors import LogNorm

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    ix, iy = np.argsort(x), np.argsort(y)
    x, y = x[ix], y[iy]
    grid = np.asarray(values, dtype=float)[np.ix_(iy, ix)]

    def edges(v, log):
        w = np.log(v) if log else v
        if w.size == 1:
            mids = np.array([w[0] - 0.5, w[0] + 0.5])
        else:
            inner = 0.5 * (w[1:] + w[:-1])
            mids = np.concatenate([[2 * w[0] - inner[0]], inner, [2 * w[-1] - inner[-1]]])
        return np.exp(mids) if log else mids

    norm = LogNorm(vmin=vmin, vmax=vmax) if lognorm else None
    mesh = ax.pcolormesh(edges(x, logx), edges(y, False), grid, cmap=cmap, norm=norm,
                         **({} if lognorm else {"vmin": vmin, "vmax": vmax}))
    if logx:
        ax.set_xscale("log")
        ax.set_xticks(x)
        ax.set_xticklabels([f"{v:g}" for v in x])
        ax.minorticks_off()
    if annotate:
        shift = 1.12 if logx else 0.0
        for i, yv in enumerate(y):
            for j, xv in enumerate(x):
                value = grid[i, j]
                level = mesh.norm(value) if np.isfinite(value) else 0.0
                ax.text(xv * shift if logx else xv, yv, annotate.format(value), ha="center",
                        va="center", fontsize=MIN_FONT_PT, zorder=4,
                        color="white" if level < 0.55 else "black",
                        bbox=dict(boxstyle="square,pad=0.1", lw=0,
                                  facecolor=mesh.cmap(level) if np.isfinite(value) else "none"))
    if colorbar_label is not None:
        ax.figure.colorbar(mesh, ax=ax, label=colorbar_label)
    return mesh


def edge_approximations_plot(ax, cs, betas, *, points=120):
    """The edge z₊² of ν_∞ over 4s against β, exact and its small- and large-β approximations.

    For each c in ``cs``: the exact ratio
    (:func:`attnspec.experiments.operator_norm.stationary_edge`), e_M(c)β²/(4s) (dotted) and
    (4s + 4cβ⁴/s)/(4s) (dashed), over ``points`` values of β spaced geometrically in
    ``betas = (low, high)`` (A4 §3).
    """
    from attnspec.experiments.operator_norm import edge_approximations, stationary_edge

    grid = np.geomspace(betas[0], betas[1], points)
    for k, c in enumerate(cs):
        color = curve_color(k, len(cs))
        approx = edge_approximations(grid, c)
        exact = np.array([stationary_edge(b, c) for b in grid])
        ax.plot(grid, exact / approx["mp"], color=color, label=f"exact, $c = {c:g}$")
        ax.plot(grid, approx["small"] / approx["mp"], color=color, ls=":", lw=1.5)
        ax.plot(grid, approx["large"] / approx["mp"], color=color, ls="--", lw=1.5)
    ax.plot([], [], color="0.4", ls=":", lw=1.5, label=r"small $\beta$: $e_M(c)\beta^2$")
    ax.plot([], [], color="0.4", ls="--", lw=1.5, label=r"large $\beta$: $4s + 4c\beta^4/s$")
    ax.axhline(1.0, color=COLORS["mp"], lw=1, label="MP edge $4s$")
    ax.set_xscale("log")
    ax.set_xlabel(r"inverse temperature $\beta$")
    ax.set_ylabel(r"edge $z_+^2\ /\ 4s$")
    return ax


def curve_color(k, n):
    """The k-th of n colours along the book's viridis ramp (one per curve family)."""
    import matplotlib.pyplot as plt

    return plt.cm.viridis(k / max(1, n - 1) * 0.85)


#: Line style of each threshold scale of
#: :func:`attnspec.experiments.thresholds.threshold_scales` (chapter 5).
SCALE_STYLES = {
    "largest_entry": dict(color="red", ls="--", lw=2),
    "row_sum_clt": dict(color="white", ls="-.", lw=2),
    "mean_shortfall": dict(color="cyan", ls="-", lw=2.5),
    "mean_bound": dict(color="0.75", ls=":", lw=2.5),
    "row_sum_lln": dict(color="lime", ls="--", lw=2),
}


def threshold_scale_lines(ax, ells, *, names=None, margin=1.3, points=200):
    """Draw the threshold scales of chapter 5 as curves β(ℓ) on ``ax``.

    The scales are those of :func:`attnspec.experiments.thresholds.threshold_scales`.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Axes whose horizontal axis is ℓ and vertical axis is β.
    ells : array_like
        The sizes of the diagram; the curves span [min/margin, max·margin].
    names : sequence of str, optional
        Scales to draw (default: all of them).
    margin : float
        Extension factor of the ℓ range.
    points : int
        Points per curve.

    Returns
    -------
    list of matplotlib.lines.Line2D
        One per scale, labelled with its formula and its provenance label.
    """
    from matplotlib import patheffects

    from ..experiments.thresholds import threshold_scales

    ells = np.asarray(ells, dtype=float)
    grid = np.geomspace(ells.min() / margin, ells.max() * margin, points)
    scales = threshold_scales(grid)
    if names is None:
        names = list(scales)
    outline = [patheffects.withStroke(linewidth=4, foreground="black")]
    lines = []
    for name in names:
        scale = scales[name]
        (line,) = ax.plot(grid, scale.value, path_effects=outline,
                          label=rf"$\beta = {scale.tex}$ ({scale.label})",
                          **SCALE_STYLES.get(name, {}))
        lines.append(line)
    return lines


def phase_diagram(ells, betas, ks, m1_ratio, *, onsets=None, figsize=(COLUMN_WIDTH, 8.6)):
    r"""The (ℓ, β) phase diagram of chapter 5: KS distance and m₁/s, with the threshold scales.

    Parameters
    ----------
    ells, betas : sequence of float
        Grid of the sweep.
    ks, m1_ratio : array_like
        Shape (len(betas), len(ells)): KS distance to ν_∞ and measured m₁/s.
    onsets : dict, optional
        ``{ell: (onset, end)}``: the finite-ℓ window in which the largest squared entry of
        √ℓA^⊥, averaged over draws, is above the edge z₊²
        (:func:`attnspec.experiments.outlier_onset.entry_onset`; per draw, a sufficient
        condition for an outlier; the outliers start earlier), drawn as a vertical bar at each ℓ (left of the cells'
        numbers).
    figsize : tuple
        The two maps are stacked (KS above, m₁/s below), each as wide as the column.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(2, 1, figsize=figsize, layout="constrained")
    heat_map(left, ells, betas, ks, colorbar_label=r"KS distance to $\nu_\infty$")
    heat_map(right, ells, betas, m1_ratio, lognorm=False, cmap="magma", vmin=0, vmax=1.05,
             colorbar_label="$m_1 / s$")
    for ax in (left, right):
        threshold_scale_lines(ax, ells)
        if onsets:
            for k, (ell, (low, high)) in enumerate(sorted(onsets.items())):
                top = high if np.isfinite(high) else max(betas)
                if np.isfinite(low):
                    ax.plot([ell / 1.25] * 2, [low, top], color="orange", lw=5, alpha=0.8,
                            solid_capstyle="butt",
                            label=r"$\max M_{ij}^2 > z_+^2$ (mean over draws)" if k == 0
                            else None)
        ax.set_ylim(min(betas) - 0.2, max(betas) + 0.2)
        ax.set_xlabel(r"tokens $\ell = d_{qk}$")
        ax.set_ylabel(r"inverse temperature $\beta$")
    legend_below(fig, [left])
    return fig
