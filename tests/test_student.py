"""The student edition (tools/build_student.py): solutions removed from pages and downloads.

Three levels, cheapest first:

- the removal rules on small MyST texts and notebooks (prose solutions, gated solutions with code
  cells, cells tagged ``solution``, malformed gates);
- the real chapters: every page of the book strips cleanly and keeps all its exercises;
- (``book``) a real student build of a two-page book that uses the book's own ``_config.yml`` and
  ``_vendor``: after a main build, the student build reuses the executed outputs, and no solution
  text is left in the HTML or in the downloadable notebook.
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


def gated_notebook():
    """An exercise with a prose solution, one with a gated code solution, one tagged cell."""
    return notebook(
        md("# Title\n"),
        code("x = 2\nprint(x)"),
        md(EXERCISE + "\n" + PROSE_SOLUTION + "\nText after the solution.\n"),
        md("```{exercise-start}\n:label: ex-b\n```\n\nWrite code.\n\n```{exercise-end}\n```\n\n"
           "```{solution-start} ex-b\n:class: dropdown\n```\n\nSECRET-GATED explanation.\n"),
        code("secret_gated = 12345\nprint(secret_gated)"),
        md("```{solution-end}\n```\n\n## After\n\nThe end.\n"),
        code("secret_tagged = 678\nprint(secret_tagged)", tags=["solution"]),
        code("print('kept')"),
    )


def test_prose_solution_is_removed_and_exercise_kept():
    """A solution directive goes with its body; the exercise and the text after it stay."""
    new, in_gate, removed = student.strip_text(EXERCISE + "\n" + PROSE_SOLUTION + "\nAfter.\n")
    assert (in_gate, removed) == (False, 1)
    assert "SECRET" not in new and "{solution}" not in new
    assert "{exercise}" in new and "After." in new


def test_colon_fence_solution_is_removed():
    """The ::: form of the directive (colon_fence) is found by the same parser."""
    text = ":::{solution} ex-a\n:class: dropdown\nSECRET\n:::\n\nKept.\n"
    new, _, removed = student.strip_text(text)
    assert removed == 1 and "SECRET" not in new and "Kept." in new


def test_code_blocks_mentioning_solutions_are_not_directives():
    """A plain code block that merely shows the syntax is left alone."""
    text = "````markdown\n```{solution} ex-a\nexample\n```\n````\n"
    new, _, removed = student.strip_text(text)
    assert removed == 0 and new == text


def test_gated_solution_removes_cells_between_markers():
    """Cells inside solution-start/solution-end go, including code; the rest is unchanged."""
    nb = gated_notebook()
    plan = student.plan_notebook(nb)
    out = plan.apply(nb)
    sources = "\n".join(c.source for c in out.cells)
    assert plan.solutions == 3
    assert "SECRET" not in sources and "secret_" not in sources
    assert "{exercise-start}" in sources and "{exercise-end}" in sources
    assert "## After" in sources and "print('kept')" in sources and "x = 2" in sources
    assert [c.cell_type for c in out.cells] == ["markdown", "code", "markdown", "markdown",
                                                "markdown", "code"]
    assert set(plan.removed_sources) == {"secret_gated = 12345\nprint(secret_gated)",
                                         "secret_tagged = 678\nprint(secret_tagged)"}


def test_plan_applies_to_the_executed_copy_too():
    """The same plan strips an executed copy (same cells, with outputs) identically."""
    nb = gated_notebook()
    executed = nbformat.from_dict(nb)
    for cell in executed.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="out\n")]
    plan = student.plan_notebook(nb)
    assert [c.source for c in plan.apply(executed).cells] == [c.source
                                                             for c in plan.apply(nb).cells]


@pytest.mark.parametrize("cells, match", [
    ([md("```{solution-start} ex\n```\n")], "solution-start without solution-end"),
    ([md("```{solution-end}\n```\n")], "solution-end without solution-start"),
    ([md("```{solution-start} ex\n```\n\n```{solution-start} ex\n```\n")], "nested"),
], ids=["unclosed", "unopened", "nested"])
def test_malformed_gates_are_refused(cells, match):
    """A malformed gate is an error, never a silent leak."""
    with pytest.raises(student.StudentBuildError, match=match):
        student.plan_notebook(notebook(*cells))


def test_nested_solution_is_detected():
    """A solution nested inside another block cannot be removed safely: it is reported."""
    text = "````{admonition} Box\n```{solution} ex-a\nSECRET\n```\n````\n"
    new, _, removed = student.strip_text(text)
    assert removed == 0
    with pytest.raises(student.StudentBuildError, match="a solution is left at line 2"):
        student.check_clean_text(new, "page.md")


def _pages():
    return sorted((ROOT / "chapters").glob("*.ipynb")) + sorted((ROOT / "chapters").glob("*.md"))


@pytest.mark.parametrize("path", _pages(), ids=lambda p: p.name)
def test_every_chapter_strips_cleanly(path):
    """Each page of the book loses its solutions and keeps every exercise."""
    if path.suffix == ".ipynb":
        nb = nbformat.read(path, as_version=4)
        plan = student.plan_notebook(nb, path.name)
        before = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        after = "\n".join(c.source for c in plan.apply(nb).cells if c.cell_type == "markdown")
        solutions = plan.solutions
    else:
        before = path.read_text()
        after, in_gate, solutions = student.strip_text(before, where=path.name)
        assert not in_gate
    student.check_clean_text(after, path.name)
    for kind in ("{exercise}", "{exercise-start}"):
        assert after.count(kind) == before.count(kind)
    if "{solution" in before:
        assert solutions > 0


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
    for name in ("_config.yml", "references.bib", "requirements.txt"):
        (book / name).write_bytes((ROOT / name).read_bytes())
    (book / "_vendor").symlink_to(ROOT / "_vendor")
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n"
                                   "  - file: chapters/t1\n")
    (book / "intro.md").write_text(FIXTURE_INTRO)
    nbformat.write(gated_notebook(), book / "chapters" / "t1.ipynb")

    jb = Path(sys.executable).with_name("jupyter-book")
    main = subprocess.run([str(jb), "build", str(book), "--all", "-W", "-n", "--keep-going"],
                          capture_output=True, text=True)
    assert main.returncode == 0, main.stdout[-3000:] + main.stderr[-3000:]
    build_book = load_tool("build_book")
    (book / build_book.CACHE_STAMP).write_text(build_book.inputs_hash(book))
    full = (book / "_build" / "html" / "chapters" / "t1.html").read_text()
    assert "SECRET-GATED" in full and "Launch" in full

    run = subprocess.run([sys.executable, str(ROOT / "tools" / "build_student.py"),
                          "--book-root", str(book)], capture_output=True, text=True)
    log = run.stdout + run.stderr
    assert run.returncode == 0, log[-5000:]
    html = book / "_build" / "student" / "html"
    assert f"The student edition is at {html / 'index.html'}" in log
    assert "chapters/t1.ipynb: 3 solution(s) removed  outputs: reused from the main build" in log
    assert "intro.md: 1 solution(s) removed  outputs: reused from the main build" in log
    assert "Using cached notebook" in log and "Executing notebook" not in log

    page = (html / "chapters" / "t1.html").read_text()
    assert page.count('class="exercise') == 2 and "kept" in page and "(student edition)" in page
    for secret in ("SECRET", "secret_gated", "secret_tagged", "12345", "678"):
        assert secret not in page
    assert "Launch" not in page                       # Binder/Colab would open the solutions
    intro = (html / "intro.html").read_text()
    assert "intro-output" in intro and "SECRET" not in intro
    assert "SECRET" not in (html / "_sources" / "intro.md").read_text()
    download = nbformat.read(html / "_sources" / "chapters" / "t1.ipynb", as_version=4)
    text = "\n".join(c.source for c in download.cells)
    assert "SECRET" not in text and "secret_" not in text and "{exercise}" in text
