"""Execute every chapter and build the HTML book strictly (``make book``).

Jupyter Book's execution cache keys on a notebook's code cells only, so a change in ``lib/``
(or in the pinned packages) would silently reuse stale outputs. This script hashes ``lib/`` and
``requirements.txt`` and clears the cache (and the sweep cache of chapter 5) when the hash
changes; then it builds with warnings as errors (``-W -n --keep-going``) on a clean Sphinx
environment (``--all``), so a chapter that raises, a broken reference or a missing citation
fails the build.
"""

import hashlib
import shutil
import subprocess
import sys
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


def main():
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
