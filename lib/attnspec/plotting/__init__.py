"""The book's figure styles: spectra as histograms or sorted values, with theory curves.

Chapters call these so a figure cell is a few lines. Conventions (QuantEcon style): lowercase
axis labels, ``lw=2`` theory lines, no titles (captions live in the cell metadata).

The figure policy (what a reader sees, on a laptop and on a phone):

- every figure is drawn at the width it is shown, :data:`COLUMN_WIDTH` (the book's text
  column, 660 CSS px at a 1280 px window), so it is shown at its natural size, never shrunk;
- every text is at least :data:`MIN_FONT_PT` points at that width (12 CSS px on a laptop);
  :func:`~attnspec.plotting.style.text_sizes` measures a figure;
- figures are SVG (vector): sharp on 2× screens and in the PDF. Glyphs are paths, so every
  browser draws them alike; each text keeps its size as the scale of its group, which
  ``tests/test_figures.py`` reads in the built book;
- legends sit outside the data, below the axes (:func:`~attnspec.plotting.style.legend_below`);
- panels are laid out by matplotlib's constrained layout; on a phone a figure opens full size
  on a tap (``_assets/attnspec.js`` makes every figure a link to its image).

The helpers live in three modules, all reachable from here: :mod:`attnspec.plotting.style`
(the policy: width, text sizes, colours, legends), :mod:`attnspec.plotting.spectra` (spectra,
laws, heat maps, the threshold scales and the phase diagram) and
:mod:`attnspec.plotting.trained` (chapter 9's trained heads).
"""

from . import spectra, style, trained
from .spectra import *  # noqa: F401,F403
from .style import *  # noqa: F401,F403
from .trained import *  # noqa: F401,F403

__all__ = [*style.__all__, *spectra.__all__, *trained.__all__]
