"""Rerun a chapter with other parameters through papermill (``attnspec rerun``).

The values are checked against the chapter's declaration before a kernel starts. The executed
copy is written next to nothing else: first to a temporary file, renamed into place only when
every cell ran, so a failed run leaves nothing half-written behind. SIGTERM (a job scheduler, a
closed terminal) and SIGINT (Ctrl-C) during a run remove the partial copy and stop every child
process (the kernel and the chapter's sweep workers) before :class:`RerunInterrupted` is raised.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import threading
from pathlib import Path

from attnspec.book.chapters import CHAPTERS, check_values
from attnspec.book.kernel import IPCKernelManager
from attnspec.book.parameters import ParameterError

__all__ = ["find_book_root", "resolve_chapter", "rerun_chapter", "output_name", "page_of",
           "RerunInterrupted"]

#: Signals that stop a rerun cleanly (the CLI exits with 128 + the signal's number), a job
#: scheduler's SIGTERM, Ctrl-C's SIGINT and a closed terminal's SIGHUP.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class RerunInterrupted(Exception):
    """A rerun stopped by a signal; its partial output and child processes are gone."""

    def __init__(self, signum):
        self.signum = int(signum)
        super().__init__(f"interrupted by {signal.Signals(signum).name}")


class _StopSignal(KeyboardInterrupt):
    """What the stop-signal handler raises: a KeyboardInterrupt, because asyncio (papermill's
    event loop) lets only KeyboardInterrupt and SystemExit out of a callback or a background
    task; any other exception raised there, as the handler's may be, is logged and dropped,
    and the run then fails on the killed kernel instead of stopping. Turned into
    :class:`RerunInterrupted` once out of papermill."""

    def __init__(self, signum):
        self.signum = int(signum)
        super().__init__(signum)


@contextlib.contextmanager
def _stop_signals(action):
    """Within the block, the stop signals run ``action`` (main thread only; elsewhere no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, action) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _stop_child_processes(timeout=5.0):
    """Kill every descendant of this process (the kernel and its sweep workers) and reap them.

    SIGKILL, not SIGTERM: a kernel told to terminate mid-cell prints a traceback of the
    interrupted reply, and there is nothing in it worth saving.
    """
    import psutil

    children = psutil.Process().children(recursive=True)   # listed before any parent dies
    for child in children:
        with contextlib.suppress(psutil.NoSuchProcess):
            child.kill()
    psutil.wait_procs(children, timeout=timeout)


def find_book_root(start=None):
    """Return the nearest folder at or above ``start`` that holds ``_toc.yml`` and ``chapters/``."""
    here = Path(start or os.getcwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "_toc.yml").is_file() and (folder / "chapters").is_dir():
            return folder
    raise FileNotFoundError(f"no book found at or above {here}: expected a folder with "
                            "_toc.yml and chapters/ (run from the repository)")


def resolve_chapter(name, book_root):
    """Find a chapter by its number as the book shows it (``3``, ``03``), its file stem
    (``03_single_head_theorem``), its slug, or a fragment of its name found in one chapter
    only (``threshold``).

    Raises :class:`ParameterError` listing the chapters when ``name`` matches none or several.
    """
    chapters = sorted(p for p in (Path(book_root) / "chapters").glob("*.ipynb"))
    text = Path(str(name).strip()).stem
    if re.fullmatch(r"[0-9]{1,2}", text):
        matches = [p for p in chapters if _number(p) == int(text)]
    else:
        exact = [p for p in chapters if text in (p.stem, p.stem.split("_", 1)[-1])]
        matches = exact or [p for p in chapters if text and text.lower() in p.stem.lower()]
    if len(matches) != 1:
        listed = "\n  ".join(f"{_number(p)}  {p.stem}" for p in chapters)
        found = (f"it matches {', '.join(p.stem for p in matches)}" if matches
                 else "it matches no chapter")
        raise ParameterError(f"chapter must be a chapter's number (3 or 03), file name or a "
                             f"fragment of one chapter's name; got chapter={name!r}: {found}."
                             f"\nThe chapters are:\n  {listed}")
    return matches[0]


def _number(path):
    """The chapter number the book shows, read from the file name (``03_x`` → 3)."""
    return int(path.stem.split("_", 1)[0])


def output_name(stem, values):
    """``03_x`` + ``{'beta': 1.5}`` → ``03_x__beta=1.5.ipynb`` (safe characters only)."""
    parts = [f"{k}={v}" for k, v in sorted(values.items())]
    tail = re.sub(r"[^A-Za-z0-9_.=,+-]", "", "__".join(parts).replace(" ", ""))
    return f"{stem}__{tail}.ipynb" if tail else f"{stem}.ipynb"


def page_of(notebook):
    """The page of a rerun's executed notebook ``03_x__ell=500.ipynb``: the chapter's HTML in
    the folder ``03_x__ell=500/`` beside it (built by ``attnspec.book.rerun_page``)."""
    notebook = Path(notebook)
    return notebook.with_suffix("") / "chapters" / f"{notebook.stem.split('__', 1)[0]}.html"


def rerun_chapter(chapter, values=None, *, book_root=None, output_dir=None, quick=False,
                  progress_bar=False):
    """Execute ``chapter`` with ``values`` overriding its defaults; return the output path.

    The executed notebook is then built into the book's HTML, in a folder beside it
    (:func:`page_of`, built by ``attnspec.book.rerun_page``).

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

    Raises
    ------
    attnspec.book.rerun_page.PageBuildError
        If the executed chapter could not be built into HTML (the notebook is kept).
    RerunInterrupted
        On SIGTERM or SIGINT during the run, after the partial copy is removed and every
        child process (kernel, sweep workers) is stopped.
    """
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
        with _stop_signals(_raise_interrupted):
            papermill.execute_notebook(str(path), str(partial), parameters=checked,
                                       cwd=str(path.parent), kernel_name="python3",
                                       progress_bar=progress_bar, log_output=False,
                                       kernel_manager_class=IPCKernelManager)
            os.replace(partial, final)
    except BaseException as exc:
        with _stop_signals(signal.SIG_IGN):   # a second signal must not cut the clean-up short
            if isinstance(exc, KeyboardInterrupt):   # a stop signal or Ctrl-C
                _stop_child_processes()
            partial.unlink(missing_ok=True)
        if isinstance(exc, KeyboardInterrupt):      # a signal (_StopSignal) or Ctrl-C
            raise RerunInterrupted(getattr(exc, "signum", signal.SIGINT)) from None
        raise
    from attnspec.book.rerun_page import write_page

    write_page(final, final.with_suffix(""), book_root=root, stem=path.stem,
               parameters=checked, chapter_number=_number(path))
    return final


def _raise_interrupted(signum, frame):
    """Stop the kernel and its workers first (before papermill's clean-up talks to a kernel
    that is mid-cell and would print a traceback), then unwind."""
    signal.signal(signum, signal.SIG_IGN)
    _stop_child_processes()
    raise _StopSignal(signum)
