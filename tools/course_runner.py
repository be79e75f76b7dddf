"""Execute one submitted problem sheet and write the values it defines (run *inside* the sandbox).

``tools/grade_course.py`` runs this under bubblewrap, in the submission's own folder, with the
time limit outside. It executes ``submission.ipynb`` top to bottom (errors do not stop it: a
later part still counts), saves the executed copy as ``executed.ipynb``, then asks the kernel
for the named answers and writes them as plain JSON (numbers, strings, lists; arrays as lists)
to ``answers.json``. Nothing else crosses back to the grader: the tests run outside, on that
JSON, so the submission never sees them.

Usage (inside the sandbox)::

    python course_runner.py submission.ipynb NAME [NAME ...]
"""

from __future__ import annotations

import json
import sys

import nbformat
from nbclient import NotebookClient

from attnspec.book.kernel import IPCKernelManager

DUMP = """
def _attnspec_plain(value):
    import numpy
    if isinstance(value, numpy.ndarray):
        return value.tolist()
    if isinstance(value, numpy.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_attnspec_plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)
import json as _attnspec_json
print(_attnspec_json.dumps({_n: _attnspec_plain(globals()[_n]) for _n in %r if _n in globals()}))
"""


def main(argv=None):
    notebook, *names = argv if argv is not None else sys.argv[1:]
    nb = nbformat.read(notebook, as_version=4)
    dump = nbformat.v4.new_code_cell(DUMP % (names,))
    nb.cells.append(dump)
    client = NotebookClient(nb, kernel_name="python3", allow_errors=True, timeout=None,
                            kernel_manager_class=IPCKernelManager, resources={"metadata": {}})
    client.execute()
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.output_type == "stream")
    nb.cells.pop()
    nbformat.write(nb, "executed.ipynb")
    lines = text.strip().splitlines()
    with open("answers.json", "w") as out:
        out.write(lines[-1] if lines else "{}")


if __name__ == "__main__":
    main()
