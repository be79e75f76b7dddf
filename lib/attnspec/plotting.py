"""The book's figure styles: spectra as histograms or sorted values, with theory curves.

Chapters call these so a figure cell is a few lines. Conventions (QuantEcon style): lowercase
axis labels, ``lw=2`` theory lines, legends, no titles (captions live in the cell metadata).
"""

from __future__ import annotations

import numpy as np

__all__ = ["book_style", "spectrum_histogram", "sorted_spectrum", "law_curve", "COLORS"]

#: One colour per role, used consistently across the book.
COLORS = {
    "softmax": "#1f4e79",      # true softmax attention
    "linear": "#d4722a",       # Gaussian-equivalent linear model
    "theory": "#111111",       # the limiting law nu_infinity
    "mp": "#b0302a",           # Marchenko-Pastur (the earlier prediction)
    "other": "#5a8f3e",
}


def book_style():
    """Return a matplotlib style dict for the book (apply with ``plt.rcParams.update``)."""
    return {
        "figure.figsize": (7.0, 4.0),
        "figure.dpi": 110,
        "savefig.dpi": 110,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": False,
        "legend.frameon": False,
        "font.size": 10,
        "lines.linewidth": 2,
    }


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
    ax.plot(t, law.pdf(t), color=color or COLORS["theory"], ls=ls, lw=lw, label=label)
    return ax


def sorted_spectrum(ax, values, *, label=None, color=None, ls="-", lw=1.5):
    """Plot squared singular values in decreasing order against their rank (k = 1, 2, ...)."""
    values = np.sort(np.ravel(values))[::-1]
    ax.plot(np.arange(1, values.size + 1), values, color=color, ls=ls, lw=lw, label=label)
    ax.set_xlabel("rank $k$")
    ax.set_ylabel("$s_k^2$")
    return ax
