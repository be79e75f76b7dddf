"""Every chapter is wired for papermill and nbval, and reruns at small sizes.

Structure checks are instant; the papermill reruns execute each chapter at its ``quick`` sizes
(declared in attnspec.book.chapters), so each chapter is exercised off its defaults too.
"""

import ast
from pathlib import Path

import pytest

from attnspec.book.chapters import CHAPTERS, check_values
from attnspec.book.rerun import page_of, rerun_chapter

from helpers import ROOT, load_tool, parameter_defaults, read_nb, tagged

NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb"))
IDS = [p.stem for p in NOTEBOOKS]


def test_every_chapter_is_declared_and_every_declaration_has_a_chapter():
    """attnspec.book.chapters and chapters/*.ipynb name the same chapters."""
    assert sorted(CHAPTERS) == IDS


def test_every_chapter_is_in_the_table_of_contents():
    """No executable chapter is left out of the book."""
    toc = (ROOT / "_toc.yml").read_text()
    assert [stem for stem in IDS if f"chapters/{stem}" not in toc] == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_parameters_cell_matches_the_declaration(path):
    """One parameters cell; its names are the declared ones and its defaults pass the check."""
    nb = read_nb(path)
    assert len(tagged(nb, "parameters")) == 1
    defaults = parameter_defaults(nb)
    assert sorted(defaults) == sorted(CHAPTERS[path.stem].parameters)
    check_values(path.stem, defaults, require_all=True)
    check_values(path.stem, {**defaults, **CHAPTERS[path.stem].quick}, require_all=True)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_papermill_reads_every_parameter(path, recwarn):
    """papermill's own parser understands the parameters cell (no '=' inside comments)."""
    import papermill

    found = papermill.inspect_notebook(str(path))
    assert sorted(found) == sorted(CHAPTERS[path.stem].parameters)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_parameters_are_checked_right_after_the_parameters_cell(path):
    """The cell after the parameters cell calls check_parameters with the chapter's own name."""
    nb = read_nb(path)
    index = nb.cells.index(tagged(nb, "parameters")[0])
    following = next(c for c in nb.cells[index + 1:] if c.cell_type == "code")
    assert f'check_parameters("{path.stem}", globals())' in following.source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_only_checked_cells_keep_outputs(path):
    """Stored outputs are stripped, except the nbval-check-output cells (the baseline)."""
    nb = read_nb(path)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    checked = tagged(nb, load_tool("record_baseline").CHECK)
    assert checked, "at least one cell guards a key number"
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if cell in checked:
            assert cell.outputs, "a checked cell needs its baseline output (make baseline)"
            assert all(map(load_tool("record_baseline").is_checkable, cell.outputs)), \
                "checked cells print text (or glue) only"
        else:
            assert cell.outputs == [], "strip outputs of unchecked cells (make baseline)"


@pytest.mark.book
@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_chapter_reruns_at_small_sizes(path, tmp_path):
    """papermill executes the chapter at its quick sizes, and the output notebook is complete."""
    out = rerun_chapter(path.stem, quick=True, output_dir=tmp_path, book_root=ROOT)
    nb = read_nb(out)
    assert out.parent == tmp_path and not list(tmp_path.glob("*.partial.ipynb"))
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.output_type == "error"]
    assert errors == []
    injected = tagged(nb, "injected-parameters")
    assert len(injected) == 1
    assigned = {node.targets[0].id: ast.literal_eval(node.value)
                for node in ast.parse(injected[0].source).body if isinstance(node, ast.Assign)}
    for name, value in CHAPTERS[path.stem].quick.items():   # values, not their spelling
        assert assigned.get(name) == value, (name, injected[0].source)
    page = page_of(out)   # the rerun's page (book.rerun_page), built strictly
    assert "{glue" not in page.read_text()
    assert 'class="caption-number">Fig. ' in page.read_text()
    assert list((page.parent.parent / "_images").glob("*.svg"))    # the book's figures


def test_a_failing_rerun_leaves_nothing_behind(tmp_path, monkeypatch):
    """If execution fails, no (partial) output notebook is left in the output folder."""
    import papermill

    def boom(input_path, output_path, **kwargs):
        Path(output_path).write_text("half")
        raise RuntimeError("kernel died")

    monkeypatch.setattr(papermill, "execute_notebook", boom)
    with pytest.raises(RuntimeError, match="kernel died"):
        rerun_chapter(IDS[0], quick=True, output_dir=tmp_path, book_root=ROOT)
    assert list(tmp_path.iterdir()) == []
