"""``make pdf`` (tools/build_pdf.py): the whole book as one PDF, checked page by page.

Needs the built book (``make test`` builds it first), headless Chromium and poppler's
``pdftoppm``/``pdftotext``/``pdfinfo`` (apt-get install poppler-utils). In CI (``CI=true``) a
missing tool is a failure; elsewhere the tests are skipped with the reason. The page images are
kept in ``_build/pdf/pages/`` for a human look.
"""

import re
import shutil
import subprocess

import nbformat
import pytest
from helpers import ROOT, load_tool, unavailable

pytestmark = [pytest.mark.browser, pytest.mark.book]
PAGES = ROOT / "_build" / "pdf" / "pages"



@pytest.fixture(scope="module")
def pdf():
    tool = load_tool("build_pdf")
    if not (ROOT / "_build" / "html" / "intro.html").is_file():
        unavailable("the book is not built: run `make book` first")
    if not tool.find_chrome():
        unavailable("headless Chromium is not installed")
    if not all(shutil.which(t) for t in ("pdftoppm", "pdftotext", "pdfinfo")):
        unavailable("poppler-utils is not installed (apt-get install poppler-utils)")
    return tool.build(ROOT)


def _text(pdf):
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True,
                          capture_output=True, text=True).stdout


def test_pdf_has_every_chapter_and_extractable_text(pdf):
    info = subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True,
                          text=True).stdout
    pages = int(re.search(r"Pages:\s+(\d+)", info)[1])
    chapters = sorted((ROOT / "chapters").glob("*.ipynb"))
    assert pages >= 3 * len(chapters)
    text = _text(pdf)
    for path in chapters:
        title = next(line for c in nbformat.read(path, as_version=4).cells
                     if c.cell_type == "markdown" for line in c.source.splitlines()
                     if line.startswith("# "))
        title = re.sub(r"[$\\{}`]", "", title.removeprefix("# ")).strip()
        assert " ".join(title.split()[:3]) in " ".join(text.split()), title
    assert "How to cite" in text


def test_no_page_is_blank(pdf):
    from PIL import Image

    if PAGES.exists():
        shutil.rmtree(PAGES)
    PAGES.mkdir(parents=True)
    subprocess.run(["pdftoppm", "-r", "30", "-png", str(pdf), str(PAGES / "page")], check=True)
    blank = []
    for png in sorted(PAGES.glob("page-*.png")):
        gray = Image.open(png).convert("L")
        ink = sum(gray.histogram()[:200]) / (gray.width * gray.height)   # pixels below 200
        if ink < 0.0001:          # not one dark pixel in ten thousand: an empty page
            blank.append(png.name)
    assert blank == []


def test_code_is_not_cut(pdf):
    """Every code line of chapter 1 (all ≤ 85 characters) is printed whole, on one line."""
    text = " ".join(_text(pdf).split())
    nb = nbformat.read(ROOT / "chapters" / "01_attention_as_a_random_matrix.ipynb",
                       as_version=4)
    lines = [line.strip() for cell in nb.cells[1:] if cell.cell_type == "code"
             and "remove-input" not in cell.metadata.get("tags", [])
             and "hide-input" not in cell.metadata.get("tags", [])
             for line in cell.source.splitlines() if len(line.strip()) > 40]
    assert lines
    missing = [line for line in lines if " ".join(line.split()) not in text]
    assert missing == []
