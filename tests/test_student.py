"""The student edition (tools/build_student.py): solutions removed from pages and downloads.

Three levels, cheapest first:

- the removal rules on small MyST texts and notebooks (prose solutions in both fence styles,
  gated solutions with every cell between their markers, cells tagged ``solution``; nested
  solutions and unmatched markers are refused), the check that finds a solution left in any
  cell, and the reuse of the main build's outputs only for chapters not edited since;
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


def test_nested_solution_is_refused():
    """A solution nested in another block cannot be removed alone: an error, not a leak."""
    text = "````{admonition} Box\n```{solution} ex-a\nSECRET\n```\n````\n"
    with pytest.raises(student.StudentBuildError, match="a solution is left at line"):
        student.strip_text(text, "page.md")


GATE_START = "```{solution-start} ex-a\n:class: dropdown\n```\n"
GATE_END = "```{solution-end}\n```\n"


@pytest.mark.parametrize("fence", ["```", ":::"])
def test_gated_solution_in_a_text_is_removed_with_its_body(fence):
    """Both markers go, with everything between them (prose and code cells)."""
    text = (EXERCISE + "\nBefore.\n\n" + GATE_START.replace("```", fence)
            + "\nSECRET-GATED prose.\n\n```{code-cell} ipython3\nprint('SECRET-CODE')\n```\n\n"
            + GATE_END.replace("```", fence) + "\nAfter.\n")
    new, removed = student.strip_text(text, "page.md")
    assert removed == 1 and "SECRET" not in new and "{solution" not in new
    assert "{exercise}" in new and "Before." in new and "After." in new


@pytest.mark.parametrize("options", [":tags: [solution]\n",
                                     "---\ntags: [hide-input, solution]\n---\n"],
                         ids=["option", "yaml"])
def test_code_cell_tagged_solution_in_a_text_is_removed(options):
    text = ("```{code-cell} ipython3\nprint('kept')\n```\n\n"
            "```{code-cell} ipython3\n" + options + "print('SECRET')\n```\n")
    new, removed = student.strip_text(text, "page.md")
    assert removed == 1 and "SECRET" not in new and "print('kept')" in new
    assert student.leftover_solutions(text, "page.md") and not student.leftover_solutions(new, "p")


def gated_notebook():
    """A gated solution over five cells (two of them code), and two cells tagged solution."""
    return notebook(
        md(EXERCISE + "\nText before the gate.\n\n" + GATE_START),
        code("print('SECRET-CODE-1')"),
        md("SECRET-GATED prose between the markers.\n"),
        code("print('SECRET-CODE-2')", tags=["hide-input"]),
        md("More SECRET.\n\n" + GATE_END + "\nText after the gate.\n"),
        code("print('SECRET-TAGGED')", tags=["solution"]),
        md("Kept prose.\n"),
        code("print('kept')"),
    )


def test_gated_solution_in_a_notebook_takes_every_cell_between_its_markers():
    nb = gated_notebook()
    tagged_md = md("SECRET-TAGGED-MD\n")
    tagged_md.metadata["tags"] = ["solution"]
    nb.cells.insert(6, tagged_md)
    out = student.strip_notebook(nb, "t.ipynb")
    sources = "\n".join(c.source for c in out.cells)
    assert "SECRET" not in sources and "{solution" not in sources
    assert "Text before the gate." in sources and "Text after the gate." in sources
    assert "Kept prose." in sources and "print('kept')" in sources
    assert [c.cell_type for c in out.cells] == ["markdown", "markdown", "markdown", "code"]
    assert student.count_solutions(nb) == 3 and student.count_solutions(out) == 0
    assert student.leftover_solutions(out, "t.ipynb") == []


def test_leftover_solutions_finds_every_form_in_any_cell():
    """The final check reads code cells too: each form of solution is reported."""
    nb = gated_notebook()
    nb.cells.append(code("```{solution} ex-a\nSECRET\n```"))   # a directive in a code cell
    nb.cells.append(md(PROSE_SOLUTION))
    found = "\n".join(student.leftover_solutions(nb, "t.ipynb"))
    assert "t.ipynb cell 0 (markdown) still has a solution directive" in found   # the gate
    assert "cell 4 (markdown) still has a solution directive" in found           # its end
    assert "cell 5 (code) is tagged 'solution'" in found
    assert "cell 8 (code) still has a solution directive" in found
    assert "cell 9 (markdown) still has a solution directive" in found


@pytest.mark.parametrize("text,message", [
    (GATE_START + "\nSECRET\n", "has no {solution-end}"),
    ("Text.\n\n" + GATE_END, "{solution-end} without a {solution-start}"),
    (GATE_START + GATE_START + GATE_END, "inside another gated solution"),
], ids=["unclosed", "end-only", "nested-gate"])
def test_unmatched_gate_markers_are_refused(text, message):
    with pytest.raises(student.StudentBuildError, match=message.replace("{", r"\{")):
        student.strip_text(text, "page.md")
    with pytest.raises(student.StudentBuildError, match=message.replace("{", r"\{")):
        student.strip_notebook(notebook(md(text), code("x = 1")), "t.ipynb")


def _served(tmp_path, nb, page='<div class="cell">kept</div>'):
    html = tmp_path / "html"
    (html / "_sources" / "chapters").mkdir(parents=True)
    nbformat.write(nb, html / "_sources" / "chapters" / "t1.ipynb")
    (html / "chapters").mkdir()
    (html / "chapters" / "t1.html").write_text(page)
    return html


def test_verify_fails_loudly_on_a_solution_left_in_a_download_or_a_page(tmp_path):
    clean = student.strip_notebook(gated_notebook())
    student.verify(_served(tmp_path / "clean", clean))          # nothing to report
    with pytest.raises(student.StudentBuildError, match=r"cell 5 \(code\) is tagged"):
        student.verify(_served(tmp_path / "tagged", gated_notebook()))
    page = '<div class="cell tag_solution docutils container">SECRET</div>'
    with pytest.raises(student.StudentBuildError, match="chapters/t1.html shows a solution"):
        student.verify(_served(tmp_path / "page", clean, page))


def _main_build(root, nb):
    """A book at ``root`` whose main build is current and holds ``nb`` executed."""
    build_book = load_tool("build_book")
    (root / "chapters").mkdir(parents=True)
    (root / "requirements.txt").write_text("numpy\n")
    nbformat.write(nb, root / "chapters" / "t1.ipynb")
    executed = nbformat.from_dict(nb)
    executed.cells[1].outputs = [nbformat.v4.new_output("stream", text="OUTPUT-OF-MAIN\n")]
    (root / "_build" / "jupyter_execute" / "chapters").mkdir(parents=True)
    nbformat.write(executed, root / "_build" / "jupyter_execute" / "chapters" / "t1.ipynb")
    (root / build_book.CACHE_STAMP).write_text(build_book.inputs_hash(root))


@pytest.mark.parametrize("edit", [None, "markdown", "code"])
def test_outputs_are_reused_only_for_a_chapter_not_edited_since_the_main_build(
        tmp_path, capsys, edit):
    """An edited chapter (prose or code) is taken from its source and executed again."""
    root, src = tmp_path / "book", tmp_path / "student-src"
    _main_build(root, small_notebook())
    if edit:
        nb = nbformat.read(root / "chapters" / "t1.ipynb", as_version=4)
        cell = nb.cells[0] if edit == "markdown" else nb.cells[1]
        cell.source += "\n# EDITED"
        nbformat.write(nb, root / "chapters" / "t1.ipynb")
    student.copy_sources(root, src)
    report, reused = student.strip_sources(root, src)
    written = nbformat.read(src / "chapters" / "t1.ipynb", as_version=4)
    log = capsys.readouterr().out
    if edit is None:
        assert reused == ["chapters/t1.ipynb"] and report == [("chapters/t1.ipynb", 2, True)]
        assert "OUTPUT-OF-MAIN" in str(written.cells[1].outputs)
        assert "edited since" not in log
    else:
        assert reused == [] and report == [("chapters/t1.ipynb", 2, False)]
        assert "# EDITED" in "\n".join(c.source for c in written.cells)
        assert written.cells[1].outputs == []
        assert "edited since the last `make book`" in log and "chapters/t1.ipynb" in log


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
