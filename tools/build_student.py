"""Build the student edition of the book: no solutions, no teacher's guide (``make student``).

What a student gets is the HTML book *and* the files behind its download buttons, so both must be
free of solutions:

1. The book sources (``_config.yml``, ``_toc.yml``, the pages and ``chapters/``, ``references.bib``)
   are copied to ``_build/student-src/`` (``_vendor/`` is symlinked, not copied), except the
   teacher-only pages (``TEACHER_ONLY``: the course guide with its grading script), which are
   removed with their ``_toc.yml`` entries.
2. In the copies every solution is removed, in the Markdown pages and in the notebooks, so
   that the HTML pages and the downloadable files agree: a ``{solution}`` directive with its
   body (the one form the book itself uses; a test checks it); a gated solution, from its
   ``{solution-start}`` marker to its ``{solution-end}`` marker with everything between them
   (text, and in a notebook every cell between the two, code cells included); and a cell tagged
   ``solution`` (a notebook cell of any type, or a ``{code-cell}`` block of a text notebook).
   Directives are found with MyST's own Markdown parser (the configuration that builds the
   book), never with regular expressions; no text is rewritten, only whole blocks and cells
   dropped. A solution nested inside another block, or a marker without its partner, is an
   error, not a leak.
3. Chapters are not executed twice: when the main build is current (``make book`` ran after the
   last change to ``lib/`` or the pins) and its executed copy of a chapter notebook
   (``_build/jupyter_execute/``) has the same cells as the chapter's source (the same
   :func:`source_digest`), that copy is taken, stripped the same way, and excluded from
   execution; anything else (a chapter edited since ``make book``, a text notebook such as the
   landing page, or every chapter when the main build is stale) is executed by the student
   build.
4. The copied ``_config.yml`` appends "(student edition)" to the title, sets sphinx-exercise's
   ``hide_solutions`` as a second line of defence, and removes the Binder/Colab buttons, which
   would open the repository's notebooks, solutions included (``--launch-branch BRANCH`` keeps
   them, pointing at a branch where you have committed the student notebooks).
5. The book is built strictly (warnings are errors, nitpicky, clean environment) into
   ``_build/student/html``; then every page is checked for sphinx-exercise's ``solution`` class
   and for a cell tagged ``solution``, and every downloadable source for a leftover solution
   (a directive or marker in any cell, Markdown or code, or a cell tagged ``solution``). Any
   finding fails the build.

Usage::

    .venv/bin/python tools/build_student.py            # or: make student
    .venv/bin/python tools/build_student.py --launch-branch student
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import os
import re
import shutil
import sys
from pathlib import Path

import nbformat
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_book import cache_is_current, exit_status  # noqa: E402  (the one definition)

ROOT = Path(__file__).resolve().parent.parent

SOLUTION = "{solution}"
#: the markers of a gated solution (sphinx-exercise): everything between them is the solution
GATE_START, GATE_END = "{solution-start}", "{solution-end}"
#: the cell tag that marks a whole cell (code or Markdown) as a solution
SOLUTION_TAG = "solution"
#: pages for teachers only (the course guide: lesson plan, grading script, marking scheme)
TEACHER_ONLY = ("chapters/course_guide",)
#: top-level entries of the repository that are not part of the book's sources
#: (names starting with "." are skipped as well)
NOT_SOURCES = {"_build", "lib", "tests", "tools", "benchmarks", "docs", "_vendor", "__pycache__",
               "build"}
#: folders of the main ``_build`` that chapters read and write through ``../_build/`` (the
#: sweeps' on-disk cache): the student sources see the main build's copy
SHARED_BUILD_FOLDERS = ("sweep-cache",)
#: a line that opens a solution directive, in any form (used to *verify* the stripped sources)
_OPENS_SOLUTION = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})\s*\{solution(-start|-end)?\}", re.M)
#: an HTML element rendered by sphinx-exercise for a solution
_SOLUTION_CLASS = re.compile(r'class="([^"]*\s)?solution(\s[^"]*)?"')
#: an HTML element rendered by myst-nb for a cell tagged ``solution``
_SOLUTION_TAG_CLASS = re.compile(r'class="([^"]*\s)?tag_solution(\s[^"]*)?"')


class StudentBuildError(RuntimeError):
    """A solution could not be removed, or the student build still shows one."""


@functools.lru_cache(maxsize=None)
def _md_parser():
    """MyST's markdown-it parser with the extensions the book enables (fences and ::: fences)."""
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    extensions = set()
    config_file = ROOT / "_config.yml"
    if config_file.is_file():
        parse = (yaml.safe_load(config_file.read_text()) or {}).get("parse") or {}
        extensions = set(parse.get("myst_enable_extensions") or [])
    extensions.add("colon_fence")
    return create_md_parser(MdParserConfig(enable_extensions=extensions), RendererHTML)


def _blocks(text):
    """Top-level directive blocks of a MyST text: ``[(name, first, end, body), ...]``."""
    blocks = []
    for token in _md_parser().parse(text):
        if token.type in ("fence", "colon_fence") and token.map is not None:
            info = token.info.strip()
            if info.startswith("{"):
                blocks.append((info.split(maxsplit=1)[0], token.map[0], token.map[1],
                               token.content))
    return blocks


def directive_blocks(text):
    """Top-level directive blocks of a MyST text: ``[(name, first_line, end_line), ...]``.

    ``name`` is the directive in braces (``"{solution}"``); lines are 0-based, ``end_line``
    exclusive, as in markdown-it's ``Token.map``.
    """
    return [(name, first, end) for name, first, end, _ in _blocks(text)]


def _option_tags(body):
    """The tags of a ``{code-cell}`` block from its options (``:tags: [...]`` lines, or a
    ``---`` YAML block at its top)."""
    lines = body.splitlines()
    options = {}
    if lines and lines[0].strip() == "---" and "---" in [x.strip() for x in lines[1:]]:
        close = 1 + [x.strip() for x in lines[1:]].index("---")
        options = yaml.safe_load("\n".join(lines[1:close])) or {}
    else:
        for line in lines:
            match = re.match(r"\s*:(\w[\w-]*):\s*(.*)$", line)
            if not match:
                break
            options[match.group(1)] = yaml.safe_load(match.group(2) or "null")
    tags = options.get("tags") if isinstance(options, dict) else None
    return [str(t) for t in tags] if isinstance(tags, list) else []


def _is_solution_code_cell(name, body):
    return name == "{code-cell}" and SOLUTION_TAG in _option_tags(body)


def _cell_tags(cell):
    return list(cell.get("metadata", {}).get("tags", []) or [])


def check_clean_text(text, where):
    """Fail if a line still opens a solution directive or marker (nested in another block,
    where the stripping cannot reach it)."""
    code = [range(t.map[0], t.map[1]) for t in _md_parser().parse(text)
            if t.type in ("fence", "code_block") and t.map is not None
            and not t.info.strip().startswith("{")]          # plain code blocks show syntax
    for match in _OPENS_SOLUTION.finditer(text):
        line = text[:match.start()].count("\n") + 1
        if any(line - 1 in lines for lines in code):
            continue
        raise StudentBuildError(f"{where}: a solution is left at line {line} (nested inside "
                                "another block, where it cannot be removed); put the "
                                "solution at the top level of its page or cell")


def _strip_markdown(text, where, inside):
    """Drop the solutions of one MyST text; ``inside``: a gated solution is open on entry.

    Returns ``(new_text, removed, inside)``, ``inside`` being whether a gated solution is
    still open at the end (a notebook continues it into the next cells).
    """
    lines = text.splitlines(keepends=True)
    keep = [True] * len(lines)
    removed = 0
    gate = 0 if inside else None        # first line of the open gated solution
    for name, first, end, body in _blocks(text):
        if gate is not None:
            if name == GATE_START:
                raise StudentBuildError(f"{where}: line {first + 1}: {GATE_START} inside "
                                        "another gated solution; close the first one with "
                                        f"{GATE_END}")
            if name == GATE_END:
                keep[gate:end] = [False] * (end - gate)
                gate = None
        elif name == SOLUTION or _is_solution_code_cell(name, body):
            keep[first:end] = [False] * (end - first)
            removed += 1
        elif name == GATE_START:
            gate = first
            removed += 1
        elif name == GATE_END:
            raise StudentBuildError(f"{where}: line {first + 1}: {GATE_END} without a "
                                    f"{GATE_START} before it")
    if gate is not None:
        keep[gate:] = [False] * (len(lines) - gate)
    new = "".join(line for line, k in zip(lines, keep) if k)
    check_clean_text(new, where)
    return new, removed, gate is not None


def _unclosed(where):
    return StudentBuildError(f"{where}: a gated solution ({GATE_START}) has no {GATE_END}; "
                             "nothing after it could be kept safely")


def strip_text(text, where="text"):
    """Remove every solution of a MyST text; return ``(new_text, removed)``.

    Removed: ``{solution}`` directives, gated solutions from ``{solution-start}`` to
    ``{solution-end}`` (both markers and everything between them) and ``{code-cell}`` blocks
    tagged ``solution``.
    """
    new, removed, inside = _strip_markdown(text, where, inside=False)
    if inside:
        raise _unclosed(where)
    return new, removed


def strip_notebook(nb, where="notebook"):
    """A copy of ``nb`` without its solutions; a Markdown cell left empty is dropped.

    Besides the solutions inside Markdown cells (:func:`strip_text`), a cell of any type
    tagged ``solution`` is dropped, and so is every cell between a gated solution's
    ``{solution-start}`` and ``{solution-end}`` markers, code cells included.
    """
    out = nbformat.from_dict(nb)
    cells = []
    inside = False
    for index, cell in enumerate(out.cells):
        if SOLUTION_TAG in _cell_tags(cell):
            continue
        if cell.cell_type == "markdown":
            cell.source, _, inside = _strip_markdown(cell.source, f"{where} cell {index}",
                                                     inside)
            if not cell.source.strip():
                continue
        elif inside:
            continue
        cells.append(cell)
    if inside:
        raise _unclosed(where)
    out.cells = cells
    return out


def count_solutions(nb_or_text):
    """How many solutions a notebook or a text holds: ``{solution}`` directives, gated
    solutions (counted by their start marker) and cells tagged ``solution``."""
    if hasattr(nb_or_text, "cells"):
        tagged = sum(SOLUTION_TAG in _cell_tags(c) for c in nb_or_text.cells)
        texts = [c.source for c in nb_or_text.cells
                 if c.cell_type == "markdown" and SOLUTION_TAG not in _cell_tags(c)]
    else:
        tagged, texts = 0, [nb_or_text]
    return tagged + sum(name in (SOLUTION, GATE_START) or _is_solution_code_cell(name, body)
                        for text in texts for name, _, _, body in _blocks(text))


def source_digest(nb):
    """SHA-256 of a notebook's cells (type and source, in order): what the page shows and
    runs. The main build's executed copy of a chapter is reused only when its digest equals
    the chapter's (the chapter was not edited since ``make book``)."""
    digest = hashlib.sha256()
    for cell in nb.cells:
        digest.update(f"{cell.cell_type}\0{len(cell.source)}\0{cell.source}\0".encode())
    return digest.hexdigest()


def leftover_solutions(nb_or_text, where):
    """The solutions a stripped notebook or text still shows: a directive or gated marker in
    any cell (Markdown or code), a cell or ``{code-cell}`` block tagged ``solution``."""
    if hasattr(nb_or_text, "cells"):
        cells = [(f"{where} cell {i}", c) for i, c in enumerate(nb_or_text.cells)]
    else:
        cells = [(where, nbformat.v4.new_markdown_cell(nb_or_text))]
    problems = []
    for place, cell in cells:
        if SOLUTION_TAG in _cell_tags(cell):
            problems.append(f"{place} ({cell.cell_type}) is tagged {SOLUTION_TAG!r}")
        if _OPENS_SOLUTION.search(cell.source):
            problems.append(f"{place} ({cell.cell_type}) still has a solution directive")
        if cell.cell_type == "markdown" and any(_is_solution_code_cell(name, body)
                                                for name, _, _, body in _blocks(cell.source)):
            problems.append(f"{place} has a code cell tagged {SOLUTION_TAG!r}")
    return problems


def copy_sources(root, src):
    """Copy the book's sources to ``src`` (a fresh folder); symlink ``_vendor``."""
    if src.exists():
        shutil.rmtree(src)
    src.mkdir(parents=True)
    for entry in sorted(Path(root).iterdir()):
        if entry.name in NOT_SOURCES or entry.name.startswith("."):
            continue
        if entry.is_dir():
            shutil.copytree(entry, src / entry.name, symlinks=True,
                            ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        else:
            shutil.copy2(entry, src / entry.name)
    if (Path(root) / "_vendor").exists():
        os.symlink((Path(root) / "_vendor").resolve(), src / "_vendor")
    for name in SHARED_BUILD_FOLDERS:
        shared = Path(root) / "_build" / name
        shared.mkdir(parents=True, exist_ok=True)
        (src / "_build").mkdir(exist_ok=True)
        os.symlink(shared.resolve(), src / "_build" / name)


def drop_teacher_pages(src):
    """Remove the teacher-only pages and their table-of-contents entries from ``src``."""
    toc_path = src / "_toc.yml"
    toc = yaml.safe_load(toc_path.read_text())

    def keep(entries):
        kept = []
        for entry in entries:
            if entry.get("file") in TEACHER_ONLY:
                continue
            for key in ("chapters", "sections", "parts"):
                if key in entry:
                    entry[key] = keep(entry[key])
            kept.append(entry)
        return kept

    for key in ("chapters", "parts"):
        if key in toc:
            toc[key] = keep(toc[key])
    toc_path.write_text(yaml.safe_dump(toc, sort_keys=False, allow_unicode=True))
    for page in TEACHER_ONLY:
        for path in src.glob(page + ".*"):
            path.unlink()


def strip_sources(root, src):
    """Strip every page and notebook under ``src``; return ``(report, reused)``.

    ``reused`` lists the notebooks (relative paths) whose outputs come from the main build.
    """
    executed = Path(root) / "_build" / "jupyter_execute"
    current = cache_is_current(root) and executed.is_dir()
    if not current:
        print("the main book is not built from today's lib/ and pins (run `make book` first "
              "to avoid executing the chapters again): chapters will be executed")
    report, reused = [], []
    changed = []
    for path in sorted(src.rglob("*")):
        if (path.is_symlink() or not path.is_file()
                or {"_vendor", "_build"} & set(path.relative_to(src).parts)):
            continue
        where = path.relative_to(src).as_posix()
        if path.suffix == ".ipynb":
            run = executed / where
            source = path
            if current and run.is_file():
                if source_digest(nbformat.read(run, as_version=4)) == \
                        source_digest(nbformat.read(path, as_version=4)):
                    source = run
                else:
                    changed.append(where)
            nb = nbformat.read(source, as_version=4)
            nbformat.write(strip_notebook(nb, where), path)
            if source == run:
                reused.append(where)
            report.append((where, count_solutions(nb), source == run))
        elif path.suffix == ".md":
            text = path.read_text()
            new, removed = strip_text(text, where)
            if new != text:
                path.write_text(new)
            report.append((where, removed, None))
    if changed:
        print("edited since the last `make book` (executed again here; run `make book` to "
              "update the main build): " + ", ".join(changed))
    return report, reused


def student_config(src, cache_path, reused, launch_branch=None):
    """Rewrite ``src/_config.yml`` for the student edition."""
    path = src / "_config.yml"
    config = yaml.safe_load(path.read_text()) or {}
    config["title"] = f"{config.get('title', 'Book')} (student edition)"
    config.setdefault("sphinx", {}).setdefault("config", {})["hide_solutions"] = True
    execute = config.setdefault("execute", {})
    execute["cache"] = str(cache_path)
    execute["exclude_patterns"] = list(execute.get("exclude_patterns") or []) + reused
    if launch_branch:
        config.setdefault("repository", {})["branch"] = launch_branch
    else:
        config.pop("launch_buttons", None)
    path.write_text("# Generated by tools/build_student.py from the book's _config.yml: "
                    "do not edit.\n" + yaml.safe_dump(config, sort_keys=False, allow_unicode=True))


def run_sphinx(src, html):
    """Build ``src`` strictly into ``html`` (what ``jupyter-book build --all -W -n`` does)."""
    from jupyter_book.sphinx import build_sphinx

    result = build_sphinx(
        src, html, use_external_toc=True, noconfig=True, path_config=str(src / "_config.yml"),
        confoverrides={"external_toc_path": (src / "_toc.yml").as_posix(),
                       "latex_individualpages": False, "nitpicky": True},
        builder="html", warningiserror=True, keep_going=True, freshenv=True)
    if isinstance(result, Exception) or result:
        raise StudentBuildError(f"the student edition failed to build ({result!r}); "
                                "see the messages above")


def verify(html):
    """Fail if a built page shows a solution or a download serves one."""
    problems = []
    for page in sorted(html.rglob("*.html")):
        text = page.read_text(errors="replace")
        if _SOLUTION_CLASS.search(text) or _SOLUTION_TAG_CLASS.search(text):
            problems.append(f"{page.relative_to(html)} shows a solution")
    for served in sorted((html / "_sources").rglob("*")):
        if served.suffix not in (".ipynb", ".md") or not served.is_file():
            continue
        where = f"_sources/{served.relative_to(html / '_sources').as_posix()}"
        text = served.read_text()
        content = nbformat.reads(text, as_version=4) if served.suffix == ".ipynb" else text
        problems += leftover_solutions(content, where)
    for page in TEACHER_ONLY:
        if list(html.glob(page + ".*")):
            problems.append(f"{page} (teachers only) is in the student edition")
    if problems:
        raise StudentBuildError("solutions leaked into the student edition:\n  "
                                + "\n  ".join(problems))


def build(root=ROOT, out=None, launch_branch=None):
    """Build the student edition of the book at ``root``; return the path of its index.html."""
    root = Path(root).resolve()
    out = Path(out) if out else root / "_build" / "student"
    src = out.parent / "student-src"
    html = out / "html"
    copy_sources(root, src)
    drop_teacher_pages(src)
    report, reused = strip_sources(root, src)
    student_config(src, (out / ".jupyter_cache").resolve(), reused, launch_branch)
    for where, solutions, from_main in report:
        run = "" if from_main is None else ("  outputs: reused from the main build" if from_main
                                            else "  outputs: executed by this build")
        print(f"  {where}: {solutions} solution(s) removed{run}")
    for folder in (html, out / ".doctrees"):
        if folder.exists():
            shutil.rmtree(folder)
    run_sphinx(src, html)
    verify(html)
    index = html / "index.html"
    if not index.is_file():
        raise StudentBuildError(f"the build wrote no {index}")
    print(f"\nStudent edition: {sum(r[1] for r in report)} solution(s) removed from "
          f"{len(report)} page(s); no solution left in the pages or the downloads.")
    print(f"The student edition is at {index}")
    return index


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--book-root", default=str(ROOT), help="the book (default: this repo)")
    parser.add_argument("--output", default=None,
                        help="output folder (default: <book>/_build/student); the sources go "
                             "next to it, in student-src/")
    parser.add_argument("--launch-branch", default=None,
                        help="keep the Binder/Colab buttons, opening this branch of the "
                             "repository (commit _build/student-src/chapters there first)")
    args = parser.parse_args(argv)
    return exit_status("build_student", StudentBuildError,
                       lambda: build(args.book_root, args.output, args.launch_branch))


if __name__ == "__main__":
    sys.exit(main())
