"""The chapters' mechanical conventions (tools/normalize_chapters.py makes them hold).

If one of these fails after a merge, run ``.venv/bin/python tools/normalize_chapters.py`` and
commit; a code line it cannot shorten safely is listed by the script for its author.
"""

import ast
import shutil

import nbformat
import pytest
from helpers import ROOT, load_tool

norm = load_tool("normalize_chapters")
NOTEBOOKS, PAGES = norm.chapter_files(ROOT)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_code_lines_fit_the_column(path):
    """Every code line fits its box at 1280 px (no scrollbar): the limit is the tool's
    ``code_limit`` (85 characters, 82 in a ``hide-input``/``hide-cell`` cell), measured as
    described in tests/test_chapter_widths.py."""
    nb = nbformat.read(path, as_version=4)
    long = [(i, line) for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
            for line in cell.source.splitlines()
            if len(line) > norm.code_limit(cell.metadata.get("tags", []))]
    assert long == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_first_cell_installs_the_library(path):
    """The first cell is the install cell, pinned to this version and this repository."""
    nb = nbformat.read(path, as_version=4)
    first = nb.cells[0]
    assert first.cell_type == "code"
    assert norm.INSTALL_TAG in first.metadata.get("tags", [])
    assert "remove-cell" in first.metadata["tags"]
    assert first.source == norm.install_cell_source(ROOT, norm.install_extras(nb))
    assert sum(norm.INSTALL_TAG in c.metadata.get("tags", []) for c in nb.cells) == 1


def test_install_cell_pins_the_book_version_from_the_repository():
    source = norm.install_cell_source(ROOT)
    version = norm.book_version(ROOT)
    assert f"@v{version}" in source and norm.repository_url(ROOT) in source
    assert '"ATTNSPEC_INSTALL"' in source
    ast.parse(source)


def _installed_by(source, monkeypatch, wheel=None):
    """The pip command an install cell runs where ``import attnspec`` fails."""
    import subprocess
    import sys

    calls = []
    monkeypatch.setattr(subprocess, "run", lambda command, **kwargs: calls.append(command))
    monkeypatch.setitem(sys.modules, "attnspec", None)   # import attnspec raises ImportError
    if wheel:
        monkeypatch.setenv("ATTNSPEC_INSTALL", wheel)
    else:
        monkeypatch.delenv("ATTNSPEC_INSTALL", raising=False)
    with pytest.raises(ImportError):   # the final import: nothing was really installed
        exec(source, {})
    (command,) = calls
    return command[command.index("--quiet") + 1:]


def test_chapters_that_run_the_pretrained_model_install_the_pretrained_extra(monkeypatch):
    """attnspec[pretrained] (safetensors, tokenizers) where a chapter calls minilm_forward
    and the like, from the repository or from an ATTNSPEC_INSTALL wheel; elsewhere no extra."""
    extras = {path.stem: norm.install_extras(nbformat.read(path, as_version=4))
              for path in NOTEBOOKS}
    assert extras["09_trained_transformer"] == "[pretrained]"
    assert extras["01_attention_as_a_random_matrix"] == ""
    source = norm.install_cell_source(ROOT, "[pretrained]")
    book, myst = _installed_by(source, monkeypatch)
    assert book == norm.install_source(ROOT, "[pretrained]") and myst.startswith("myst-nb==")
    assert book.startswith("attnspec[pretrained] @ git+")
    wheel = "/tmp/attnspec-0.1.0-py3-none-any.whl"
    assert _installed_by(source, monkeypatch, wheel)[0] == wheel + "[pretrained]"
    assert _installed_by(norm.install_cell_source(ROOT), monkeypatch, wheel)[0] == wheel


@pytest.mark.parametrize("path", NOTEBOOKS + PAGES, ids=lambda p: p.name)
def test_no_plain_math_md_references(path):
    """'MATH.md §n' is a link to appendix A4, never plain text a reader cannot follow."""
    if path.suffix == ".ipynb":
        text = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells)
    else:
        text = path.read_text()
    assert "MATH.md §" not in text


@pytest.mark.parametrize("path", NOTEBOOKS + PAGES, ids=lambda p: p.name)
def test_no_role_inside_a_role(path):
    """A link rewritten inside an existing role would render as broken text."""
    assert "`{ref}`" not in path.read_text()


def test_specification_links_point_at_existing_anchors():
    """Every {ref}`... <spec-sN>` target is a label in the specification appendix."""
    import re

    spec = (ROOT / "chapters" / "A4_specification.md").read_text()
    labels = set(re.findall(r"^\((spec-s\d+)\)=", spec, re.M))
    used = set()
    for path in NOTEBOOKS + PAGES:
        text = path.read_text()
        used |= set(re.findall(r"<(spec-s\d+)>", text))
    assert used <= labels, used - labels


def test_rewrap_keeps_the_syntax_tree_and_shortens():
    src = ("x = dict(alpha=1, beta=2, gamma=3, delta=4, epsilon=5, zeta=6, eta=7, theta=8, "
           "iota=9, kappa=10)   # a comment that is long\n"
           "print(f\"{x['alpha']:.3f} and then a rather long piece of text that goes on and on "
           "{x['beta']}\")\n")
    new = norm.rewrap(src)
    assert ast.dump(ast.parse(new)) == ast.dump(ast.parse(src))
    assert norm.long_lines(new) == []
    assert "# a comment that is long" in new
    assert norm.rewrap(new) == new


def test_rewrap_uses_the_cell_limit():
    """A line of 84 characters fits a visible cell but is rewrapped inside a toggle."""
    src = "x = dict(alpha=1, beta=2, gamma=3, delta=4, epsilon=5, zeta=6, eta=7, theta=8, io=9)\n"
    assert norm.IN_TOGGLE < len(src.rstrip()) <= norm.VISIBLE
    assert norm.rewrap(src, norm.code_limit([])) == src
    new = norm.rewrap(src, norm.code_limit(["hide-input"]))
    assert norm.long_lines(new, norm.IN_TOGGLE) == []
    assert ast.dump(ast.parse(new)) == ast.dump(ast.parse(src))
    assert norm.code_limit(["hide-cell"]) == norm.IN_TOGGLE
    assert norm.code_limit(["nbval-check-output"]) == norm.VISIBLE


def test_rewrap_leaves_what_it_cannot_shorten_safely():
    src = 'def f():\n    """' + "word " * 25 + '"""\n'
    assert norm.rewrap(src) == src


def test_markdown_links():
    assert norm.link_markdown("see MATH.md §3.") == "see {ref}`specification §3 <spec-s3>`."
    assert norm.link_code("# MATH.md §6") == "# appendix A4 §6"
    assert (norm.link_markdown("({ref}`MATH.md §5 <specification>`, Lemma 2)")
            == "({ref}`specification §5 <spec-s5>`, Lemma 2)")
    once = norm.link_markdown("see MATH.md §2 and {ref}`MATH.md §3 <specification>`")
    assert norm.link_markdown(once) == once


def test_normalize_is_idempotent(tmp_path):
    """A second run changes nothing (the coordinator reruns it after every merge)."""
    for name in ("_config.yml", "pyproject.toml", "requirements.txt"):
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / "chapters").mkdir()
    for path in NOTEBOOKS[:2] + PAGES:
        shutil.copy(path, tmp_path / "chapters" / path.name)
    norm.main(["--root", str(tmp_path)])
    assert norm.main(["--root", str(tmp_path), "--check"]) == 0
