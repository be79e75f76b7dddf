"""``make pdf`` (tools/build_pdf.py): the whole book as one PDF, checked page by page.

Needs the built book (``make test`` builds it first), headless Chromium and poppler's
``pdftoppm``/``pdftotext``/``pdfinfo`` (apt-get install poppler-utils). In CI (``CI=true``) a
missing tool is a failure; elsewhere the tests are skipped with the reason. The page images are
kept in ``_build/pdf/pages/`` for a human look.

What a book needs, checked against the sources (``_toc.yml``, the chapters' headings and cell
tags), not against the builder's own lists: bookmarks for every chapter and section, a contents
page with every chapter's number and the page it starts on, numbered chapter titles, no code
that the web page folds away, no heading as the last line of a page, at most 20 MB.
"""

import re
import shutil
import subprocess

import nbformat
import pytest
import yaml
from helpers import ROOT, load_tool, unavailable

pytestmark = [pytest.mark.browser, pytest.mark.book]
PAGES = ROOT / "_build" / "pdf" / "pages"
MAX_BYTES = 20 * 1000**2
HIDDEN = {"hide-input", "hide-cell", "remove-input", "remove-cell"}


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


def _outline(pdf):
    """The PDF's bookmarks as ``[(depth, title, page number)]``, in order."""
    import pikepdf

    entries = []
    with pikepdf.open(pdf) as doc:
        pages = {page.obj.objgen: number for number, page in enumerate(doc.pages, 1)}

        def walk(items, depth):
            for item in items:
                target = item.destination or item.action.D
                entries.append((depth, item.title, pages[target[0].objgen]))
                walk(item.children, depth + 1)

        with doc.open_outline() as outline:
            walk(outline.root, 0)
    return entries


def _toc_chapters():
    """``[(source path, chapter number or None)]`` of every page in ``_toc.yml``: the chapters
    of numbered parts count 1, 2, ... across parts, as the sidebar numbers them."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    pages, number = [(toc["root"], None)], 0
    for part in toc["parts"]:
        for chapter in part["chapters"]:
            if part.get("numbered"):
                number += 1
            pages.append((chapter["file"], number if part.get("numbered") else None))
    found = []
    for page, number in pages:
        (path,) = [p for p in ROOT.glob(page + ".*") if p.suffix in (".md", ".ipynb")]
        found.append((path, number))
    return found


def _headings(path, deepest=2):
    """``[(level, text)]`` of the Markdown headings of a page's source (code blocks skipped)."""
    if path.suffix == ".ipynb":
        nb = nbformat.read(path, as_version=4)
        sources = [c.source for c in nb.cells if c.cell_type == "markdown"]
    else:
        sources = [path.read_text(encoding="utf-8")]
    headings = []
    for source in sources:
        fence = None
        for line in source.splitlines():
            marker = re.match(r"\s*(`{3,}|~{3,}|:{3,})", line)
            if marker and (fence is None or marker[1].startswith(fence)):
                fence = None if fence else marker[1]
                continue
            heading = re.match(r"(#{1,6})\s+(.*)", line)
            if fence is None and heading and len(heading[1]) <= deepest:
                headings.append((len(heading[1]), heading[2].strip()))
    return headings


def _key(text):
    """Letters and digits only, lower case: what survives any typesetting of a title."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _fragments(heading):
    """The keys of the parts of a source heading outside its maths (``$...$``) and markup."""
    heading = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)         # [text](link) -> text
    return [k for k in (_key(part) for part in re.split(r"\$[^$]*\$", heading)) if k]


def _shows(title, heading):
    """True if ``title`` (as printed, maths turned into symbols) shows the source ``heading``:
    every part of the heading outside its maths, in order."""
    key, start = _key(title), 0
    for fragment in _fragments(heading):
        start = key.find(fragment, start)
        if start < 0:
            return False
        start += len(fragment)
    return True


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


def test_outline_has_every_chapter_and_section_numbered(pdf):
    """A bookmark for every page of ``_toc.yml`` and, nested under it, one for each of its
    sections, in order; numbered chapters and their sections carry their numbers."""
    outline = _outline(pdf)
    assert outline[0][1] == "Contents"
    position = 0
    for path, number in _toc_chapters():
        (title,), sections = [[t for level, t in _headings(path) if level == k] for k in (1, 2)]
        while position < len(outline) and not _shows(outline[position][1], title):
            position += 1
        assert position < len(outline), f"no bookmark for {path.name}: {title!r}"
        depth, shown, _ = outline[position]
        if number is not None:
            assert shown.startswith(f"{number}. "), shown
        children = []
        for entry in outline[position + 1:]:
            if entry[0] <= depth:
                break
            if entry[0] == depth + 1:
                children.append(entry[1])
        assert len(children) == len(sections), (path.name, children, sections)
        for index, (child, section) in enumerate(zip(children, sections), 1):
            assert _shows(child, section), (child, section)
            if number is not None:
                assert child.startswith(f"{number}.{index}. "), child


def test_contents_page_lists_every_chapter_with_its_number_and_page(pdf):
    """The contents (the pages before the landing page) give every numbered chapter as
    "N. Title ... page", and that page starts the chapter: its title is printed there, with
    the number, and the page's footer shows the same page number."""
    outline = _outline(pdf)
    first_page_of_book = outline[1][2]
    pages = _text(pdf).split("\f")
    contents = " ".join(" ".join(pages[:first_page_of_book - 1]).split())
    numbered = [(path, number) for path, number in _toc_chapters() if number is not None]
    assert len(numbered) >= 9
    for path, number in numbered:
        title = next(t for level, t in _headings(path) if level == 1)
        words = " ".join(title.split("$")[0].split()[:4])
        found = re.search(rf"(?<![\d.]){number}\. {re.escape(words)}[^\d]*?(\d+)(?!\.)", contents)
        assert found, f"contents: no line '{number}. {words} ... page'"
        page = int(found[1])
        body = [line.strip() for line in pages[page - 1].splitlines() if line.strip()]
        top = " ".join(" ".join(body[:4]).split())                 # a part's title may be first
        top = re.sub(r"(?<=\w-) ", "", top)          # a title wrapped after a hyphen ("key-")
        assert f"{number}. {words}" in top, (page, top)
        assert body[-1] == str(page)                               # the footer


def test_no_code_that_the_web_page_folds_is_printed(pdf):
    """Code of cells the web page hides (hide-input, hide-cell) or removes is not printed:
    none of their lines that appear nowhere else in the book (plotting calls among them)."""
    visible = []
    for path, _ in _toc_chapters():
        if path.suffix == ".ipynb":
            for cell in nbformat.read(path, as_version=4).cells:
                if not HIDDEN & set(cell.metadata.get("tags", [])):
                    visible.append(cell.source)
        else:
            visible.append(path.read_text(encoding="utf-8"))
    visible = " ".join(" ".join(visible).split())
    hidden = {" ".join(line.split()) for path in sorted((ROOT / "chapters").glob("*.ipynb"))
              for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code"
              and HIDDEN & set(cell.metadata.get("tags", []))
              for line in cell.source.splitlines() if len(line.strip()) >= 16}
    hidden = {line for line in hidden if line not in visible}
    plotting = {line for line in hidden if re.search(r"\bplt\.|\bfig, |\.plotting\.", line)}
    assert len(hidden) >= 20 and len(plotting) >= 5, (len(hidden), len(plotting))  # not vacuous
    printed = {" ".join(line.split()) for line in _text(pdf).splitlines()}   # ≤ 82 characters:
    printed = sorted(line for line in hidden if line in printed)              # never wrapped
    assert printed == [], printed


def test_pdf_is_at_most_20_mb(pdf):
    assert pdf.stat().st_size <= MAX_BYTES, f"{pdf.stat().st_size / 1e6:.1f} MB"


def test_no_heading_is_the_last_line_of_a_page(pdf):
    """The last line of every page (above the page number) is not a heading of the book."""
    keys = {k for path, _ in _toc_chapters() for _, heading in _headings(path, deepest=4)
            if (k := "".join(_fragments(heading)))}
    assert len(keys) >= 100

    def heading(line, before):
        """``line`` (with the line ``before`` it) is a heading, its start, or its two lines."""
        if line.endswith((".", ",", ";", ":")):
            return False                                           # the end of a sentence
        key = _key(re.sub(r"^(§?[\dA-Z]+\.)+(\d+\.)*\s+", "", line))
        both = _key(re.sub(r"^(§?[\dA-Z]+\.)+(\d+\.)*\s+", "", before)) + key
        return any(key == k or (key.startswith(k) and len(key) <= len(k) + 4)
                   or (len(key) >= 12 and k.startswith(key))
                   or (len(key) >= 3 and len(both) >= 12 and k.startswith(both))
                   for k in keys)

    outline = _outline(pdf)
    pages = _text(pdf).split("\f")[outline[1][2] - 1:]          # after the contents
    stranded = []
    for number, page in enumerate(pages, outline[1][2]):
        lines = [line.strip() for line in page.splitlines() if line.strip()]
        if lines and lines[-1].isdigit():
            lines.pop()                                            # the footer
        if lines and heading(lines[-1], lines[-2] if len(lines) > 1 else ""):
            stranded.append((number, lines[-1]))
    assert stranded == [], stranded


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


def test_wide_raster_images_are_downsampled_for_print(tmp_path):
    """A PNG wider than 200 pixels per inch at the printed width is printed from a copy at
    that width (same aspect); narrower PNGs and SVGs are printed as they are."""
    from PIL import Image

    tool = load_tool("build_pdf")
    site, scratch = tmp_path / "site", tmp_path / "scratch"
    (site / "_images").mkdir(parents=True)
    scratch.mkdir()
    Image.new("RGB", (3000, 1200), "white").save(site / "_images" / "wide.png")
    Image.new("RGB", (1000, 400), "white").save(site / "_images" / "narrow.png")
    (site / "_images" / "plot.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    width = int(tool.PRINT_PPI * tool.TEXT_WIDTH_IN)
    assert 1300 < width < 1500                        # 200 ppi across A4's text column
    scaled = tool._scaled_image(site, "_images/wide.png", scratch)
    assert scaled.startswith(tool.SCALED + "/")
    with Image.open(scratch / scaled.split("/")[-1]) as image:
        assert image.size == (width, round(1200 * width / 3000))
    assert tool._scaled_image(site, "_images/narrow.png", scratch) == "_images/narrow.png"
    assert tool._scaled_image(site, "_images/plot.svg", scratch) == "_images/plot.svg"
