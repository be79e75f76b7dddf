"""Every figure of the built book is legible where it is shown (headless Chromium).

The smallest text of each figure, as rendered: at a 1280 px window at least ``LAPTOP_PX`` CSS
px; at 390 px (a phone) at least ``PHONE_PX``, or the figure is a link to its full-size image
(``_assets/attnspec.js``). Figures are SVG (:func:`attnspec.plotting.use_book_style`);
matplotlib draws each text as a group ``text_N`` whose glyphs are scaled by font size / 100,
so the test reads each text's font size in the file and scales it by the figure's rendered
width over its intrinsic width. The size of a text is that of its line; sub- and superscripts
inside a formula are typeset at 70 % of it, as in print. A raster figure, or an SVG without
text, cannot be measured and fails. The sizes are
written to ``_build/screenshots/figure_text.json``. Needs ``make book``; in CI a missing browser
or book is a failure.
"""

import json
import re
import xml.etree.ElementTree as ET
from urllib.parse import unquote, urlparse

import pytest
from test_site import HTML, SHOTS, _pages, browser, site  # noqa: F401

LAPTOP_PX = 9
PHONE_PX = 7
SVG = "{http://www.w3.org/2000/svg}"
#: the scale of a text's glyphs: font size / 100 (``scale(0.09 -0.09)`` for 9 pt)
GLYPH_SCALE = re.compile(r"scale\(([\d.]+) -([\d.]+)\)")
TEXT_GROUP = re.compile(r"text_\d+$")

FIGURES = """
return Array.from(document.querySelectorAll('.bd-article figure img, .bd-article .cell_output img'))
  .map(i => ({src: i.currentSrc || i.src, width: i.getBoundingClientRect().width,
              link: i.closest('a') ? i.closest('a').href : null,
              name: (i.closest('figure') || {}).id || i.alt.slice(0, 60)}));
"""


def smallest_text(path):
    """``(smallest font size, intrinsic width)`` of an SVG, both in its own user units.

    The size of a text is the scale of its line's glyphs (its scripts are scaled further)."""
    root = ET.parse(path).getroot()
    width = float(root.get("viewBox").split()[2])
    sizes = []
    for group in root.iter(f"{SVG}g"):
        if TEXT_GROUP.match(group.get("id", "")):
            found = [100 * float(m[0]) for node in group.iter(f"{SVG}g")
                     for m in GLYPH_SCALE.findall(node.get("transform", ""))]
            if found:
                sizes.append(max(found))
    return (min(sizes) if sizes else None), width


def _file(src):
    return HTML / unquote(urlparse(src).path).lstrip("/")


def test_smallest_text_is_read_from_the_svg(tmp_path):
    """The reader of font sizes: a line's size counts, its subscript does not."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with plt.rc_context({"svg.fonttype": "path"}):
        fig = plt.figure(figsize=(3, 1))
        fig.text(0.1, 0.6, r"law $\nu_\infty$", fontsize=11)
        fig.text(0.1, 0.2, "ticks", fontsize=9.5, rotation=90)
        fig.savefig(tmp_path / "f.svg")
        plt.close(fig)
    assert smallest_text(tmp_path / "f.svg") == (9.5, 216.0)


def _measure(browser, site, page, window):
    browser.set_window_size(window, 1000)
    browser.get(f"{site}/{page}")          # returns once the page and its images loaded
    rows = []
    for figure in browser.execute_script(FIGURES):
        path = _file(figure["src"])
        size, width = smallest_text(path) if path.suffix == ".svg" else (None, None)
        rendered = None if size is None else size * figure["width"] / width
        opens = bool(figure["link"]) and _file(figure["link"]) == path
        rows.append({"figure": figure["name"], "file": path.name, "px": rendered,
                     "opens_full_size": opens})
    return rows


@pytest.mark.browser
@pytest.mark.parametrize("page", _pages() or ["intro.html"])
def test_every_figure_is_legible(page, site, browser):
    """≥ 9 CSS px at 1280 px; at 390 px ≥ 7 px or a link to the full-size image."""
    laptop = _measure(browser, site, page, 1280)
    phone = _measure(browser, site, page, 390)
    SHOTS.mkdir(parents=True, exist_ok=True)
    record = SHOTS / "figure_text.json"
    sizes = json.loads(record.read_text()) if record.is_file() else {}
    sizes[page] = [{**a, "px_390": b["px"]} for a, b in zip(laptop, phone)]
    record.write_text(json.dumps(sizes, indent=1))

    unmeasurable = [r["figure"] for r in laptop if r["px"] is None]
    assert not unmeasurable, ("figures that are not SVG with text (draw them after "
                              f"attnspec.plotting.use_book_style()): {unmeasurable}")
    small = [(r["figure"], round(r["px"], 1)) for r in laptop if r["px"] < LAPTOP_PX]
    assert not small, f"smallest text under {LAPTOP_PX} CSS px at 1280 px: {small}"
    unreadable = [(r["figure"], round(r["px"], 1)) for r in phone
                  if r["px"] < PHONE_PX and not r["opens_full_size"]]
    assert not unreadable, (f"under {PHONE_PX} px at 390 px and not a link to the "
                            f"full-size image: {unreadable}")
