"""The student edition (tools/build_student.py): solutions removed from pages and downloads.

Three levels, cheapest first:

- the removal rules on small MyST texts and notebooks (prose solutions in both fence styles;
  nested or gated solutions, which the book does not use, are refused);
- the real chapters: every page of the book strips cleanly and keeps all its exercises;
- (``book``) a real student build of a two-page book that uses the book's own ``_config.yml`` and
  ``_vendor``: after a main build, the student build reuses the executed outputs, and no solution
  text is left in the HTML or in the downloadable notebook; the teacher's guide is left out.
"""

import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from helpers import ROOT, load_tool


student = load_tool("build_student")

EXERCISE = "```{exercise}\n:label: ex-a\n\nCompute $x^2$.\n```\n"
PROSE_SOLUTION = "```{solution} ex-a\n:class: dropdown\n\nSECRET-PROSE: four.\n```\n"


def md(text):
    return nbformat.v4.new_markdown_cell(textwrap.dedent(text))


def code(text, tags=()):
    cell = nbformat.v4.new_code_cell(text)
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


def notebook(*cells):
    nb = nbformat.v4.new_notebook(cells=list(cells))
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    return nb


def small_notebook():
    """An exercise with a prose solution between kept code cells."""
    return notebook(
        md("# Title\n"),
        code("x = 2\nprint(x)"),
        md(EXERCISE + "\n" + PROSE_SOLUTION + "\nText after the solution.\n"),
        md(EXERCISE.replace("ex-a", "ex-b")),
        md(PROSE_SOLUTION.replace("ex-a", "ex-b")),   # a cell holding only a solution
        code("print('kept')"),
    )


def test_prose_solution_is_removed_and_exercise_kept():
    """A solution directive goes with its body; the exercise and the text after it stay."""
    new, removed = student.strip_text(EXERCISE + "\n" + PROSE_SOLUTION + "\nAfter.\n")
    assert removed == 1
    assert "SECRET" not in new and "{solution}" not in new
    assert "{exercise}" in new and "After." in new


def test_colon_fence_solution_is_removed():
    """The ::: form of the directive (colon_fence) is found by the same parser."""
    text = ":::{solution} ex-a\n:class: dropdown\nSECRET\n:::\n\nKept.\n"
    new, removed = student.strip_text(text)
    assert removed == 1 and "SECRET" not in new and "Kept." in new


def test_code_blocks_mentioning_solutions_are_not_directives():
    """A plain code block that merely shows the syntax is left alone."""
    text = "````markdown\n```{solution} ex-a\nexample\n```\n````\n"
    new, removed = student.strip_text(text)
    assert removed == 0 and new == text


def test_notebook_loses_its_solutions_and_keeps_its_code():
    nb = small_notebook()
    out = student.strip_notebook(nb)
    sources = "\n".join(c.source for c in out.cells)
    assert "SECRET" not in sources and "{exercise}" in sources
    assert "print('kept')" in sources and "Text after the solution." in sources
    # the solution-only cell is dropped, every other cell kept
    assert [c.cell_type for c in out.cells] == ["markdown", "code", "markdown", "markdown",
                                                "code"]
    assert student.count_solutions(nb) == 2 and student.count_solutions(out) == 0


@pytest.mark.parametrize("text", [
    "````{admonition} Box\n```{solution} ex-a\nSECRET\n```\n````\n",
    "```{solution-start} ex-a\n```\nSECRET\n```{solution-end}\n```\n",
], ids=["nested", "gated"])
def test_solutions_it_cannot_remove_are_refused(text):
    """A nested or gated solution (a form the book does not use) is an error, not a leak."""
    with pytest.raises(student.StudentBuildError, match="a solution is left at line"):
        student.strip_text(text, "page.md")


def test_teacher_pages_are_left_out(tmp_path):
    """The course guide and its table-of-contents entry are removed from the student sources."""
    (tmp_path / "chapters").mkdir()
    (tmp_path / "_toc.yml").write_bytes((ROOT / "_toc.yml").read_bytes())
    for page in student.TEACHER_ONLY:
        assert (ROOT / f"{page}.md").is_file()
        (tmp_path / f"{page}.md").write_text("# For teachers\n")
    student.drop_teacher_pages(tmp_path)
    toc = (tmp_path / "_toc.yml").read_text()
    for page in student.TEACHER_ONLY:
        assert page not in toc and not (tmp_path / f"{page}.md").exists()
    assert "chapters/01_attention_as_a_random_matrix" in toc


def _pages():
    return sorted((ROOT / "chapters").glob("*.ipynb")) + sorted((ROOT / "chapters").glob("*.md"))


@pytest.mark.parametrize("path", _pages(), ids=lambda p: p.name)
def test_every_chapter_strips_cleanly(path):
    """Each page of the book loses its solutions and keeps every exercise."""
    if path.suffix == ".ipynb":
        nb = nbformat.read(path, as_version=4)
        out = student.strip_notebook(nb, path.name)
        before = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        after = "\n".join(c.source for c in out.cells if c.cell_type == "markdown")
    else:
        before = path.read_text()
        after, _ = student.strip_text(before, path.name)
    assert after.count("{exercise}") == before.count("{exercise}")
    assert "{solution" not in after


FIXTURE_INTRO = """\
---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# A tiny book

```{code-cell} ipython3
print("intro-output")
```

The exercise {ref}`ex-a` is on the next page.

```{exercise}
:label: ex-intro

Say hello.
```

```{solution} ex-intro
:class: dropdown

SECRET-INTRO hello.
```
"""


@pytest.mark.book
def test_student_build_of_a_small_book(tmp_path):
    """Main build, then student build: outputs reused, no solution in the pages or downloads."""
    book = tmp_path / "book"
    (book / "chapters").mkdir(parents=True)
    for name in ("_config.yml", "references.bib", "requirements.txt", "pyproject.toml"):
        (book / name).write_bytes((ROOT / name).read_bytes())
    for folder in ("_vendor", "_ext", "_assets"):   # static files and the site extension
        (book / folder).symlink_to(ROOT / folder)
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n"
                                   "  - file: chapters/t1\n")
    (book / "intro.md").write_text(FIXTURE_INTRO)
    nbformat.write(small_notebook(), book / "chapters" / "t1.ipynb")

    jb = Path(sys.executable).with_name("jupyter-book")
    main = subprocess.run([str(jb), "build", str(book), "--all", "-W", "-n", "--keep-going"],
                          capture_output=True, text=True)
    assert main.returncode == 0, main.stdout[-3000:] + main.stderr[-3000:]
    build_book = load_tool("build_book")
    (book / build_book.CACHE_STAMP).write_text(build_book.inputs_hash(book))
    full = (book / "_build" / "html" / "chapters" / "t1.html").read_text()
    assert "SECRET-PROSE" in full and "Launch" in full

    run = subprocess.run([sys.executable, str(ROOT / "tools" / "build_student.py"),
                          "--book-root", str(book)], capture_output=True, text=True)
    log = run.stdout + run.stderr
    assert run.returncode == 0, log[-5000:]
    html = book / "_build" / "student" / "html"
    assert f"The student edition is at {html / 'index.html'}" in log
    assert "chapters/t1.ipynb: 2 solution(s) removed  outputs: reused from the main build" in log
    assert "intro.md: 1 solution(s) removed" in log
    assert "t1.ipynb: Executing notebook" not in log          # outputs of the main build

    page = (html / "chapters" / "t1.html").read_text()
    assert page.count('class="exercise') == 2 and "kept" in page and "(student edition)" in page
    assert "SECRET" not in page
    assert "Launch" not in page                       # Binder/Colab would open the solutions
    intro = (html / "intro.html").read_text()
    assert "intro-output" in intro and "SECRET" not in intro
    assert "SECRET" not in (html / "_sources" / "intro.md").read_text()
    download = nbformat.read(html / "_sources" / "chapters" / "t1.ipynb", as_version=4)
    text = "\n".join(c.source for c in download.cells)
    assert "SECRET" not in text and "{exercise}" in text
