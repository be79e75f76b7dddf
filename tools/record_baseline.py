"""Execute a chapter at its defaults and store it as the nbval baseline (``make baseline``).

Only the cells tagged ``nbval-check-output`` keep their outputs (the rounded key numbers that
`make test` compares); every other output is stripped, as is run-specific metadata, so the
notebook in git is small and reviewable. Look at the printed numbers against theory (MATH.md)
before committing a new baseline: a baseline is a claim, not a recording.

Usage: python tools/record_baseline.py 03            (number, stem or slug)
       python tools/record_baseline.py --strip-only 03  (no execution; just normalise)
"""

import argparse
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "lib"))
from attnspec.book.rerun import resolve_chapter  # noqa: E402

CHECK = "nbval-check-output"
GLUE = "application/papermill.record/"


def is_checkable(output):
    """Text that nbval compares: printed streams, results, and myst-nb glue records."""
    if output.output_type in ("stream", "execute_result"):
        return True
    return output.output_type == "display_data" and all(k.startswith(GLUE) for k in output.data)


def normalise(nb):
    """Strip outputs except checked cells; set the python3 kernelspec; drop volatile metadata."""
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python",
                                 "name": "python3"}
    nb.metadata.pop("widgets", None)
    nb.metadata.pop("papermill", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        cell.metadata.pop("papermill", None)
        if cell.cell_type != "code":
            continue
        tags = cell.metadata.get("tags", [])
        if CHECK in tags:
            cell.outputs = [o for o in cell.outputs if is_checkable(o)]
            for output in cell.outputs:
                if output.output_type == "execute_result":
                    output.data = {k: v for k, v in output.data.items() if k == "text/plain"}
                    output.metadata = {}
        else:
            cell.outputs = []
            cell.execution_count = None
    return nb


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapter")
    parser.add_argument("--strip-only", action="store_true")
    args = parser.parse_args()
    path = resolve_chapter(args.chapter, ROOT)
    nb = nbformat.read(path, as_version=4)
    if not args.strip_only:
        NotebookClient(nb, timeout=900, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute()
    nbformat.write(normalise(nb), path)
    for cell in nb.cells:
        if CHECK in cell.metadata.get("tags", []):
            for output in cell.outputs:
                print(output.get("text") or output.get("data", {}).get("text/plain", ""))
    print(f"baseline written: {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
