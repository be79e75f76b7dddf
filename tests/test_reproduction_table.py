"""The reference pages cannot silently rot.

- Appendix A2 (``chapters/A2_reproduction.md``) lists every named figure and table of the book
  (names ``fig-*`` and ``tbl-*``), each with a
  command that regenerates it; the commands' parameters are valid for their chapter and are the
  chapter's defaults (so the command regenerates the figure as the book shows it), and the
  numbers A2 quotes for the limiting law are the library's; a chapter's rows follow the order
  of its figures.
- The course guide's table of ``--quick`` sizes is the one declared in
  ``attnspec.book.chapters``.
- The API page (``chapters/A3_api.md``) documents every public name of ``attnspec``.

All checks read files only (no notebook is executed), so they run in well under a second.
"""

import re
import shlex
from pathlib import Path

import jupytext
import nbformat
import pytest

import attnspec
from attnspec.book.chapters import CHAPTERS, parse_assignments
from helpers import ROOT, parameter_defaults, read_nb

A2 = ROOT / "chapters" / "A2_reproduction.md"
GUIDE = ROOT / "chapters" / "course_guide.md"
API = ROOT / "chapters" / "A3_api.md"

NUMREF = re.compile(r"\{numref\}`(?:[^`<]*<)?([\w:.-]+)>?`")
RERUN = re.compile(r'make rerun CHAPTER=(\d\d)(?: PARAMS="([^"]*)")?')


def _pages():
    """Every page that can hold a figure: the chapters (notebooks and MyST pages) and intro."""
    pages = sorted((ROOT / "chapters").glob("*.ipynb")) + sorted((ROOT / "chapters").glob("*.md"))
    return [p for p in pages if p not in (A2, GUIDE, API)] + [ROOT / "intro.md"]


def _figure_names(path):
    """Names of the figures and tables of one page: code cells' ``mystnb.figure.name``, and the
    ``:name: fig-...`` / ``:name: tbl-...`` options of ``{figure}``, ``{glue:figure}`` and
    ``{table}`` directives, written in Markdown or displayed by a code cell."""
    nb = (nbformat.read(path, as_version=4) if path.suffix == ".ipynb"
          else jupytext.read(path, fmt="md:myst"))
    names = []
    for cell in nb.cells:
        name = cell.metadata.get("mystnb", {}).get("figure", {}).get("name")
        if name:
            names.append(name)
        names += re.findall(r":name:\s*((?:fig|tbl)-[\w-]+)", cell.source)
    return names


FIGURES = {name: path for path in _pages() if path.exists() for name in _figure_names(path)}


def _table_rows(text):
    return [line for line in text.splitlines() if line.startswith("|")]


def _a2_rows():
    rows = []
    for line in _table_rows(A2.read_text()):
        names = NUMREF.findall(line)
        if names:
            rows.append((names, line))
    return rows


def _defaults(stem):
    return parameter_defaults(read_nb(ROOT / "chapters" / f"{stem}.ipynb"))


def test_every_figure_of_the_book_is_in_the_reproduction_table():
    """A figure or table added to a page must get a row in A2 (and A2 names no missing one)."""
    listed = {name for names, _ in _a2_rows() for name in names}
    missing = sorted(set(FIGURES) - listed)
    assert not missing, f"figures without a row in {A2.name}: {missing}"
    unknown = sorted(listed - set(FIGURES))
    assert not unknown, f"{A2.name} lists figures that no page has: {unknown}"


def test_every_label_of_the_table_is_defined_in_the_legend():
    """The provenance labels of the rows (*paper*, *derived, heuristic*, ...) are the legend's."""
    text = A2.read_text()
    legend = set(re.findall(r"^- \*([a-z]+)\*:", text, re.M))
    assert {"paper", "derived", "reconstructed", "measured"} <= legend, legend
    used = {label for _, row in _a2_rows()
            for labels in re.findall(r"(?<![*\w])\*([a-z][a-z, ]*)\*(?!\*)", row.split("|")[2])
            for label in labels.split(", ")}
    assert used and used <= legend | {"heuristic"}, f"labels not in the legend: {used - legend}"


def test_rows_follow_the_order_of_the_figures():
    """Within a chapter, A2's rows come in the order of the chapter's figures (Fig. n.1, n.2,
    ...), so the table reads like the chapter."""
    for page in _pages():
        if not page.exists():
            continue
        order = _figure_names(page)
        listed = [name for names, _ in _a2_rows() for name in names if name in order]
        assert listed == sorted(listed, key=order.index), (
            f"{A2.name} lists the figures of {page.name} as {listed}; the page has {order}")


@pytest.mark.parametrize("names, row", [pytest.param(names, row, id=names[0])
                                         for names, row in (_a2_rows() if A2.exists() else [])])
def test_each_row_regenerates_its_figures_at_the_chapter_defaults(names, row):
    """The row's command reruns the chapter that holds its figures, with valid default values."""
    pages = {FIGURES[name] for name in names if name in FIGURES}
    commands = RERUN.findall(row)
    if pages == {ROOT / "intro.md"}:
        assert "make book" in row
        return
    assert len(pages) == 1 and len(commands) == 1, row
    (page,), ((number, params),) = pages, commands
    assert page.suffix == ".ipynb" and page.stem.startswith(number + "_"), row
    values = parse_assignments(page.stem, shlex.split(params or ""))
    defaults = _defaults(page.stem)
    assert {k: defaults[k] for k in values} == values, (
        f"{row}\nthe command's values differ from the chapter's defaults {defaults}")


def test_quoted_edges_are_the_librarys():
    """The right edges z₊² that A2 quotes (from MATH.md §3) are what AttentionLaw computes."""
    quoted = re.findall(r"^\|\s*(\d+(?:\.\d+)?)\s*\|\s*(\d+(?:\.\d+)?)\s*\|\s*"
                        r"(\d+\.\d+)\s*\|\s*(\d+\.\d+)\s*\|\s*(\d+\.\d+)\s*\|",
                        A2.read_text(), re.M)
    assert len(quoted) >= 4, "A2's table of edges (c | β | z₊² | 4s | ratio) was not found"

    def as_quoted(value, text):
        digits = len(text.replace(".", "").lstrip("0"))
        return float(f"{value:.{digits}g}")

    for c, beta, edge, mp_edge, ratio in quoted:
        law = attnspec.AttentionLaw(float(beta), float(c))
        computed = law.support()[1]
        assert as_quoted(computed, edge) == pytest.approx(float(edge), rel=1e-9), (c, beta)
        assert as_quoted(4 * law.s, mp_edge) == pytest.approx(float(mp_edge), rel=1e-9), (c, beta)
        assert as_quoted(computed / (4 * law.s), ratio) == pytest.approx(float(ratio), rel=1e-9)


def _quick_text(quick):
    def text(value):
        if isinstance(value, (list, tuple)):
            return "[" + ",".join(str(v) for v in value) + "]"
        return str(value)
    return " ".join(f"{k}={text(v)}" for k, v in quick.items())


def test_course_guide_quick_sizes_match_the_declarations():
    """Each chapter's row in the course guide shows exactly its declared --quick sizes."""
    rows = {line.split("|")[1].strip()[:2]: line for line in _table_rows(GUIDE.read_text())
            if re.match(r"\|\s*\d\d ", line)}
    for stem, spec in CHAPTERS.items():
        number = stem[:2]
        assert number in rows, f"{GUIDE.name} has no --quick row for chapter {stem}"
        assert f"`{_quick_text(spec.quick)}`" in rows[number], (stem, rows[number])


def test_api_page_documents_every_public_name():
    """Every name of attnspec.__all__ has an autodoc entry in A3 (directly or via :members:)."""
    text = API.read_text()
    documented = {target.rsplit(".", 1)[-1]
                  for target in re.findall(r"\.\. auto(?:function|class|data|exception)::\s*(\S+)",
                                           text)}
    with_members = set(re.findall(r"\.\. automodule::\s*(\S+)\n\s+:members:", text))
    missing = []
    for name in attnspec.__all__:
        module = getattr(attnspec, name).__module__ if callable(getattr(attnspec, name)) else None
        if name not in documented and (module is None or module not in with_members):
            missing.append(name)
    assert not missing, f"public names missing from {API.name}: {missing}"


@pytest.mark.book
def test_api_page_builds_strictly(tmp_path):
    """A3 (with A4, which it links to), in the book's configuration, builds without a
    warning (A4's links to the chapters left out here aside).

    autodoc renders every docstring of the library here; a docstring that is not valid
    reStructuredText (``|x|`` read as a substitution, a malformed table) fails this test with
    the module and function named, long before the whole book is built.
    """
    import subprocess
    import sys

    for name in ("_config.yml", "references.bib", "pyproject.toml", "_vendor", "_ext", "_assets",
                 "chapters"):
        (tmp_path / name).symlink_to(ROOT / name)
    # A3 and the specification its docstrings link to ("A4 §n" becomes a link to A4)
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: chapters/A3_api\nchapters:\n"
                                       "  - file: chapters/A4_specification\n")
    jb = Path(sys.executable).with_name("jupyter-book")
    run = subprocess.run([str(jb), "build", str(tmp_path), "--all", "-n", "--keep-going"],
                         capture_output=True, text=True)   # every warning is read below
    # A4 itself links to chapters this two-page book leaves out; the full strict build
    # (make book) checks those links
    problems = [line for line in (run.stdout + run.stderr).splitlines()
                if ("WARNING" in line or "ERROR" in line)
                and not ("A4_specification.md" in line and "unknown document" in line)]
    assert run.returncode == 0 and not problems, "\n".join(problems) or run.stderr[-3000:]
