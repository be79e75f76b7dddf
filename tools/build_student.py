"""Build the student edition of the book: no solutions, no teacher's guide (``make student``).

What a student gets is the HTML book *and* the files behind its download buttons, so both must be
free of solutions:

1. The book sources (``_config.yml``, ``_toc.yml``, the pages and ``chapters/``, ``references.bib``)
   are copied to ``_build/student-src/`` (``_vendor/`` is symlinked, not copied), except the
   teacher-only pages (``TEACHER_ONLY``: the course guide with its grading script), which are
   removed with their ``_toc.yml`` entries.
2. In the copies every ``solution`` directive is removed with its body, in the Markdown pages and
   in the notebooks' Markdown cells, so that the HTML pages and the downloadable files agree.
   This is the one format the book uses for solutions (a test checks it). Directives are found
   with MyST's own Markdown parser (the configuration that builds the book), never with regular
   expressions; no text is rewritten, only whole blocks dropped.
3. Chapters are not executed twice: when the main build is current (``make book`` ran after the
   last change to ``lib/`` or the pins), each chapter notebook is taken from the main build's
   executed copy (``_build/jupyter_execute/``), stripped the same way, and excluded from
   execution; anything else (a text notebook such as the landing page, or every chapter when
   the main build is stale) is executed by the student build.
4. The copied ``_config.yml`` appends "(student edition)" to the title, sets sphinx-exercise's
   ``hide_solutions`` as a second line of defence, and removes the Binder/Colab buttons, which
   would open the repository's notebooks, solutions included (``--launch-branch BRANCH`` keeps
   them, pointing at a branch where you have committed the student notebooks).
5. The book is built strictly (warnings are errors, nitpicky, clean environment) into
   ``_build/student/html``; then every page is checked for sphinx-exercise's ``solution`` class
   and every downloadable source for a leftover solution directive. Any finding fails the build.

Usage::

    .venv/bin/python tools/build_student.py            # or: make student
    .venv/bin/python tools/build_student.py --launch-branch student
"""

from __future__ import annotations

import argparse
import functools
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


def directive_blocks(text):
    """Top-level directive blocks of a MyST text: ``[(name, first_line, end_line), ...]``.

    ``name`` is the directive in braces (``"{solution}"``); lines are 0-based, ``end_line``
    exclusive, as in markdown-it's ``Token.map``.
    """
    blocks = []
    for token in _md_parser().parse(text):
        if token.type in ("fence", "colon_fence") and token.map is not None:
            info = token.info.strip()
            if info.startswith("{"):
                blocks.append((info.split(maxsplit=1)[0], token.map[0], token.map[1]))
    return blocks


def check_clean_text(text, where):
    """Fail if a line still opens a solution directive (nested in another block, or a form
    of solution the book does not use, such as a gated ``solution-start``)."""
    code = [range(t.map[0], t.map[1]) for t in _md_parser().parse(text)
            if t.type in ("fence", "code_block") and t.map is not None
            and not t.info.strip().startswith("{")]          # plain code blocks show syntax
    for match in _OPENS_SOLUTION.finditer(text):
        line = text[:match.start()].count("\n") + 1
        if any(line - 1 in lines for lines in code):
            continue
        raise StudentBuildError(f"{where}: a solution is left at line {line} (nested inside "
                                "another block, or not a plain {solution} directive); use a "
                                "top-level {solution} directive")


def strip_text(text, where="text"):
    """Remove every top-level ``solution`` directive; return ``(new_text, removed)``."""
    lines = text.splitlines(keepends=True)
    keep = [True] * len(lines)
    removed = 0
    for name, first, end in directive_blocks(text):
        if name == SOLUTION:
            keep[first:end] = [False] * (end - first)
            removed += 1
    new = "".join(line for line, k in zip(lines, keep) if k)
    check_clean_text(new, where)
    return new, removed


def strip_notebook(nb, where="notebook"):
    """A copy of ``nb`` without its solutions; a Markdown cell left empty is dropped."""
    out = nbformat.from_dict(nb)
    cells = []
    for index, cell in enumerate(out.cells):
        if cell.cell_type == "markdown":
            cell.source, _ = strip_text(cell.source, f"{where} cell {index}")
            if not cell.source.strip():
                continue
        cells.append(cell)
    out.cells = cells
    return out


def count_solutions(nb_or_text):
    """How many solution directives a notebook or a text holds."""
    texts = [c.source for c in nb_or_text.cells if c.cell_type == "markdown"] \
        if hasattr(nb_or_text, "cells") else [nb_or_text]
    return sum(name == SOLUTION for text in texts for name, _, _ in directive_blocks(text))


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
    for path in sorted(src.rglob("*")):
        if (path.is_symlink() or not path.is_file()
                or {"_vendor", "_build"} & set(path.relative_to(src).parts)):
            continue
        where = path.relative_to(src).as_posix()
        if path.suffix == ".ipynb":
            run = executed / where
            source = run if current and run.is_file() else path
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
    problems = [f"{page.relative_to(html)} shows a solution"
                for page in sorted(html.rglob("*.html"))
                if _SOLUTION_CLASS.search(page.read_text(errors="replace"))]
    for served in sorted((html / "_sources").rglob("*")):
        if served.suffix not in (".ipynb", ".md") or not served.is_file():
            continue
        text = served.read_text()
        if served.suffix == ".ipynb":
            nb = nbformat.reads(text, as_version=4)
            text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        if _OPENS_SOLUTION.search(text):
            problems.append(f"_sources/{served.relative_to(html / '_sources')} still has a "
                            "solution directive")
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
