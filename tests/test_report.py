"""The HTML page of a rerun (attnspec.book.report) and the kernel a rerun uses (book.kernel).

A tiny notebook is executed for real by papermill on the IPC kernel manager, gluing a number, a
string and a figure with myst-nb's own ``glue``; the page must show the glued values where the
prose refers to them, embed the figure, and the kernel must not warn about TCP.
"""

import subprocess
import sys
import textwrap

import nbformat
import pytest

from attnspec.book.report import glued_values, render_markdown, write_report

NOTEBOOK_CELLS = [
    ("code", "%matplotlib inline\nimport matplotlib.pyplot as plt\n"
             "from myst_nb import glue\nvalue = 6 * 7\nglue('t-value', value, display=False)\n"
             "glue('t-text', f'{1 / 3:.3f}', display=False)\n"
             "fig, ax = plt.subplots()\nax.plot([0, 1], [1, 0])\n"
             "glue('t-fig', fig, display=False)\nplt.close(fig)\nprint('printed-output')"),
    ("markdown", "# Title\n\nThe answer is {glue:text}`t-value` and a third is "
                 "{glue:text}`t-text`, with maths $a_1 * b_2$ and a {numref}`fig-x`.\n\n"
                 "```{glue:figure} t-fig\n:name: fig-x\n\nA *line* falling.\n```\n"),
    ("code", "raise SystemExit('this cell is removed')"),
]


def _notebook():
    cells = [nbformat.v4.new_code_cell(s) if k == "code" else nbformat.v4.new_markdown_cell(s)
             for k, s in NOTEBOOK_CELLS]
    cells[2].metadata["tags"] = ["remove-cell"]
    nb = nbformat.v4.new_notebook(cells=cells[:2])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    return nb, cells[2]


SCRIPT = textwrap.dedent("""
    import sys, papermill
    from attnspec.book.kernel import IPCKernelManager
    papermill.execute_notebook(sys.argv[1], sys.argv[2], kernel_name="python3",
                               progress_bar=False, kernel_manager_class=IPCKernelManager)
""")


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    nb, removed = _notebook()
    nbformat.write(nb, folder / "in.ipynb")
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(folder / "in.ipynb"),
                          str(folder / "out.ipynb")], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    out = nbformat.read(folder / "out.ipynb", as_version=4)
    out.cells.append(removed)
    nbformat.write(out, folder / "out.ipynb")
    return folder / "out.ipynb", run.stderr


@pytest.mark.slow
def test_ipc_kernel_does_not_warn_about_tcp(executed):
    _, stderr = executed
    assert "without encryption" not in stderr
    assert "Parent appears to have exited" not in stderr


def test_glued_values_are_read_from_the_outputs(executed):
    values = glued_values(nbformat.read(executed[0], as_version=4))
    assert values["t-value"]["text/plain"] == "42"
    assert values["t-text"]["text/plain"] == "'0.333'"
    assert "image/png" in values["t-fig"]


def test_page_fills_in_glued_numbers_and_embeds_the_figure(executed, tmp_path):
    page = write_report(executed[0], tmp_path / "page.html", parameters={"ell": 120})
    text = page.read_text()
    assert "The answer is 42 and a third is 0.333" in text
    assert "{glue" not in text and "not glued" not in text
    assert text.count("data:image/png;base64,") == 1          # the glued figure, once
    assert 'alt="A line falling."' in text
    assert "<em>line</em>" in text and "printed-output" in text
    assert "$a_1 * b_2$" in text                                # maths untouched for MathJax
    assert "this cell is removed" not in text                   # remove-cell
    assert "ell = 120" in text


def test_a_missing_glue_key_is_marked_not_silently_dropped():
    html = render_markdown("Value {glue:text}`nope` here.", {})
    assert "nope: not glued" in html


def test_format_spec_of_glue_text_is_applied():
    html = render_markdown("x = {glue:text}`v:.2f`", {"v": {"text/plain": "3.14159"}})
    assert "x = 3.14" in html
