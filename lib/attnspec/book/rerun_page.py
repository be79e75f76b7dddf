"""A rerun's executed chapter built into HTML by Jupyter Book, as the book shows it.

``attnspec rerun`` leaves an executed notebook; this builds it with the book's own machinery
(``jupyter-book``'s Sphinx build, the book's ``_config.yml``, theme, ``references.bib``,
``_ext`` and ``_assets``, and the vendored MathJax), with execution off: the page shows the
run's outputs, glued numbers and figures, resolved citations with a reference list, captions,
folded solutions, numbered theorems and figures.

The build is a one-page book in a temporary folder: a landing page saying which parameters the
run used, and the chapter. Its number stays the book's (``numfig``: Figure 3.2, not 1.2), and
references to other pages, which a one-page build cannot resolve, become plain text naming
the chapter (both done by :mod:`attnspec.book.rerun_sphinx`). The build is strict (warnings are
errors). The result is a folder, ``<output>/<chapter>__<parameters>/`` with ``index.html``, the
chapter's page and everything it loads (MathJax too) inside, which works when moved or zipped.
A failed build leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

__all__ = ["write_page", "PageBuildError"]

#: the parts of MathJax 3's ``es5`` folder that the book's ``tex-chtml.js`` loads, speech rules
#: of the accessibility menu included (not the 13 MB of other combined files)
MATHJAX_PARTS = ("tex-chtml.js", "input", "output", "ui", "a11y", "adaptors", "sre")


class PageBuildError(RuntimeError):
    """Jupyter Book could not build a rerun's page (its messages say why)."""


def _config(book_root, src, title, chapter_number):
    """The book's ``_config.yml`` for a one-page build of executed output."""
    import yaml

    config = yaml.safe_load((Path(book_root) / "_config.yml").read_text()) or {}
    config["title"] = title
    config["only_build_toc_files"] = True
    config["execute"] = dict(config.get("execute") or {}, execute_notebooks="off",
                             cache=str(src / "_build" / ".jupyter_cache"))
    config.pop("launch_buttons", None)      # they would open the repository's chapter
    sphinx = config.setdefault("sphinx", {})
    sphinx["extra_extensions"] = list(sphinx.get("extra_extensions") or []) + [
        "attnspec.book.rerun_sphinx"]
    settings = sphinx.setdefault("config", {})
    settings["html_static_path"] = ["static", "_assets"]
    settings["attnspec_chapter_number"] = chapter_number
    settings["attnspec_book_root"] = str(Path(book_root).resolve())
    return yaml.safe_dump(config, sort_keys=False, allow_unicode=True)


def _landing_page(title, stem, parameters):
    used = ", ".join(f"`{k} = {v!r}`" for k, v in parameters.items()) or "its defaults"
    return (f"# {title}\n\nThis folder holds chapter {stem} of the book, executed by "
            f"`attnspec rerun` with {used}. Every number and figure in "
            f"{{doc}}`the chapter <chapters/{stem}>` was computed by this run.\n")


def _notebook(executed, parameters):
    """The executed notebook with a note of the parameters under its title, and its
    reference list (when it cites) at the end."""
    import nbformat

    nb = nbformat.read(executed, as_version=4)
    used = ", ".join(f"`{k} = {v!r}`" for k, v in parameters.items()) or "its defaults"
    note = (f"\n```{{note}}\nThis page is a rerun of the chapter with {used}: every number "
            "and figure on it was computed by this run.\n```\n")
    cited = any("{cite" in c.source for c in nb.cells if c.cell_type == "markdown")
    for cell in nb.cells:          # the note goes right under the chapter's title
        lines = cell.source.splitlines(keepends=True) if cell.cell_type == "markdown" else []
        title = next((i for i, line in enumerate(lines) if line.startswith("# ")), None)
        if title is not None:
            cell.source = "".join(lines[:title + 1] + [note] + lines[title + 1:])
            break
    if cited:
        nb.cells.append(nbformat.v4.new_markdown_cell(
            "## References\n\n```{bibliography}\n:filter: docname in docnames\n```"))
    return nb


def _sources(book_root, src, executed, stem, parameters, chapter_number):
    """Write the one-page book into ``src``."""
    import nbformat
    import yaml

    root = Path(book_root)
    title = f"Chapter {chapter_number} rerun"
    (src / "chapters").mkdir(parents=True)
    for name in ("references.bib", "pyproject.toml"):
        shutil.copy2(root / name, src / name)
    for folder in ("_ext", "_assets"):
        shutil.copytree(root / folder, src / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    mathjax = root / "_vendor" / "static" / "mathjax"
    (src / "static" / "mathjax").mkdir(parents=True)
    for part in MATHJAX_PARTS:
        if (mathjax / part).is_dir():
            shutil.copytree(mathjax / part, src / "static" / "mathjax" / part)
        elif (mathjax / part).is_file():
            shutil.copy2(mathjax / part, src / "static" / "mathjax" / part)
    if not (src / "static" / "mathjax" / "tex-chtml.js").is_file():
        raise PageBuildError(f"MathJax is missing ({mathjax / 'tex-chtml.js'}): run "
                             "`make setup` once")
    vega = root / "_vendor" / "static" / "vega"      # the interactive figures' scripts
    if not (vega / "vega-lite.min.js").is_file():
        raise PageBuildError(f"Vega-Lite is missing ({vega / 'vega-lite.min.js'}): run "
                             "`make setup` once")
    shutil.copytree(vega, src / "static" / "vega")
    (src / "_config.yml").write_text(_config(root, src, title, chapter_number))
    toc = {"format": "jb-book", "root": "index",
           "parts": [{"caption": "Rerun", "numbered": True,
                      "chapters": [{"file": f"chapters/{stem}"}]}]}
    (src / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False))
    (src / "index.md").write_text(_landing_page(title, stem, parameters))
    nbformat.write(_notebook(executed, parameters), src / "chapters" / f"{stem}.ipynb")


def _build(src, html, quiet):
    """``jupyter-book build --all -W -n --keep-going`` of ``src`` into ``html``."""
    from jupyter_book.sphinx import build_sphinx

    log = io.StringIO()
    streams = (contextlib.redirect_stdout(log), contextlib.redirect_stderr(log)) if quiet \
        else (contextlib.nullcontext(), contextlib.nullcontext())
    with streams[0], streams[1]:
        result = build_sphinx(
            src, html, use_external_toc=True, noconfig=True,
            path_config=str(src / "_config.yml"),
            confoverrides={"external_toc_path": (src / "_toc.yml").as_posix(),
                           "latex_individualpages": False, "nitpicky": True},
            builder="html", warningiserror=True, keep_going=True, freshenv=True)
    if isinstance(result, Exception) or result:
        plain = re.sub(r"\x1b\[[0-9;]*m", "", log.getvalue())     # no terminal colours
        messages = [line for line in plain.splitlines()
                    if "WARNING" in line or "ERROR" in line] or [plain[-4000:]]
        raise PageBuildError("Jupyter Book could not build the rerun's page (warnings are "
                             "errors):\n" + "\n".join(messages[:20]))


def write_page(executed, folder, *, book_root, stem, parameters, chapter_number, quiet=True):
    """Build the executed chapter ``executed`` into the folder ``folder``; return its
    ``index.html``.

    Parameters
    ----------
    executed : path-like
        The rerun's executed notebook.
    folder : path-like
        Where the site goes (replaced if it exists; nothing is left there if the build fails).
    book_root : path-like
        The book, whose configuration, bibliography, assets and MathJax the page uses.
    stem, chapter_number : str, int
        The chapter's file name (``03_single_head_theorem``) and number as the book shows it.
    parameters : dict
        The values the run used, shown on the page.
    quiet : bool
        Keep Sphinx's messages unless the build fails.
    """
    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{folder.name}.", dir=folder.parent) as tmp:
        src, html = Path(tmp) / "src", Path(tmp) / "html"
        _sources(book_root, src, executed, stem, parameters, chapter_number)
        _build(src, html, quiet)
        for leftover in (".buildinfo", "objects.inv", ".doctrees", "jupyter_execute"):
            path = html / leftover
            shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
        if folder.exists():
            shutil.rmtree(folder)
        os.replace(html, folder)
    (folder / "rerun.json").write_text(json.dumps(
        {"chapter": stem, "parameters": parameters}, indent=1, default=repr) + "\n")
    return folder / "index.html"
