"""The page of a rerun (attnspec.book.rerun_page), built by Jupyter Book with the book's
configuration, and the kernel a rerun uses (attnspec.book.kernel).

A tiny notebook is executed for real by papermill on the IPC kernel manager, gluing a number
and a figure with myst-nb's ``glue`` and citing, referring to its own figure and to other
chapters' labels; its page must show the glued number, the figure with its caption numbered
as the chapter's own, the citation as author–year and the other chapters by name. Then chapter
3 is rerun at its quick sizes and its page checked in headless Chromium, after its folder is
moved: no MathJax error, no raw citation key, label or MyST role, a caption on every figure,
solutions folded, and everything it loads from inside the folder.
"""

import re
import shutil
import subprocess
import sys
import textwrap

import nbformat
import pytest
from helpers import ROOT, WAIT_FOR_MATHJAX, chromium, console_errors

from attnspec.book.rerun_page import PageBuildError, write_page

NOTEBOOK_CELLS = [
    ("code", "%matplotlib inline\nimport matplotlib.pyplot as plt\n"
             "from myst_nb import glue\nglue('t-value', 6 * 7, display=False)\n"
             "fig, ax = plt.subplots()\nax.plot([0, 1], [1, 0])\n"
             "glue('t-fig', fig, display=False)\nplt.close(fig)\nprint('printed-output')"),
    ("markdown", "# Tiny chapter\n\nThe answer is {glue:text}`t-value`, with maths "
                 "$a_1 < b_2 > c$, as {cite:t}`hayase2025gaussian` show in {numref}`fig-tiny`; "
                 "see {ref}`ch02`, {eq}`ch02-exp-expansion` and {prf:ref}`thm-03-ge`.\n\n"
                 "```{glue:figure} t-fig\n:name: fig-tiny\n\nA *line* falling.\n```\n"),
]

SCRIPT = textwrap.dedent("""
    import sys, papermill
    from attnspec.book.kernel import IPCKernelManager
    papermill.execute_notebook(sys.argv[1], sys.argv[2], kernel_name="python3",
                               progress_bar=False, kernel_manager_class=IPCKernelManager)
""")


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny")
    cells = [nbformat.v4.new_code_cell(s) if k == "code" else nbformat.v4.new_markdown_cell(s)
             for k, s in NOTEBOOK_CELLS]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, folder / "in.ipynb")
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(folder / "in.ipynb"),
                          str(folder / "out.ipynb")], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    return folder / "out.ipynb", run.stderr


def test_ipc_kernel_does_not_warn_about_tcp(executed):
    _, stderr = executed
    assert "without encryption" not in stderr
    assert "Parent appears to have exited" not in stderr


def _text(html):
    import html as html_module

    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return " ".join(html_module.unescape(re.sub(r"<[^>]+>", " ", html)).split())


def test_the_page_is_the_book_s_rendering_with_the_chapter_s_numbers(executed, tmp_path):
    index = write_page(executed[0], tmp_path / "site", book_root=ROOT, stem="07_tiny",
                       parameters={"ell": 120}, chapter_number=7)
    assert index == tmp_path / "site" / "index.html" and index.is_file()
    page = (tmp_path / "site" / "chapters" / "07_tiny.html").read_text()
    assert "<title>7. Tiny chapter" in page and "7.1. References" in _text(page)
    text = _text(page.split('<article class="bd-article">')[1].split("</article>")[0])
    assert "The answer is 42" in text and "printed-output" in text
    assert "ell = 120" in text                                   # the note of the parameters
    assert "Fig. 7.1 A line falling." in text                    # the chapter's own number
    assert "as Hayase et al. [ 2025 ] show in Fig. 7.1" in text   # author-year, numref
    assert "chapter 2 (Background" in text                       # other pages, by name
    assert "an equation of chapter 2" in text and "Theorem (Gaussian equivalence" in text
    assert "hayase2025gaussian" not in text and "ch02-exp" not in text and "{" not in text
    assert "Theorem (Gaussian equivalence for self-attention) of chapter 3" in text
    assert "References" in text and "Karakida" in text           # the reference list
    assert "a_1 &lt; b_2 &gt; c" in page and "&amp;lt;" not in page   # escaped once
    assert (tmp_path / "site" / "_static" / "mathjax" / "tex-chtml.js").is_file()
    images = list((tmp_path / "site" / "_images").glob("*.png"))
    assert len(images) == 1 and images[0].name in page
    assert not list(tmp_path.glob(".site.*")), "the temporary build is removed"


def test_an_unresolvable_reference_fails_and_leaves_nothing(executed, tmp_path):
    nb = nbformat.read(executed[0], as_version=4)
    nb.cells[1].source += "\nSee {ref}`no-such-label`.\n"
    nbformat.write(nb, tmp_path / "bad.ipynb")
    with pytest.raises(PageBuildError, match="no-such-label"):
        write_page(tmp_path / "bad.ipynb", tmp_path / "site", book_root=ROOT, stem="07_tiny",
                   parameters={}, chapter_number=7)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.ipynb"]


PAGE_REPORT = """
const article = document.querySelector('.bd-article');
return {
  text: article.innerText,
  math: document.querySelectorAll('.math').length,
  typeset: document.querySelectorAll('mjx-container').length,
  tex_errors: document.querySelectorAll('mjx-merror').length,
  // an interactive figure's static stand-in is embedded in the page (data:), not a figure
  images: Array.from(article.querySelectorAll('img:not(.attnspec-explorable-static)'))
      .map(i => i.src),
  interactive: document.querySelectorAll('.attnspec-explorable-ready').length,
  broken: Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0))
      .map(i => i.src),
  figures: article.querySelectorAll('figure').length,
  captions: Array.from(article.querySelectorAll('figure')).map(
      f => (f.querySelector('figcaption') || {innerText: ''}).innerText.trim()),
  outside: article.querySelectorAll(
      'img:not(figure img):not(.attnspec-explorable-static)').length,
  solutions: document.querySelectorAll('.solution').length,
  folded: document.querySelectorAll('.solution.toggle-hidden').length,
  mathjax: Array.from(document.scripts).map(s => s.src).filter(s => s.includes('mathjax')),
  fonts: Array.from(document.fonts).filter(f => f.family.startsWith('MJX'))
      .map(f => f.status),
};
"""


def _labels():
    """Every label of the book's pages (chapter 3's too), as the sources spell them."""
    from attnspec.book.rerun_sphinx import book_targets

    return set(book_targets(str(ROOT), "")[1])


@pytest.mark.browser
@pytest.mark.book
def test_a_rerun_of_chapter_3_renders_in_a_browser_after_its_folder_moves(tmp_path):
    from attnspec.book.rerun import page_of, rerun_chapter

    notebook = rerun_chapter("3", quick=True, output_dir=tmp_path / "reruns", book_root=ROOT)
    page = page_of(notebook)
    folder = page.parent.parent
    assert page.is_file() and folder.parent == tmp_path / "reruns"
    moved = tmp_path / "moved here" / "zip"
    moved.parent.mkdir()
    shutil.move(folder, moved)                         # as if unzipped elsewhere
    browser = chromium()
    try:
        url = (moved / "chapters" / page.name).as_uri()
        browser.get(url)
        mathjax_ok = browser.execute_async_script(WAIT_FOR_MATHJAX)
        report = browser.execute_script(PAGE_REPORT)
        errors = console_errors(browser)
    finally:
        browser.quit()
    assert mathjax_ok and report["tex_errors"] == 0
    assert report["typeset"] >= report["math"] > 100
    assert report["mathjax"] and all(s.startswith(moved.as_uri()) for s in report["mathjax"])
    assert report["fonts"] and "error" not in report["fonts"]
    assert report["broken"] == [] and errors == []
    assert report["images"] and all(s.startswith(moved.as_uri()) for s in report["images"])
    assert report["figures"] == len(report["images"]) and report["outside"] == 0
    assert report["interactive"] == 1                  # chapter 3's, drawn from its folder
    assert all(re.match(r"Fig\. 3\.\d+ \S", c) for c in report["captions"]), report["captions"]
    assert report["solutions"] and report["folded"] == report["solutions"]
    text = report["text"]
    keys = re.findall(r"^@\w+\{([^,\s]+),", (ROOT / "references.bib").read_text(), re.M)
    assert [k for k in keys if k in text] == []
    raw = [label for label in _labels() if "-" in label and re.search(
        rf"(?<![\w-]){re.escape(label)}(?![\w-])", text)]
    assert raw == []
    assert not re.search(r"\{(cite|numref|ref|eq|doc|prf:ref|glue)(:[\w-]+)?\}`", text)
    assert "```{" not in text and ":::{" not in text
    assert "exercise-end" not in text and "not glued" not in text


def test_other_pages_are_named_from_the_book_s_sources():
    """Labels and pages of the other chapters, as the plain text that replaces them."""
    from attnspec.book.rerun_sphinx import book_targets

    docs, labels = book_targets(str(ROOT), "chapters/07_key_dependent_projections")
    assert docs["chapters/06_multihead_equivalence"] == \
        "chapter 6 (Multi-head attention and its Gaussian equivalent)"
    assert docs["chapters/A1_multihead_law_derivation"].startswith("appendix A1 (The ")
    assert labels["ch06-moments"] == "an equation of chapter 6"
    assert labels["ex-06-derive"] == "an exercise of chapter 6"
    assert labels["thm-03-ge"] == "Theorem (Gaussian equivalence for self-attention) of chapter 3"
    assert labels["ch02"].startswith("chapter 2 (Background")
    assert not any(label.startswith("fig-07") for label in labels)   # the chapter's own
