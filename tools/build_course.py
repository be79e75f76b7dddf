"""Build the course kit: one problem sheet per session, a student release and an autograder
(``make course``).

1. The sessions are read from the course guide (``chapters/course_guide.md``): each
   ``### Session N.`` section (and the Part III section) with the exercises it names
   (``{ref}`ex-...```).
2. Each exercise's text and solution are read from the chapters' ``{exercise}`` and
   ``{solution}`` blocks (MyST's own parser, as the student edition does); they become the parts
   the lecturer marks by hand. Their MyST is resolved as the handout's is
   (``tools/resolve_myst.py``, from the book's build: ``make book``): "Figure 3.2",
   "Section 3.4", author–year citations with a reference list, glued values, no role or
   directive left. The autograded parts are ``tools/course_sheets.py``.
3. A source notebook per session in Otter-Grader's assign format, with solutions and tests,
   goes to ``_build/course/source/``; ``otter assign`` splits it into the student notebook
   (solutions replaced by ``...``, public tests only) and the autograder (every test).
4. The student release, ``_build/course/student/``: the notebooks, their PDF (nbconvert HTML
   with the vendored MathJax, printed by headless Chromium) and a README; checked to contain no
   solution and no hidden test. The autograder, ``_build/course/autograder/<sheet>/``: the test
   files and ``sheet.json`` (parts, points, answer names) that ``tools/grade_course.py`` reads.

Usage::

    .venv/bin/python tools/build_course.py [--sheets session-03 ...] [--no-pdf]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_pdf import find_chrome  # noqa: E402  (the one definition)
from build_student import _md_parser  # noqa: E402
from course_sheets import PARTS  # noqa: E402
from resolve_myst import (BookMissing, Chapter, _parser, book_build, expand_macros,  # noqa: E402
                          reference_list)

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "_build" / "course"
GUIDE = ROOT / "chapters" / "course_guide.md"
MATHJAX = ROOT / "_vendor" / "static" / "mathjax" / "tex-chtml.js"
#: points of each exercise marked by hand (the rubric of the course guide)
MANUAL_POINTS = 4
_SECTION = re.compile(r"^(### Session (\d+)\b.*|## Part III\b.*)$", re.M)
_DOC = re.compile(r"\{doc\}`([^`]+)`")
_REF = re.compile(r"\{ref\}`(ex-[\w-]+)`")


class CourseBuildError(RuntimeError):
    """A sheet could not be built, or the student release shows a solution."""


def sessions(guide=GUIDE):
    """``[{"id", "title", "chapters", "exercises"}, ...]`` in the order of the course guide."""
    text = guide.read_text()
    marks = list(_SECTION.finditer(text))
    found = []
    for mark, following in zip(marks, marks[1:] + [None]):
        body = text[mark.end():following.start() if following else len(text)]
        body = body.split("\n## ", 1)[0]
        ident = f"session-{int(mark.group(2)):02d}" if mark.group(2) else "part-3"
        title = mark.group(1).lstrip("#").strip()
        found.append({"id": ident, "title": title, "chapters": _DOC.findall(body.split("\n\n")[1]),
                      "exercises": list(dict.fromkeys(_REF.findall(body)))})
    return found


def exercises(chapters=ROOT / "chapters"):
    """``{label: {"chapter", "text", "solution"}}`` from every chapter's exercise blocks."""
    found = {}
    for path in sorted(chapters.glob("[0-9][0-9]_*.ipynb")):
        gated = None            # [label, pieces] of an open {exercise-start} ... {exercise-end}
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code":
                if gated and "remove-cell" not in cell.metadata.get("tags", []):
                    gated[1].append(f"```python\n{cell.source}\n```")
                continue
            lines = cell.source.splitlines()
            start = 0
            for token in _md_parser().parse(cell.source):
                if token.type not in ("fence", "colon_fence") or token.map is None:
                    continue
                name, _, arg = token.info.strip().partition(" ")
                options = dict(re.findall(r"^:(\w+):\s*(.*)$", token.content, re.M))
                body = re.sub(r"^:\w+:.*\n", "", token.content, flags=re.M).strip()
                if gated and name == "{exercise-end}":
                    gated[1].append("\n".join(lines[start:token.map[0]]))
                    found.setdefault(gated[0], {}).update(
                        chapter=path.stem, text="\n\n".join(p for p in gated[1] if p.strip()))
                    gated = None
                elif name == "{exercise-start}" and "label" in options:
                    gated, start = [options["label"], []], token.map[1]
                elif name == "{exercise}" and "label" in options:
                    found.setdefault(options["label"], {}).update(chapter=path.stem, text=body)
                elif name == "{solution}" and arg.strip():
                    found.setdefault(arg.strip(), {})["solution"] = body
            if gated:
                gated[1].append("\n".join(lines[start:]))
                start = 0
    return found


class SheetText:
    """The chapters' MyST resolved for one sheet, as the handout resolves it: the exercises'
    text (whose citations go to the sheet's reference list) and their marking schemes."""

    def __init__(self, book, root=ROOT):
        self.book, self.root, self.parser = book, root, _parser(str(root))
        self.readers = {}                  # (chapter stem, "text" or "solution") -> Chapter

    def markdown(self, stem, text, kind="text"):
        key = (stem, kind)
        if key not in self.readers:
            self.readers[key] = Chapter(self.book, f"chapters/{stem}", self.parser)
        return expand_macros(self.readers[key].markdown(text), self.root)

    def chapter(self, stem):
        """``"chapter 6 (Multi-head attention)"``."""
        return self.book.chapter(f"chapters/{stem}")

    def exercise(self, label, stem):
        """``"Exercise 6.1"``."""
        return self.book.reference("ref", label, f"chapters/{stem}")

    def references(self):
        """The sheet's reference list (the works its exercises cite), or ``None``."""
        cited = list(dict.fromkeys(key for (_, kind), reader in self.readers.items()
                                   if kind == "text" for key in reader.cited))
        return "## References\n\n" + reference_list(self.book.bib, cited) if cited else None


def source_notebook(session, found, book, root=ROOT):
    """The session's sheet in Otter's assign format (solutions and tests included), its MyST
    resolved from ``book`` (a :class:`resolve_myst.Book`)."""
    new = nbformat.v4
    text = SheetText(book, root)
    config = ("# ASSIGNMENT CONFIG\nname: " + session["id"] + "\nrequirements: null\n"
              "init_cell: true\ncheck_all_cell: false\nexport_cell: false\n"
              "run_tests: false\ngenerate: false\ntests:\n  files: true\n")
    chapters = "; ".join(text.chapter(stem) for stem in session["chapters"])
    cells = [new.new_raw_cell(config),
             new.new_markdown_cell(
                 f"# Problem sheet: {session['title']}\n\nChapters: {chapters}.\n\n"
                 "Autograded parts store the named values in the code cell under them (run "
                 "the notebook top to bottom; keep the names). Parts marked *by hand* are "
                 "answered in the Markdown cell under them. Submit this notebook.")]
    for part in PARTS.get(session["id"], ()):
        cells += [new.new_raw_cell(f"# BEGIN QUESTION\nname: {part.name}\npoints: "
                                   f"{[t.points for t in part.tests]}"),
                  new.new_markdown_cell(f"**{part.name}** (autograded, {part.points:g} points). "
                                        + part.prompt),
                  new.new_raw_cell("# BEGIN SOLUTION"),
                  new.new_code_cell("# BEGIN SOLUTION\n" + part.solution + "\n# END SOLUTION"),
                  new.new_raw_cell("# END SOLUTION"),
                  new.new_raw_cell("# BEGIN TESTS")]
        for test in part.tests:
            head = '""" # BEGIN TEST CONFIG\nhidden: true\n""" # END TEST CONFIG\n'
            cells.append(new.new_code_cell((head if test.hidden else "") + test.code))
        cells += [new.new_raw_cell("# END TESTS"), new.new_raw_cell("# END QUESTION")]
    for label in session["exercises"]:
        exercise = found.get(label)
        if not exercise or "text" not in exercise:
            raise CourseBuildError(f"the course guide names exercise {label!r} "
                                   f"({session['title']}), which no chapter defines")
        stem = exercise["chapter"]
        cells += [new.new_raw_cell(f"# BEGIN QUESTION\nname: {label.replace('-', '_')}\n"
                                   f"points: {MANUAL_POINTS}\nmanual: true"),
                  new.new_markdown_cell(
                      f"**{text.exercise(label, stem)}** (marked by hand, {MANUAL_POINTS} "
                      "points). " + text.markdown(stem, exercise["text"])),
                  new.new_raw_cell("# BEGIN SOLUTION"),
                  new.new_markdown_cell("**Marking scheme.** " + text.markdown(
                      stem, exercise.get("solution", "see the chapter"), "solution")),
                  new.new_raw_cell("# END SOLUTION"),
                  new.new_raw_cell("# END QUESTION")]
    if text.references():
        cells.append(new.new_markdown_cell(text.references()))
    nb = new.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["attnspec_sheet"] = session["id"]        # what the grader reads
    return nb


def sheet_record(session):
    """What the grader needs: the parts, their points and answer names, the manual parts."""
    return {"id": session["id"], "title": session["title"],
            "auto": [{"name": p.name, "points": p.points, "answers": list(p.answers)}
                     for p in PARTS.get(session["id"], ())],
            "manual": [{"name": label, "points": MANUAL_POINTS}
                       for label in session["exercises"]]}


def assign(source, work):
    """``otter assign`` (no test run, no PDF): the student and autograder folders."""
    shutil.rmtree(work, ignore_errors=True)
    otter = Path(sys.executable).with_name("otter")
    result = subprocess.run([str(otter), "assign", "--no-run-tests", "--no-pdfs",
                             str(source), str(work)], capture_output=True, text=True)
    if result.returncode:
        raise CourseBuildError(f"otter assign failed for {source.name}:\n{result.stderr}")


def check_student(notebook, session):
    """Fail if a solution line or a hidden test survived in the student notebook."""
    text = notebook.read_text()
    for part in PARTS.get(session["id"], ()):
        for line in part.solution.splitlines():
            if line.strip() and not line.startswith("import") and line in text:
                raise CourseBuildError(f"{notebook}: solution line {line!r} left")
        for test in part.tests:
            if test.hidden and test.code in text:
                raise CourseBuildError(f"{notebook}: hidden test {test.code!r} left")
    if "Marking scheme" in text:
        raise CourseBuildError(f"{notebook}: a marking scheme is left")


def mathjax_config(root=ROOT):
    """MathJax 3's configuration as JSON: ``$`` delimiters and the book's macros (``\\E``, ...)."""
    sphinx = (yaml.safe_load((root / "_config.yml").read_text()).get("sphinx") or {})
    tex = ((sphinx.get("config") or {}).get("mathjax3_config") or {}).get("tex") or {}
    return json.dumps({"tex": {"inlineMath": [["$", "$"], ["\\(", "\\)"]],
                               "processEscapes": True, "macros": tex.get("macros", {})}})


def to_pdf(notebook, chrome):
    """nbconvert HTML (vendored MathJax) printed to PDF by headless Chromium."""
    from nbconvert import HTMLExporter

    marker = "attnspec-mathjax"
    html, _ = HTMLExporter(mathjax_url=marker).from_notebook_node(
        nbformat.read(notebook, as_version=4))
    # nbconvert's template configures MathJax 2; the vendored MathJax is 3: configure it
    config = f"<script>window.MathJax = {mathjax_config()};</script>\n"
    html = html.replace(f'<script src="{marker}"> </script>',
                        config + f'<script src="{MATHJAX.as_uri()}"></script>')
    page = notebook.with_suffix(".html")
    page.write_text(html)
    pdf = notebook.with_suffix(".pdf")
    subprocess.run([chrome, "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-background-networking", "--disable-component-update",
                    "--no-first-run", "--no-pdf-header-footer", "--virtual-time-budget=10000",
                    f"--print-to-pdf={pdf}", page.as_uri()],
                   check=True, capture_output=True, timeout=300)
    page.unlink()
    return pdf


STUDENT_README = """# Problem sheets

One notebook per session (`session-NN.ipynb`, with its PDF). Each needs the attnspec library
(`pip install attnspec`, or the wheel of the handout). Answer in the notebook, keep the names
the autograded parts ask for, run it top to bottom, and submit the `.ipynb`. The first code
cell checks your autograded answers against the public tests in `tests/` when Otter-Grader is
installed (`pip install otter-grader==7.0.0`); the marks come from the lecturer's autograder,
which also has hidden tests, and from the lecturer for the parts marked by hand.
"""


def build(root=ROOT, out=OUT, only=None, pdf=True):
    """Build the sheets (``only``: their ids) into ``out``; return the student folder."""
    found = exercises(root / "chapters")
    chosen = [s for s in sessions(root / "chapters" / "course_guide.md")   # projects: no sheet
              if (only is None or s["id"] in only) and (s["exercises"] or s["id"] in PARTS)]
    if only is not None and len(chosen) != len(set(only)):
        known = [s["id"] for s in sessions(root / "chapters" / "course_guide.md")]
        raise CourseBuildError(f"sheets={sorted(only)} includes unknown ids; allowed: {known}")
    names = [part.name for parts in PARTS.values() for part in parts]
    if len(names) != len(set(names)):     # the student release shares one tests/ folder
        raise CourseBuildError(f"autograded part names repeat across sheets: {sorted(names)}")
    chrome = find_chrome() if pdf else None
    if pdf and chrome is None:
        raise CourseBuildError("headless Chromium is needed for the PDF sheets "
                               "(apt-get install chromium), or pass --no-pdf")
    try:
        book = book_build(root, "the problem sheets")
    except BookMissing as error:
        raise CourseBuildError(str(error)) from None
    staging = out.with_name(out.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    for session in chosen:
        source = staging / "source" / f"{session['id']}.ipynb"
        source.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(source_notebook(session, found, book, root), source)
        work = staging / "work" / session["id"]
        assign(source, work)
        student = staging / "student"
        student.mkdir(exist_ok=True)
        notebook = student / f"{session['id']}.ipynb"
        shutil.copy(work / "student" / source.name, notebook)
        if (work / "student" / "tests").is_dir():
            shutil.copytree(work / "student" / "tests", student / "tests", dirs_exist_ok=True)
        check_student(notebook, session)
        grader = staging / "autograder" / session["id"]
        shutil.copytree(work / "autograder" / "tests", grader / "tests")
        (grader / "sheet.json").write_text(json.dumps(sheet_record(session), indent=1))
        if pdf:
            to_pdf(notebook, chrome)
    (staging / "student" / "README.md").write_text(STUDENT_README)
    shutil.rmtree(staging / "work")
    shutil.rmtree(out, ignore_errors=True)
    staging.rename(out)
    return out / "student"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sheets", nargs="*", help="build only these sheets (session-03 ...)")
    parser.add_argument("--no-pdf", action="store_true", help="skip the PDF of each sheet")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    try:
        student = build(out=args.out, only=args.sheets, pdf=not args.no_pdf)
    except CourseBuildError as error:
        sys.exit(f"make course: {error}")
    print(f"Student release: {student}\nAutograder (keep private): {args.out / 'autograder'}")


if __name__ == "__main__":
    main()
