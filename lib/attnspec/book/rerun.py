"""Rerun a chapter with other parameters through papermill (``attnspec rerun``).

The values are checked against the chapter's declaration before a kernel starts. The executed
copy is written next to nothing else: first to a temporary file, renamed into place only when
every cell ran, so a failed run leaves nothing half-written behind.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from attnspec.book.parameters import ParameterError, check_values

__all__ = ["find_book_root", "resolve_chapter", "rerun_chapter", "output_name"]


def find_book_root(start=None):
    """Return the nearest folder at or above ``start`` that holds ``_toc.yml`` and ``chapters/``."""
    here = Path(start or os.getcwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "_toc.yml").is_file() and (folder / "chapters").is_dir():
            return folder
    raise FileNotFoundError(f"no book found at or above {here}: expected a folder with "
                            "_toc.yml and chapters/ (run from the repository)")


def resolve_chapter(name, book_root):
    """Find a chapter by its file stem (``03_single_head_theorem``), number (``03``) or slug."""
    chapters = sorted(p for p in (Path(book_root) / "chapters").glob("*.ipynb"))
    stem = Path(name).stem
    matches = [p for p in chapters
               if stem in (p.stem, p.stem.split("_", 1)[0], p.stem.split("_", 1)[-1])]
    if len(matches) != 1:
        listed = "\n  ".join(p.stem for p in chapters)
        raise ParameterError(f"chapter must name one notebook in chapters/; got chapter={name!r}."
                             f"\nThe chapters are:\n  {listed}")
    return matches[0]


def output_name(stem, values):
    """``03_x`` + ``{'beta': 1.5}`` → ``03_x__beta=1.5.ipynb`` (safe characters only)."""
    parts = [f"{k}={v}" for k, v in sorted(values.items())]
    tail = re.sub(r"[^A-Za-z0-9_.=,+-]", "", "__".join(parts).replace(" ", ""))
    return f"{stem}__{tail}.ipynb" if tail else f"{stem}.ipynb"


def rerun_chapter(chapter, values=None, *, book_root=None, output_dir=None, quick=False,
                  progress_bar=False):
    """Execute ``chapter`` with ``values`` overriding its defaults; return the output path.

    Parameters
    ----------
    chapter : str
        File stem, number or slug of a notebook in ``chapters/``.
    values : dict, optional
        Parameter values (already parsed); checked against ``attnspec.book.chapters``.
    book_root, output_dir : path-like, optional
        The repository (found from the working directory by default) and where the executed
        copy goes (``_build/reruns`` by default).
    quick : bool
        Start from the chapter's small test sizes (explicit ``values`` still win).
    """
    from attnspec.book.chapters import CHAPTERS

    root = find_book_root(book_root)
    path = resolve_chapter(chapter, root)
    if path.stem not in CHAPTERS:
        raise ParameterError(f"chapter {path.stem} has no entry in attnspec.book.chapters")
    merged = dict(CHAPTERS[path.stem].quick) if quick else {}
    merged.update(values or {})
    checked = check_values(path.stem, merged)

    import papermill  # imported late: checking parameters must not wait for it

    out_dir = Path(output_dir or root / "_build" / "reruns")
    out_dir.mkdir(parents=True, exist_ok=True)
    final = out_dir / output_name(path.stem, checked)
    partial = final.with_name(final.stem + ".partial.ipynb")
    try:
        papermill.execute_notebook(str(path), str(partial), parameters=checked,
                                   cwd=str(path.parent), kernel_name="python3",
                                   progress_bar=progress_bar, log_output=False)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    os.replace(partial, final)
    return final
