"""Execute every chapter and build the HTML book strictly (``make book``).

Jupyter Book's execution cache keys on a notebook's code cells only, so a change in ``lib/``
(or in the pinned packages) would silently reuse stale outputs. This script hashes ``lib/`` and
``requirements.txt`` and clears the cache (and the sweep cache of chapter 5) when the hash
changes; then it builds with warnings as errors (``-W -n --keep-going``) on a clean Sphinx
environment (``--all``), so a chapter that raises, a broken reference or a missing citation
fails the build.

Jupyter Book 1 executes one notebook at a time. With ``--jobs N`` (``make book`` passes the
number of cores) the chapters the cache lacks are first executed N at a time, each in its own
kernel with single-threaded BLAS (two kernels with multi-threaded BLAS on two cores slow each
other down many times), and stored in the cache as myst-nb's cache mode stores them; the build
then finds every chapter cached and only renders it. A chapter that fails fails the build here,
with its traceback, before Sphinx starts.
"""

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "_build"


#: Where a build records the inputs its execution cache was computed with.
CACHE_STAMP = Path("_build") / ".cache-inputs-hash"


def inputs_hash(root=ROOT):
    """SHA-256 over the library sources and the pins: what the cached outputs depend on."""
    root = Path(root)
    digest = hashlib.sha256()
    files = sorted((root / "lib").rglob("*.py")) + [root / "requirements.txt"]
    for path in files:
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes() if path.is_file() else b"")
    return digest.hexdigest()


def cache_is_current(root=ROOT):
    """True if the execution caches under ``root/_build`` were computed from today's inputs."""
    stamp = Path(root) / CACHE_STAMP
    return stamp.is_file() and stamp.read_text().strip() == inputs_hash(root)


def execution_settings(root=ROOT):
    """``(timeout, allow_errors)`` of the ``execute`` section of ``_config.yml``."""
    import yaml

    execute = yaml.safe_load((Path(root) / "_config.yml").read_text())["execute"]
    return execute["timeout"], execute["allow_errors"]


def _execute(path, timeout, allow_errors):
    """Execute one notebook in its folder (as myst-nb's cache mode does, ``run_in_temp:
    false``); returns ``(path, executed notebook, seconds, traceback or None)``."""
    import nbformat
    from jupyter_cache.executors.utils import single_nb_execution

    from attnspec.book.kernel import IPCKernelManager

    os.environ["OPENBLAS_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"] = "1"  # the kernel's
    notebook = nbformat.read(path, as_version=4)
    result = single_nb_execution(notebook, cwd=str(Path(path).parent), timeout=timeout,
                                 allow_errors=allow_errors, meta_override=True,
                                 kernel_manager_class=IPCKernelManager)  # no TCP warning
    return path, notebook, result.time, result.exc_string


def execute_chapters(jobs, root=ROOT, cache_dir=None):
    """Execute, ``jobs`` at a time, the chapter notebooks (``chapters/*.ipynb``) whose outputs
    the execution cache lacks, and store them in it as myst-nb's cache mode does (the same
    cache key: the code cells, their metadata and the kernelspec). Returns the paths of the
    chapters that failed (their tracebacks are printed); the cache keeps only successes."""
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    root = Path(root)
    cache = get_cache(str(cache_dir or root / "_build" / ".jupyter_cache"))
    todo = []
    for path in sorted((root / "chapters").glob("*.ipynb")):
        try:
            cache.match_cache_notebook(nbformat.read(path, as_version=4))
        except KeyError:
            todo.append(path)
    if not todo:
        return []
    timeout, allow_errors = execution_settings(root)
    print(f"executing {len(todo)} chapter(s), {min(jobs, len(todo))} at a time", flush=True)
    failed = []
    with ProcessPoolExecutor(max_workers=min(jobs, len(todo))) as pool:
        futures = [pool.submit(_execute, str(p), timeout, allow_errors) for p in todo]
        for future in as_completed(futures):
            path, notebook, seconds, error = future.result()
            name = Path(path).relative_to(root)
            if error is not None:
                print(f"{name}: executing the notebook FAILED\n{error}", file=sys.stderr)
                failed.append(path)
                continue
            record = cache.add_nb_to_project(path)
            cache.cache_notebook_bundle(
                CacheBundleIn(notebook, record.uri, data={"execution_seconds": seconds}),
                check_validity=False, overwrite=True)
            print(f"{name}: executed in {seconds:.0f} s", flush=True)
    return failed


def exit_status(tool, error, action):
    """Run ``action()``: 0, or 1 after printing an ``error`` it raises as "tool: message" on
    stderr (the command-line tools' one way of reporting a refusal)."""
    try:
        action()
    except error as exc:
        print(f"{tool}: {exc}", file=sys.stderr)
        return 1
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1,
                        help="chapters executed at a time before the build (default 1: the "
                             "build executes them one by one)")
    jobs = parser.parse_args(argv).jobs
    if jobs < 1:
        parser.error(f"--jobs must be a whole number >= 1; got {jobs}")
    caches = [BUILD / ".jupyter_cache", BUILD / "sweep-cache"]  # executed notebooks, sweeps
    current = inputs_hash()
    BUILD.mkdir(exist_ok=True)
    if not cache_is_current():
        for cache in caches:
            if cache.exists():
                print(f"lib/ or the pins changed since the last build: clearing {cache.name}")
                shutil.rmtree(cache)
        (ROOT / CACHE_STAMP).write_text(current)
    shutil.rmtree(BUILD / "html", ignore_errors=True)  # no stale pages from earlier builds
    if jobs > 1 and execute_chapters(jobs):
        print("book build FAILED: a chapter raised (its traceback is above)", file=sys.stderr)
        return 1
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb), "build", str(ROOT), "--all", "-W", "-n", "--keep-going", "--builder", "html"]
    result = subprocess.run(cmd, cwd=ROOT)
    if result.returncode != 0:
        print("book build FAILED (warnings are errors; see the messages above)", file=sys.stderr)
        return result.returncode
    (BUILD / "html" / ".inputs-hash").write_text(current)  # the site's provenance
    print(f"\nThe book is at {BUILD / 'html' / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
