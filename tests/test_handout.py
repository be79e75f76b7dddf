"""The handout zip (tools/build_handout.py) and the chapters' install cell, in a fresh venv.

One fresh virtual environment serves both checks (its cost is paid once): it sees the shared
environment's packages (numpy, ipykernel, papermill, myst-nb...) through a folder of symlinks
that leaves out attnspec, so ``import attnspec`` fails there, as in Colab; nothing is downloaded.
The handout's notebooks are plain Jupyter: no MyST role, directive, target, label or glue is
left in them (tests/test_handout_viewers.py checks what nbconvert and JupyterLab show of them).
A chapter notebook taken
from the handout then runs in it with papermill at its quick sizes, its
first cell pointed (``ATTNSPEC_INSTALL``) at the wheel inside the handout. The run proves that
the install cell installs the library where it is missing, and that the handout's wheel and
notebooks work together.
"""

import json
import os
import re
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import nbformat
import pytest
from helpers import ROOT, load_tool, raw_myst, unavailable

handout = load_tool("build_handout")
resolve = load_tool("resolve_myst")
CHAPTER = "01_attention_as_a_random_matrix"


def _quick_parameters(stem):
    from attnspec.book.chapters import CHAPTERS

    return dict(CHAPTERS[stem].quick)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The handout zip, unpacked (it needs the book's build: `make book`)."""
    try:
        resolve.book_build(ROOT)
    except resolve.BookMissing as exc:
        unavailable(str(exc))
    out = tmp_path_factory.mktemp("handout")
    path = handout.build(ROOT, out)
    unpacked = out / "unpacked"
    with zipfile.ZipFile(path) as zf:
        zf.extractall(unpacked)
        names = zf.namelist()
    return path, unpacked, names


def _shared_site_packages():
    return Path(sysconfig.get_paths()["purelib"])


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory):
    """A new venv without attnspec that reuses the shared packages (no download)."""
    base = tmp_path_factory.mktemp("fresh")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = Path(subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True).stdout.strip())
    farm = base / "shared"
    farm.mkdir()
    for entry in _shared_site_packages().iterdir():
        name = entry.name.lower()
        if "attnspec" in name or name.endswith(".pth"):
            continue  # the editable attnspec (and its path hooks) stays out
        (farm / entry.name).symlink_to(entry)
    (purelib / "shared-packages.pth").write_text(str(farm) + "\n")
    kernel = venv / "share" / "jupyter" / "kernels" / "fresh"
    kernel.mkdir(parents=True)
    (kernel / "kernel.json").write_text(json.dumps({
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "fresh venv", "language": "python"}))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return python, purelib, env


@pytest.mark.slow
def test_handout_holds_notebooks_wheel_and_readme_and_no_solution(built):
    path, unpacked, names = built
    version = load_tool("normalize_chapters").book_version(ROOT)
    assert path.name == f"attnspec-handout-{version}.zip"
    assert f"attnspec-{version}-py3-none-any.whl" in names
    assert "README.md" in names
    chapters = sorted(p.name for p in (ROOT / "chapters").glob("*.ipynb"))
    assert sorted(n.removeprefix("notebooks/") for n in names
                  if n.startswith("notebooks/")) == chapters
    assert not any("course_guide" in n for n in names)
    readme = (unpacked / "README.md").read_text()
    assert f'pip install "attnspec-{version}-py3-none-any.whl[pretrained]"' in readme  # chapter 9
    assert len(readme.splitlines()) < 60
    for name in chapters:
        nb = nbformat.read(unpacked / "notebooks" / name, as_version=4)
        text = "\n".join(c.source for c in nb.cells)
        assert "{solution" not in text, name
        assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), name


@pytest.mark.slow
def test_install_cell_installs_the_library_in_a_fresh_venv(built, fresh_venv):
    """Papermill runs a handout chapter where attnspec is missing; its first cell installs
    the handout's wheel (ATTNSPEC_INSTALL), and the chapter runs to the end."""
    _, unpacked, names = built
    python, purelib, env = fresh_venv
    probe = subprocess.run([str(python), "-c", "import attnspec"], env=env,
                           capture_output=True, text=True)
    assert probe.returncode != 0 and "No module named 'attnspec'" in probe.stderr
    (wheel,) = [n for n in names if n.endswith(".whl")]
    env = dict(env, ATTNSPEC_INSTALL=str(unpacked / wheel), OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1", MPLBACKEND="Agg")
    notebooks = unpacked / "notebooks"
    out = notebooks / "executed.ipynb"
    run = subprocess.run(
        [str(python), "-m", "papermill", "-k", "fresh", "--cwd", str(notebooks),
         "-y", json.dumps(_quick_parameters(CHAPTER)), str(notebooks / f"{CHAPTER}.ipynb"),
         str(out)], env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    installed = subprocess.run(
        [str(python), "-c", "import attnspec; print(attnspec.__file__)"], env=env,
        check=True, capture_output=True, text=True).stdout.strip()
    assert Path(installed).is_relative_to(purelib)
    nb = nbformat.read(out, as_version=4)
    assert nb.cells[0].metadata["tags"][0] == "install-attnspec"
    assert any(o.get("output_type") == "display_data" for c in nb.cells
               if c.cell_type == "code" for o in c.outputs)


def test_handout_notebooks_are_plain_jupyter(built):
    """Every MyST construct is resolved: numbers, references, citations, boxes, hidden cells."""
    _, unpacked, _ = built
    for path in sorted((unpacked / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        markdown = "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        assert not raw_myst(markdown), (path.name, raw_myst(markdown))
        number = int(path.name[:2])
        assert markdown.startswith(f"# {number}. "), path.name        # numbered as the book
        assert f"**Figure {number}.1.**" in markdown, path.name        # captions
        assert not any("mystnb" in c.metadata for c in nb.cells), path.name
        install = nb.cells[0]
        assert install.metadata["jupyter"] == {"outputs_hidden": True, "source_hidden": True}
    chapter3 = nbformat.read(unpacked / "notebooks" / "03_single_head_theorem.ipynb",
                             as_version=4)
    text = "\n".join(c.source for c in chapter3.cells if c.cell_type == "markdown")
    assert "> **Theorem 3.1 (Gaussian equivalence for self-attention).**" in text
    assert "Hayase et al. (2025)" in text and "#### Exercise 3.1" in text
    assert re.search(r"\\tag\{3\.\d\}", text) and "## References" in text
