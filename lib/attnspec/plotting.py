"""The book's figure styles: spectra as histograms or sorted values, with theory curves.

Chapters call these so a figure cell is a few lines. Conventions (QuantEcon style): lowercase
axis labels, ``lw=2`` theory lines, no titles (captions live in the cell metadata).

The figure policy (what a reader sees, on a laptop and on a phone):

- every figure is drawn at the width it is shown, :data:`COLUMN_WIDTH` (the book's text
  column, 660 CSS px at a 1280 px window), so it is shown at its natural size, never shrunk;
- every text is at least :data:`MIN_FONT_PT` points at that width (12 CSS px on a laptop);
  :func:`text_sizes` measures a figure;
- figures are SVG (vector): sharp on 2× screens and in the PDF. Glyphs are paths, so every
  browser draws them alike; each text keeps its size as the scale of its group, which
  ``tests/test_figures.py`` reads in the built book;
- legends sit outside the data, below the axes (:func:`legend_below`);
- panels are laid out by matplotlib's constrained layout; on a phone a figure opens full size
  on a tap (``_assets/attnspec.js`` makes every figure a link to its image).
"""

from __future__ import annotations

import numpy as np

__all__ = ["book_style", "use_book_style", "subplots", "legend_below", "legend_beside",
           "text_sizes",
           "COLUMN_WIDTH", "MIN_FONT_PT",
           "spectrum_histogram", "sorted_spectrum", "law_curve", "COLORS",
           "histogram_over_sorted", "heat_map", "threshold_scale_lines", "phase_diagram",
           "SCALE_STYLES", "edge_approximations_plot", "curve_color", "heads_on_phase_diagram",
           "beta_by_layer", "ladder_strips", "layer_profile", "normalised_spectra",
           "ks_against_ell"]

#: Width of every figure, in inches: the text column of the book's site (660 CSS px at a
#: 1280 px window, 6.875 in at 96 CSS px per inch) less the 0.1 in margin the notebook adds on
#: each side, so a figure is shown at its natural size.
COLUMN_WIDTH = 6.6

#: Smallest font size of any text in a figure, in points at :data:`COLUMN_WIDTH` (9 pt is
#: 12 CSS px on a laptop; on a phone the figure opens full size on a tap).
MIN_FONT_PT = 9

#: One colour per role, used consistently across the book.
COLORS = {
    "softmax": "#1f4e79",      # true softmax attention
    "linear": "#d4722a",       # Gaussian-equivalent linear model
    "theory": "#111111",       # the limiting law nu_infinity
    "mp": "#b0302a",           # Marchenko-Pastur (the earlier prediction)
    "other": "#5a8f3e",
}


def book_style():
    """Return a matplotlib style dict for the book (apply with :func:`use_book_style`)."""
    return {
        "figure.figsize": (COLUMN_WIDTH, 3.6),
        "figure.dpi": 96,
        "figure.constrained_layout.use": True,
        "savefig.dpi": 200,            # a PNG, if one is saved, is sharp on 2x screens
        "svg.fonttype": "path",        # glyphs as paths: drawn alike by every browser and PDF
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": False,
        "legend.frameon": False,
        "font.size": 10,
        "axes.titlesize": 10,
        "axes.labelsize": 10,
        "xtick.labelsize": MIN_FONT_PT,
        "ytick.labelsize": MIN_FONT_PT,
        "legend.fontsize": MIN_FONT_PT,
        "legend.title_fontsize": MIN_FONT_PT,
        "figure.titlesize": 10,
        "figure.labelsize": 10,
        "lines.linewidth": 2,
    }


def use_book_style():
    """Apply :func:`book_style` and, in a notebook, show figures as SVG (vector)."""
    import matplotlib.pyplot as plt

    plt.rcParams.update(book_style())
    try:
        from IPython import get_ipython
    except ImportError:         # pragma: no cover - IPython comes with the book's packages
        return
    if get_ipython() is not None:
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        set_matplotlib_formats("svg")


def subplots(nrows=1, ncols=1, *, height=None, **kwargs):
    """``plt.subplots`` at the column width, with constrained layout.

    ``height`` in inches (default: 3.2 per row of panels, 3.6 for a single panel).
    """
    import matplotlib.pyplot as plt

    height = height or (3.6 if nrows == 1 else 3.2 * nrows)
    return plt.subplots(nrows, ncols, figsize=(COLUMN_WIDTH, height), layout="constrained",
                        **kwargs)


def legend_below(fig, axes=None, *, ncol=None, **kwargs):
    """One legend for ``fig``, outside the axes, below them: it never covers data.

    Entries are collected from ``axes`` (default: every axes of the figure), each label once.
    ``ncol`` defaults to the most columns (up to 3) whose legend fits the figure's width.
    Needs constrained layout (:func:`subplots` and :func:`book_style` set it).
    """
    entries = {}
    for ax in fig.axes if axes is None else axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if not label.startswith("_"):
                entries.setdefault(label, handle)
    if not entries:
        return None
    if fig.get_layout_engine() is None:
        fig.set_layout_engine("constrained")
    renderer = fig.canvas.get_renderer()
    for columns in ([ncol] if ncol else range(min(3, len(entries)), 0, -1)):
        legend = fig.legend(list(entries.values()), list(entries), loc="outside lower center",
                            ncol=columns, **kwargs)
        if ncol or columns == 1 or \
                legend.get_window_extent(renderer).width <= 0.98 * fig.bbox.width:
            return legend
        legend.remove()
    return legend


def legend_beside(ax, **kwargs):
    """A legend for ``ax`` alone, outside it on its right (constrained layout makes room).

    For panels whose entries differ; ``kwargs`` go to ``ax.legend`` (e.g. ``title``).
    """
    return ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), **kwargs)


def text_sizes(fig):
    """Font size in points, as shown at :data:`COLUMN_WIDTH`, of every visible text of ``fig``.

    A figure wider than the column is shrunk to it, and its text with it.
    """
    from matplotlib.text import Text

    fig.canvas.draw()                   # tick labels exist once drawn
    scale = min(1.0, COLUMN_WIDTH / fig.get_figwidth())
    sizes = []
    for text in fig.findobj(Text):
        holder = text.axes
        if not (text.get_visible() and text.get_text().strip()) or \
                (holder is not None and not holder.get_visible()):
            continue
        sizes.append(text.get_fontsize() * scale)
    return sizes


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
    ax.set_ylabel("$s_k^2$")
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
            sort_ax.set_ylabel("$s_k^2$")
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
    "m1_lln": dict(color="cyan", ls="-", lw=2.5),
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
        Scales to draw (default: all but ``row_sum_clt``, which coincides with ``m1_lln``).
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

    from .experiments.thresholds import threshold_scales

    ells = np.asarray(ells, dtype=float)
    grid = np.geomspace(ells.min() / margin, ells.max() * margin, points)
    scales = threshold_scales(grid)
    if names is None:
        names = [name for name in scales if name != "row_sum_clt"]
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
        √ℓA^⊥ is above the edge z₊² (:func:`attnspec.experiments.outlier_onset.entry_onset`),
        drawn as a vertical bar at each ℓ (left of the cells' numbers).
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
                            label=r"$\max M_{ij}^2 > z_+^2$ (finite $\ell$)" if k == 0 else None)
        ax.set_ylim(min(betas) - 0.2, max(betas) + 0.2)
        ax.set_xlabel(r"tokens $\ell = d_{qk}$")
        ax.set_ylabel(r"inverse temperature $\beta$")
    legend_below(fig, [left])
    return fig


# ---------------------------------------------------------------------------------------------
# chapter 9: a trained transformer's heads

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
        :func:`threshold_scale_lines`.
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

    ``rows`` are the rows of :func:`attnspec.relaxation_study`; ``series`` maps a key of
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
