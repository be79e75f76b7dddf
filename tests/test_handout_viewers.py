"""What viewers without MyST show of the handout's notebooks and of the problem sheets.

Both are written from the book's build by one resolver (tools/resolve_myst.py; needs
``make book``). Checked here, for every handout notebook and every sheet (the student's and the
lecturer's version with the marking schemes):

- their Markdown cells hold no raw MyST (``helpers.RAW_MYST``: roles, directives, targets,
  labels such as ``fig-03-grid``, glue keys, the book's own TeX macros);
- nbconvert's HTML, a proxy for Colab and VS Code, shows none either, and renders the
  Markdown: headings, and every ``$``/``$$`` delimiter intact for MathJax;
- JupyterLab, started headless on a free port without a token, opens chapter 3 in headless
  Chromium and shows its glued numbers, no raw token, and MathJax typesets every formula
  without an error.
"""

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from helpers import ROOT, chromium, load_tool, raw_myst, unavailable

handout = load_tool("build_handout")
resolve = load_tool("resolve_myst")
course = load_tool("build_course")
CHAPTER = "03_single_head_theorem"


@pytest.fixture(scope="module")
def book():
    try:
        return resolve.book_build(ROOT)
    except resolve.BookMissing as exc:
        unavailable(str(exc))


@pytest.fixture(scope="module")
def handouts(book, tmp_path_factory):
    """Every chapter as the handout has it (the zip itself: tests/test_handout.py)."""
    out = tmp_path_factory.mktemp("notebooks")
    for path in sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb")):
        nbformat.write(handout.student_notebook(path, book), out / path.name)
    return sorted(out.glob("*.ipynb"))


@pytest.fixture(scope="module")
def sheets(book, tmp_path_factory):
    """Every sheet: the student's notebook and the lecturer's source (marking schemes)."""
    out = tmp_path_factory.mktemp("course") / "course"
    course.build(out=out, pdf=False)
    return sorted((out / "student").glob("*.ipynb")) + sorted((out / "source").glob("*.ipynb"))


def _markdown(path):
    return [c.source for c in nbformat.read(path, as_version=4).cells
            if c.cell_type == "markdown"]


@pytest.mark.slow
def test_every_sheet_is_plain_jupyter(sheets):
    """Exercises, chapters and equations by number, as the book shows them; no raw MyST."""
    names = {p.parent.name for p in sheets}
    assert names == {"student", "source"} and len(sheets) >= 16
    for path in sheets:
        text = "\n\n".join(_markdown(path))
        assert not raw_myst(text), (path, raw_myst(text))
        assert re.search(r"Chapters?: chapter \d \(", text), path
    session6 = "\n".join(_markdown(next(p for p in sheets if p.parent.name == "source"
                                        and p.stem == "session-06")))
    assert re.search(r"\*\*Exercise 6\.\d\*\* \(marked by hand", session6)
    assert re.search(r"from \(6\.\d\)", session6)   # ex-06-predict names its equations
    # the marking scheme's s = e^{1/4} − 1, glued by chapter 6, as the book prints it
    assert "0.284" in session6.split("Marking scheme", 1)[1]


def _html_markdown_cells(path):
    """The text of each Markdown cell in nbconvert's HTML of ``path``, and the headings."""
    from bs4 import BeautifulSoup
    from nbconvert import HTMLExporter

    html, _ = HTMLExporter().from_filename(str(path))
    soup = BeautifulSoup(html, "html.parser")
    cells = soup.select(".jp-MarkdownCell .jp-RenderedMarkdown")
    return [c.get_text() for c in cells], [h.get_text() for h in soup.select(
        ".jp-RenderedMarkdown h1, .jp-RenderedMarkdown h2")]


@pytest.mark.slow
def test_nbconvert_html_shows_no_myst_and_renders_the_markdown(handouts, sheets):
    for path in handouts + sheets:
        sources = [s for s in _markdown(path) if s.strip()]
        texts, headings = _html_markdown_cells(path)
        assert len(texts) == len(sources), path
        rendered = "\n".join(texts)
        assert not raw_myst(rendered), (path, raw_myst(rendered))
        assert headings and not any(h.lstrip().startswith("#") for h in headings), path
        for source, text in zip(sources, texts):   # maths left whole for MathJax
            assert text.count("$$") == source.count("$$"), (path, source[:200])
            assert text.count("$") == source.count("$"), (path, source[:200])
    chapter3 = next(p for p in handouts if p.stem == CHAPTER)
    texts, headings = _html_markdown_cells(chapter3)
    assert headings[0].startswith("3. The single-head theorem")
    assert "\\tag{3.1}" in "\n".join(texts) and "Hayase et al. (2025)" in "\n".join(texts)


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _glued_numbers(book, stem):
    """The texts of chapter ``stem``'s glued values that read as decimal numbers."""
    chapter = resolve.Chapter(book, f"chapters/{stem}", resolve._parser(str(ROOT)))
    source = nbformat.read(ROOT / "chapters" / f"{stem}.ipynb", as_version=4)
    roles = re.findall(r"\{glue:text\}`[^`]+`",
                       "\n".join(c.source for c in source.cells if c.cell_type == "markdown"))
    return [text for text in map(chapter.inline, roles) if re.fullmatch(r"-?\d+\.\d+", text)]


@pytest.fixture
def jupyterlab(tmp_path):
    """JupyterLab on a free local port, no token, its settings and workspaces in tmp_path
    (every cell rendered, not only those in view); yields the base URL."""
    if not (Path(sys.executable).parent / "jupyter-lab").exists():
        unavailable("JupyterLab is not installed (make setup installs the pinned one)")
    settings = tmp_path / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    env = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
               JUPYTER_CONFIG_DIR=str(tmp_path / "config"))
    port = _free_port()
    command = [str(Path(sys.executable).parent / "jupyter-lab"), "--no-browser",
               "--ip=127.0.0.1", f"--port={port}", "--ServerApp.port_retries=0",
               "--IdentityProvider.token=", "--ServerApp.password=",
               f"--ServerApp.root_dir={tmp_path}", "--LabApp.extension_manager=readonly",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
               "--LabApp.news_url=None"] + (["--allow-root"] if os.geteuid() == 0 else [])
    log = (tmp_path / "jupyterlab.log").open("w")
    server = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=log,
                              stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/lab", timeout=2)
                break
            except OSError:
                assert server.poll() is None, (tmp_path / "jupyterlab.log").read_text()
                time.sleep(0.5)
        else:
            pytest.fail("JupyterLab did not answer within 60 s")
        yield url, tmp_path
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


RENDERED = """
const md = document.querySelectorAll('.jp-MarkdownCell .jp-RenderedMarkdown');
return {markdown: md.length,
        typeset: document.querySelectorAll('.jp-RenderedMarkdown mjx-container').length,
        errors: Array.from(document.querySelectorAll('.jp-RenderedMarkdown mjx-merror'))
                     .map(e => e.getAttribute('data-mjx-error')),
        pending: Array.from(md).filter(e => /\\$/.test(e.textContent)).length,
        text: Array.from(md).map(e => e.textContent).join('\\n')};
"""


@pytest.mark.slow
@pytest.mark.browser
def test_jupyterlab_shows_a_handout_notebook_with_its_numbers(book, jupyterlab):
    url, folder = jupyterlab
    path = ROOT / "chapters" / f"{CHAPTER}.ipynb"
    nb = handout.student_notebook(path, book)
    nbformat.write(nb, folder / path.name)
    cells = sum(1 for c in nb.cells if c.cell_type == "markdown")
    numbers = _glued_numbers(book, CHAPTER)
    assert numbers                                  # chapter 3 glues decimal numbers
    browser = chromium()
    try:
        browser.get(f"{url}/lab/tree/{path.name}")
        state, last = None, None
        for _ in range(90):                         # rendered when nothing changes any more
            state = browser.execute_script(RENDERED)
            if state["markdown"] == cells and state["typeset"] and state == last:
                break
            last = state
            time.sleep(2)
    finally:
        browser.quit()
    assert state["markdown"] == cells, state["markdown"]
    assert state["typeset"] > 100 and state["errors"] == [] and state["pending"] == 0
    assert "3. The single-head theorem" in state["text"]
    assert not raw_myst(state["text"]), raw_myst(state["text"])
    assert any(number in state["text"] for number in numbers), numbers[:5]
