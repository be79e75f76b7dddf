"""Code and printed tables of every chapter fit the text column of a 1280-px window.

Measured in headless Chromium on a page built with the book's theme and ``_assets/attnspec.css``
(0.78rem monospace, about 7.5 px a character), with the page's table of contents on the right:
a code or output box is 672-676 px wide and shows 85 characters; inside a ``hide-input`` /
``hide-cell`` toggle, once opened, it is 654 px and shows 82. One character more scrolls the
box sideways. These are the book's limits: ``VISIBLE`` and ``IN_TOGGLE`` in
``tools/normalize_chapters.py`` (the one place they are defined), which rewraps code to them;
``tests/test_chapter_sources.py`` checks the code lines, this file the printed outputs. Printed
outputs are read from the checked cells stored in the notebook, at the chapter's default sizes.
"""

import nbformat
import pytest

from helpers import ROOT, load_tool

norm = load_tool("normalize_chapters")
NOTEBOOKS, _ = norm.chapter_files(ROOT)


def _too_wide(path):
    """Printed lines of the shown cells that are wider than their box."""
    nb = nbformat.read(path, as_version=4)
    wide = []
    for index, cell in enumerate(nb.cells):
        tags = cell.metadata.get("tags", [])
        if cell.cell_type != "code" or "remove-cell" in tags or "remove-output" in tags:
            continue
        limit = norm.output_limit(tags)
        for output in cell.get("outputs", []):
            text = output.get("text", "") or output.get("data", {}).get("text/plain", "")
            wide += [(index, line) for line in text.splitlines() if len(line) > limit]
    return wide


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_printed_tables_fit_at_1280_px(path):
    assert _too_wide(path) == []
