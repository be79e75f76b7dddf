"""Build the students' handout: one zip a teacher can hand out (``make handout``).

The zip ``_build/handout/attnspec-handout-<version>.zip`` holds

- ``notebooks/``: every chapter notebook of the student edition (exercise solutions removed by
  the same rule as ``make student``; outputs cleared, so students run them themselves) as a
  plain Jupyter notebook: every MyST construct (glued numbers, citations, cross-references,
  theorem and exercise boxes) resolved into Markdown from the book's build
  (``tools/resolve_myst.py``), so that JupyterLab, Colab and VS Code show it right. Needs a
  current ``make book``;
- ``attnspec-<version>-py3-none-any.whl``: the library, built from this checkout;
- ``README.md``: one page on installing the wheel and running the notebooks.

No solution, no teacher's guide and no grading material goes in (the test opens the zip and
checks it, then installs the wheel into a fresh virtual environment and runs a notebook).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_student import strip_notebook  # noqa: E402  (one rule for removing solutions)
from normalize_chapters import book_version, repository_url  # noqa: E402
from resolve_myst import BookMissing, book_build, plain_notebook  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

README = """\
# attnspec {version}: notebooks for students

These are the executable chapters of *Gaussian equivalence for self-attention: an executable
companion* ({url}), without the exercise solutions. The book itself (text, figures,
solutions for teachers) is online; the library is the wheel in this folder.

## Install (once)

You need Python 3.11 or newer.

```bash
python3 -m venv attnspec-env
source attnspec-env/bin/activate          # Windows: attnspec-env\\Scripts\\activate
pip install "{wheel}[pretrained]" myst-nb jupyterlab
```

`[pretrained]` adds safetensors and tokenizers, which chapter 9 needs to read the trained model;
its weights (84 MB) are fetched into your user cache on first use, or ahead of class with
`attnspec models fetch`.

## Run

```bash
jupyter lab notebooks/
```

Open a chapter and run all cells (Run > Run All Cells). Each chapter starts with a cell named
*parameters*: change a value there (for instance a smaller `ell` for a quick run) and run all
cells again. The chapter checks your values and says what is allowed when one is not.

Without installing anything: upload a notebook to Google Colab; its first cell installs the
library from the book's repository when it is missing.

From a terminal, `attnspec chapters` lists every chapter's parameters, and
`attnspec law --beta 1 --c 1` prints the numbers of a limiting law.
"""


def build_wheel(out_dir, root=ROOT):
    """Build the library's wheel from the checkout into ``out_dir``; return its path."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                        "--no-build-isolation", "--wheel-dir", scratch, str(root)],
                       check=True, cwd=scratch)
        (wheel,) = Path(scratch).glob("attnspec-*.whl")
        target = out_dir / wheel.name
        target.write_bytes(wheel.read_bytes())
    return target


def student_notebook(path, book, root=ROOT):
    """A chapter as students get it: solutions removed, MyST resolved, outputs cleared."""
    nb = strip_notebook(nbformat.read(path, as_version=4), str(path.name))
    nb = plain_notebook(nb, book, f"chapters/{Path(path).stem}", root)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb


def build(root=ROOT, out=None):
    """Write the handout zip; return its path."""
    root = Path(root)
    version = book_version(root)
    out = Path(out) if out else root / "_build" / "handout"
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"attnspec-handout-{version}.zip"
    partial = target.with_suffix(".partial")
    book = book_build(root)
    notebooks = {path.name: student_notebook(path, book, root)      # before anything is written
                 for path in sorted((root / "chapters").glob("*.ipynb"))}
    with tempfile.TemporaryDirectory() as scratch:
        wheel = build_wheel(scratch, root)
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.write(wheel, wheel.name)
            zf.writestr("README.md", README.format(version=version, url=repository_url(root),
                                                   wheel=wheel.name))
            for name, nb in notebooks.items():
                zf.writestr(f"notebooks/{name}", nbformat.writes(nb) + "\n")
    partial.replace(target)
    return target


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", default=None, help="folder (default: _build/handout)")
    args = parser.parse_args(argv)
    try:
        print(build(ROOT, args.output))
    except BookMissing as exc:
        print(f"build_handout: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
