"""The book's figure policy: column width, smallest text, colours, legends outside the data
(the rules are listed in :mod:`attnspec.plotting`)."""

from __future__ import annotations

__all__ = ["COLUMN_WIDTH", "MIN_FONT_PT", "COLORS", "book_style", "use_book_style", "subplots",
           "legend_below", "legend_beside", "text_sizes"]


#: Width of every figure, in inches, the text column of the book's site (660 CSS px at a
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
