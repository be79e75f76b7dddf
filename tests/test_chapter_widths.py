"""Code and printed tables of the listed chapters fit the text column of a 1280-px window.

Measured in headless Chromium on a page built with the book's theme and ``_assets/attnspec.css``
(0.78rem monospace, about 7.5 px a character), with the page's table of contents on the right:
a code or output box is 672-676 px wide and shows 85 characters; inside a ``hide-input`` /
``hide-cell`` toggle, once opened, it is 654 px and shows 82. One character more scrolls the
box sideways. (The book-wide limit of 88 in ``tests/test_chapter_sources.py`` is 3 too many at
1280 px; the chapters listed here keep to the measured limit.) Printed outputs are read from
the checked cells stored in the notebook, at the chapter's default sizes.
"""

import nbformat
import pytest

from helpers import ROOT

VISIBLE, IN_TOGGLE = 85, 82
CHAPTERS = ["03_single_head_theorem", "05_outliers_and_threshold"]


def _too_wide(chapter):
    nb = nbformat.read(ROOT / "chapters" / f"{chapter}.ipynb", as_version=4)
    wide = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        tags = cell.metadata.get("tags", [])
        if "remove-cell" in tags:
            continue
        code_limit = IN_TOGGLE if {"hide-input", "hide-cell"} & set(tags) else VISIBLE
        output_limit = IN_TOGGLE if "hide-cell" in tags else VISIBLE
        wide += [(index, "code", line) for line in cell.source.splitlines()
                 if len(line) > code_limit and "remove-input" not in tags]
        for output in cell.get("outputs", []):
            text = output.get("text", "") or output.get("data", {}).get("text/plain", "")
            wide += [(index, "output", line) for line in text.splitlines()
                     if len(line) > output_limit]
    return wide


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_code_and_printed_tables_fit_at_1280_px(chapter):
    assert _too_wide(chapter) == []
