"""Build the student edition of the book: the same pages with every solution removed (``make student``).

What a student gets is the HTML book *and* the files behind its download buttons, so both must be
free of solutions:

1. The book sources (``_config.yml``, ``_toc.yml``, the pages and ``chapters/``, ``references.bib``)
   are copied to ``_build/student-src/`` (``_vendor/`` is symlinked, not copied), except the
   teacher-only pages (``TEACHER_ONLY``: the course guide with its grading script), which are
   removed with their ``_toc.yml`` entries.
2. In the copies, solutions are removed from the *sources*, so that the HTML pages, the
   downloadable ``.ipynb``/``.md`` files (``_sources/``) and the executed notebooks all agree:

   - a ``solution`` directive is removed with its body;
   - a gated solution (``solution-start`` ... ``solution-end``) is removed together with every
     cell between the two markers (its code cells included);
   - a notebook cell tagged ``solution`` is removed (for a solution that is a bare code cell).

   Directives are found with MyST's own Markdown parser (``myst_parser``'s markdown-it
   configuration, the one that builds the book), never with regular expressions over the text;
   tags are read with ``nbformat``. No solution text is rewritten, only whole blocks dropped.
3. The copied ``_config.yml`` sets ``sphinx.config.hide_solutions: true`` (sphinx-exercise's own
   switch) as a second line of defence; it appends "(student edition)" to the title, and it
   removes the Binder/Colab launch buttons, because those open the *repository's* notebooks,
   which contain the solutions (``--launch-branch BRANCH`` keeps them, pointing at a branch where
   you have committed the student notebooks).
4. Nothing is executed twice when it need not be: the main build's execution cache
   (``_build/.jupyter_cache``, current when ``_build/.cache-inputs-hash`` matches ``lib/`` and the pins)
   holds every chapter's executed notebook; the student build takes those outputs, removes the
   solution cells exactly as in the source, and stores the result in the student edition's own
   cache, keyed on the stripped notebook. A chapter without a current cached run (the book was not
   built, or the chapter or ``lib/`` changed since) is executed by the student build itself.
5. The book is built strictly (warnings are errors, nitpicky, clean environment) into
   ``_build/student/html``; then every built page is checked for sphinx-exercise's ``solution``
   class and every downloadable source for a leftover solution directive or a removed cell. Any
   finding fails the build.

Why not only ``hide_solutions``: in sphinx-exercise 1.2.1 it drops a ``solution`` directive from the
HTML but (a) leaves the *gated* solution's code cells in the page and crashes the HTML writer on
the orphaned ``solution-end`` node, and (b) does not touch the ``_sources/`` files that the
download button serves.

Usage::

    .venv/bin/python tools/build_student.py            # or: make student
    .venv/bin/python tools/build_student.py --launch-branch student
"""

from __future__ import annotations

import argparse
import copy
import functools
import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_book import cache_is_current  # noqa: E402  (the one definition)

ROOT = Path(__file__).resolve().parent.parent

SOLUTION, GATE_START, GATE_END = "{solution}", "{solution-start}", "{solution-end}"
SOLUTION_TAG = "solution"
#: top-level entries of the repository that are not part of the book's sources
#: (names starting with "." are skipped as well)
NOT_SOURCES = {"_build", "lib", "tests", "tools", "benchmarks", "docs", "_vendor", "__pycache__",
               "build"}
#: pages for teachers only (the course guide: lesson plan, grading script, marking scheme),
#: left out of the student edition together with their entry in ``_toc.yml``
TEACHER_ONLY = ("chapters/08_course_guide",)
#: folders of the main ``_build`` that chapters read and write through ``../_build/`` (the
#: sweeps' on-disk cache): the student sources see the main build's copy
SHARED_BUILD_FOLDERS = ("sweep-cache",)
#: a line that opens a solution directive (used only to *verify* the stripped sources)
_OPENS_SOLUTION = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})\s*\{solution(-start|-end)?\}", re.M)
#: an HTML element rendered by sphinx-exercise for a solution
_SOLUTION_CLASS = re.compile(r'class="([^"]*\s)?solution(\s[^"]*)?"')


class StudentBuildError(RuntimeError):
    """A solution could not be removed, or the student build still shows one."""


# --------------------------------------------------------------------------------------------
# Finding solutions with MyST's own parser
# --------------------------------------------------------------------------------------------

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


def strip_text(text, in_gate=False, where="text"):
    """Remove the solutions from one MyST text (a page or a notebook's Markdown cell).

    Parameters
    ----------
    text : str
        MyST Markdown.
    in_gate : bool
        Whether the text starts inside a gated solution opened in an earlier cell.
    where : str
        Name used in error messages.

    Returns
    -------
    new_text : str
    in_gate : bool
        Whether the text ends inside a gated solution (its ``solution-end`` is in a later cell).
    removed : int
        Number of solutions that *end* in this text (a gated solution counts where it closes).
    """
    lines = text.splitlines(keepends=True)
    keep = [True] * len(lines)
    gate_from = 0 if in_gate else None
    removed = 0
    for name, first, end in directive_blocks(text):
        if gate_from is not None:                 # inside a gate: wait for its end
            if name == GATE_START:
                raise StudentBuildError(f"{where}: nested solution-start at line {first + 1}")
            if name == GATE_END:
                keep[gate_from:end] = [False] * (end - gate_from)
                gate_from, removed = None, removed + 1
        elif name == SOLUTION:
            keep[first:end] = [False] * (end - first)
            removed += 1
        elif name == GATE_START:
            gate_from = first
        elif name == GATE_END:
            raise StudentBuildError(f"{where}: solution-end without solution-start "
                                    f"at line {first + 1}")
    if gate_from is not None:
        keep[gate_from:] = [False] * (len(lines) - gate_from)
    new = "".join(line for line, k in zip(lines, keep) if k)
    return new, gate_from is not None, removed


@dataclass
class Plan:
    """What to remove from one notebook: cells to drop and Markdown cells to rewrite."""

    drop: set = field(default_factory=set)
    rewrite: dict = field(default_factory=dict)
    solutions: int = 0
    removed_sources: list = field(default_factory=list)   # code removed, for verification

    def apply(self, nb):
        """Return a copy of ``nb`` (same cells as the planned notebook) with the plan applied."""
        out = copy.deepcopy(nb)
        cells = []
        for index, cell in enumerate(out.cells):
            if index in self.drop:
                continue
            if index in self.rewrite:
                cell.source = self.rewrite[index]
            cells.append(cell)
        out.cells = cells
        return out


def plan_notebook(nb, where="notebook"):
    """Plan the removal of every solution from a notebook (see the module docstring)."""
    plan = Plan()
    in_gate = False
    for index, cell in enumerate(nb.cells):
        tags = cell.get("metadata", {}).get("tags", [])
        if cell.cell_type == "markdown":
            new, in_gate_after, removed = strip_text(cell.source, in_gate, f"{where} cell {index}")
            plan.solutions += removed
            if new != cell.source:
                if new.strip():
                    plan.rewrite[index] = new
                else:
                    plan.drop.add(index)
            in_gate = in_gate_after
        elif in_gate or SOLUTION_TAG in tags:
            plan.drop.add(index)
            if SOLUTION_TAG in tags and not in_gate:
                plan.solutions += 1
            if cell.cell_type == "code" and cell.source.strip():
                plan.removed_sources.append(cell.source)
    if in_gate:
        raise StudentBuildError(f"{where}: solution-start without solution-end")
    return plan


def strip_notebook(nb, where="notebook"):
    """A copy of ``nb`` without its solutions (the rule of ``plan_notebook``), checked clean."""
    stripped = plan_notebook(nb, where).apply(nb)
    for cell in stripped.cells:
        if cell.cell_type == "markdown":
            check_clean_text(cell.source, where)
    return stripped


def check_clean_text(text, where):
    """Fail if a line still opens a solution directive (e.g. one nested in another block)."""
    match = _OPENS_SOLUTION.search(text)
    if match:
        line = text[:match.start()].count("\n") + 1
        raise StudentBuildError(f"{where}: a solution is left at line {line} (nested inside "
                                "another block?); move it to the top level of the page")


# --------------------------------------------------------------------------------------------
# The execution cache
# --------------------------------------------------------------------------------------------

def main_cache(root):
    """The main build's jupyter-cache if it is current, else ``None`` (with the reason printed)."""
    from jupyter_cache import get_cache

    folder = Path(root) / "_build" / ".jupyter_cache"
    if not folder.is_dir():
        print("no execution cache of the main book (run `make book` first to avoid "
              "executing the chapters again)")
        return None
    if not cache_is_current(root):
        print("the main book's execution cache is stale (lib/ or the pins changed since "
              "`make book`): chapters will be executed")
        return None
    return get_cache(str(folder))


def _md_config():
    return _md_parser().options["myst_config"]


def read_text_notebook(path, text):
    """A MyST text notebook (``.md`` with a kernelspec) as myst-nb reads it, else ``None``."""
    from myst_nb.core.read import is_myst_markdown_notebook, read_myst_markdown_notebook

    if not is_myst_markdown_notebook(text):
        return None
    return read_myst_markdown_notebook(text, config=_md_config(), add_source_map=True,
                                       path=str(path))


def _align(stripped_cells, executed_cells):
    """Pair each code cell of the stripped notebook with its executed original (same source,
    in order: the stripped code cells are a subsequence of the original ones)."""
    pairs, start = [], 0
    for cell in stripped_cells:
        for index in range(start, len(executed_cells)):
            if executed_cells[index].source == cell.source:
                pairs.append((cell, executed_cells[index]))
                start = index + 1
                break
        else:
            return None
    return pairs


def seed_student_cache(cache, student_cache, original, stripped, uri, plan=None):
    """Store ``stripped`` with the main build's outputs in the student cache; True on success.

    ``original`` is the notebook as the main build read it (its code cells are the cache key).
    With a ``plan`` (``.ipynb``) the executed copy is stripped by the same plan; without one
    (MyST text notebooks) the kept code cells are matched to the executed ones by source.
    """
    from jupyter_cache.base import CacheBundleIn

    try:
        _, executed = cache.merge_match_into_notebook(original)
    except KeyError:
        return False
    if plan is not None:
        executed = plan.apply(executed)
    bundle = copy.deepcopy(stripped)
    code = [c for c in bundle.cells if c.cell_type == "code"]
    done = [c for c in executed.cells if c.cell_type == "code"]
    pairs = list(zip(code, done)) if plan is not None and len(code) == len(done) \
        else _align(code, done)
    if pairs is None:
        return False
    for cell, run in pairs:
        cell.outputs = run.outputs
        cell.execution_count = run.execution_count
    for key in ("language_info", "widgets"):
        if key in executed.metadata:
            bundle.metadata[key] = executed.metadata[key]
    student_cache.cache_notebook_bundle(CacheBundleIn(bundle, uri), check_validity=False,
                                        overwrite=True)
    return True


# --------------------------------------------------------------------------------------------
# The build
# --------------------------------------------------------------------------------------------

def copy_sources(root, src):
    """Copy the book's sources to ``src`` (a fresh folder); symlink ``_vendor``."""
    if src.exists():
        shutil.rmtree(src)
    src.mkdir(parents=True)
    for entry in sorted(Path(root).iterdir()):
        if entry.name in NOT_SOURCES or entry.name.startswith("."):
            continue
        if entry.is_dir():
            shutil.copytree(entry, src / entry.name,
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


def student_config(src, cache_path, launch_branch=None):
    """Rewrite ``src/_config.yml`` for the student edition."""
    path = src / "_config.yml"
    config = yaml.safe_load(path.read_text()) or {}
    config["title"] = f"{config.get('title', 'Book')} (student edition)"
    config.setdefault("sphinx", {}).setdefault("config", {})["hide_solutions"] = True
    config.setdefault("execute", {})["cache"] = str(cache_path)
    if launch_branch:
        config.setdefault("repository", {})["branch"] = launch_branch
    else:
        config.pop("launch_buttons", None)
    path.write_text("# Generated by tools/build_student.py from the book's _config.yml: "
                    "do not edit.\n" + yaml.safe_dump(config, sort_keys=False, allow_unicode=True))


def _reuse(cache, student_cache, original, stripped, path, plan=None):
    """None if nothing is executed, else whether the main build's outputs were reused."""
    if student_cache is None or not any(c.cell_type == "code" for c in original.cells):
        return None
    return (cache is not None
            and seed_student_cache(cache, student_cache, original, stripped, str(path), plan))


def strip_sources(src, cache=None, student_cache=None):
    """Remove the solutions from every page and notebook under ``src``; return a report."""
    report = []
    for path in sorted(src.rglob("*")):
        if (path.is_symlink() or not path.is_file()
                or {"_vendor", "_build"} & set(path.relative_to(src).parts)):
            continue
        where = str(path.relative_to(src))
        if path.suffix == ".ipynb":
            original = nbformat.read(path, as_version=4)
            plan = plan_notebook(original, where)
            stripped = plan.apply(original)
            for cell in stripped.cells:
                if cell.cell_type == "markdown":
                    check_clean_text(cell.source, where)
            nbformat.write(stripped, path)
            reused = _reuse(cache, student_cache, original, stripped, path, plan)
            report.append((where, plan.solutions, reused, plan.removed_sources))
        elif path.suffix == ".md":
            text = path.read_text()
            new, in_gate, removed = strip_text(text, where=where)
            if in_gate:
                raise StudentBuildError(f"{where}: solution-start without solution-end")
            check_clean_text(new, where)
            if new != text:
                path.write_text(new)
            original = read_text_notebook(path, text)
            reused = None
            if original is not None:
                reused = _reuse(cache, student_cache, original, read_text_notebook(path, new),
                                path)
            report.append((where, removed, reused, []))
    return report


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


def verify(html, report):
    """Fail if a built page shows a solution or a download serves one."""
    problems = []
    for page in sorted(html.rglob("*.html")):
        text = page.read_text(errors="replace")
        if _SOLUTION_CLASS.search(text):
            problems.append(f"{page.relative_to(html)} shows a solution")
    sources = html / "_sources"
    for where, _, _, removed_code in report:
        served = sources / where
        if not served.is_file():
            continue
        text = served.read_text()
        if served.suffix == ".ipynb":
            nb = nbformat.reads(text, as_version=4)
            cells = {c.source for c in nb.cells}
            text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
            problems += [f"_sources/{where} still has a solution cell"
                         for code in removed_code if code in cells]
        if _OPENS_SOLUTION.search(text):
            problems.append(f"_sources/{where} still has a solution directive")
    if problems:
        raise StudentBuildError("solutions leaked into the student edition:\n  "
                                + "\n  ".join(problems))


def build(root=ROOT, out=None, launch_branch=None, reuse_cache=True):
    """Build the student edition of the book at ``root``; return the path of its index.html."""
    root = Path(root).resolve()
    out = Path(out) if out else root / "_build" / "student"
    src = out.parent / "student-src"
    html = out / "html"
    copy_sources(root, src)
    drop_teacher_pages(src)
    student_config(src, (out / ".jupyter_cache").resolve(), launch_branch)
    from jupyter_cache import get_cache

    mode = (yaml.safe_load((src / "_config.yml").read_text()).get("execute") or {}).get(
        "execute_notebooks", "auto")
    if mode != "cache":
        print(f"execute_notebooks is {'off' if mode is False else mode!r} in _config.yml, not "
              "'cache': the main build's outputs cannot be reused; Jupyter Book decides what "
              "to execute")
        cache = student_cache = None
    else:
        cache = main_cache(root) if reuse_cache else None
        student_cache = get_cache(str(out / ".jupyter_cache"))
    report = strip_sources(src, cache, student_cache)
    for where, solutions, reused, _ in report:
        run = "" if reused is None else ("  outputs: reused from the main build" if reused
                                         else "  outputs: executed by this build")
        print(f"  {where}: {solutions} solution(s) removed{run}")
    for folder in (html, out / ".doctrees"):
        if folder.exists():
            shutil.rmtree(folder)
    run_sphinx(src, html)
    verify(html, report)
    total = sum(r[1] for r in report)
    index = html / "index.html"
    if not index.is_file():
        raise StudentBuildError(f"the build wrote no {index}")
    print(f"\nStudent edition: {total} solution(s) removed from {len(report)} page(s); "
          "no solution left in the pages or the downloads.")
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
    parser.add_argument("--execute", action="store_true",
                        help="do not reuse the main build's outputs: execute every chapter")
    args = parser.parse_args(argv)
    try:
        build(args.book_root, args.output, args.launch_branch, reuse_cache=not args.execute)
    except StudentBuildError as exc:
        print(f"build_student: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
