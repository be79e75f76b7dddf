"""`make book` re-executes the chapters when lib/ or the pins change, and only then; with
`--jobs N` it executes them N at a time into the cache the build reads."""

import nbformat
import pytest
from helpers import ROOT, load_tool
from jupyter_cache import get_cache


def _build_book():
    return load_tool("build_book")


def _fake_book(tmp_path):
    (tmp_path / "lib" / "pkg").mkdir(parents=True)
    (tmp_path / "lib" / "pkg" / "mod.py").write_text("x = 1\n")
    (tmp_path / "requirements.txt").write_text("numpy==2.4.6\n")
    return tmp_path


def test_hash_changes_with_a_library_source(tmp_path):
    """Editing any .py file under lib/ changes the hash (so the cache is cleared)."""
    build = _build_book()
    root = _fake_book(tmp_path)
    before = build.inputs_hash(root)
    (root / "lib" / "pkg" / "mod.py").write_text("x = 2\n")
    assert build.inputs_hash(root) != before


def test_hash_changes_with_the_pins_and_new_files(tmp_path):
    """A changed pin or a new module changes the hash too."""
    build = _build_book()
    root = _fake_book(tmp_path)
    before = build.inputs_hash(root)
    (root / "requirements.txt").write_text("numpy==2.4.7\n")
    after_pin = build.inputs_hash(root)
    (root / "lib" / "pkg" / "new.py").write_text("")
    assert len({before, after_pin, build.inputs_hash(root)}) == 3


def test_hash_ignores_files_the_outputs_do_not_depend_on(tmp_path):
    """Chapters, caches and non-Python files do not invalidate executed outputs by themselves."""
    build = _build_book()
    root = _fake_book(tmp_path)
    before = build.inputs_hash(root)
    (root / "lib" / "pkg" / "__pycache__").mkdir()
    (root / "lib" / "pkg" / "notes.txt").write_text("hello")
    (root / "chapters").mkdir()
    (root / "chapters" / "01.ipynb").write_text("{}")
    assert build.inputs_hash(root) == before


def test_cache_is_current_only_for_the_stamped_inputs(tmp_path):
    """The stamp makes the caches current; any change to lib/ makes them stale again."""
    build = _build_book()
    root = _fake_book(tmp_path)
    assert not build.cache_is_current(root)                  # never built
    (root / "_build").mkdir()
    (root / build.CACHE_STAMP).write_text(build.inputs_hash(root))
    assert build.cache_is_current(root)
    (root / "lib" / "pkg" / "mod.py").write_text("x = 3\n")
    assert not build.cache_is_current(root)


def _notebook_book(tmp_path, cells):
    """A root with ``_config.yml`` (the book's execute settings) and one chapter per entry of
    ``cells`` (name → source of its one code cell)."""
    (tmp_path / "_config.yml").write_bytes((ROOT / "_config.yml").read_bytes())
    (tmp_path / "chapters").mkdir()
    for name, source in cells.items():
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nbformat.write(nb, tmp_path / "chapters" / f"{name}.ipynb")
    return tmp_path


@pytest.mark.slow
def test_parallel_execution_fills_the_cache_as_the_build_reads_it(tmp_path, capfd):
    """execute_chapters runs the chapters two at a time in their folder with single-threaded
    BLAS, on kernels over IPC sockets (no "running over TCP" warning on the build's stderr),
    caches the executed notebooks under the key myst-nb's cache mode looks up, reports a
    failing chapter without caching it, and executes nothing the cache already holds."""
    build = _build_book()
    log = "import os\nopen('runs.txt', 'a').write('x')\nprint(os.environ['OPENBLAS_NUM_THREADS'])"
    root = _notebook_book(tmp_path, {"a": log, "b": "print(6 * 7)", "c": "1 / 0"})
    cache_dir = tmp_path / "cache"
    failed = build.execute_chapters(2, root, cache_dir)
    assert [p.endswith("c.ipynb") for p in failed] == [True]
    assert "TCP" not in capfd.readouterr().err
    cache = get_cache(str(cache_dir))
    outputs = {}
    for name in "ab":
        nb = nbformat.read(root / "chapters" / f"{name}.ipynb", as_version=4)
        record = cache.match_cache_notebook(nb)            # KeyError if not cached
        outputs[name] = cache.get_cache_bundle(record.pk).nb.cells[0].outputs[0]["text"]
    assert outputs == {"a": "1\n", "b": "42\n"}
    assert (root / "chapters" / "runs.txt").read_text() == "x"   # ran in its folder
    with pytest.raises(KeyError):
        cache.match_cache_notebook(nbformat.read(root / "chapters" / "c.ipynb", as_version=4))
    (root / "chapters" / "c.ipynb").unlink()
    assert build.execute_chapters(2, root, cache_dir) == []
    assert (root / "chapters" / "runs.txt").read_text() == "x"   # a was not executed again


def test_jobs_must_be_a_positive_whole_number(capsys):
    """--jobs 0 is refused by name before anything is built."""
    with pytest.raises(SystemExit) as exit_info:
        _build_book().main(["--jobs", "0"])
    assert exit_info.value.code == 2
    assert "--jobs must be a whole number >= 1; got 0" in capsys.readouterr().err


def test_a_markdown_notebook_page_is_executed_and_cached_as_the_build_reads_it(tmp_path):
    """A MyST Markdown page with code cells (the explorer) is executed before the build too,
    under the key myst-nb's reader gives it; a plain Markdown page is left alone."""
    from myst_nb.core.read import read_myst_markdown_notebook

    build = _build_book()
    root = _notebook_book(tmp_path, {})
    page = root / "chapters" / "page.md"
    page.write_text("---\njupytext:\n  text_representation:\n    format_name: myst\n"
                    "kernelspec:\n  display_name: Python 3\n  language: python\n"
                    "  name: python3\n---\n\n# A page\n\n```{code-cell} python\nprint(6 * 7)\n```\n")
    (root / "chapters" / "plain.md").write_text("# Plain\n\nNo code here.\n")
    assert build.execute_chapters(1, root, tmp_path / "cache") == []
    cache = get_cache(str(tmp_path / "cache"))
    record = cache.match_cache_notebook(read_myst_markdown_notebook(page.read_text(),
                                                                    path=str(page)))
    assert cache.get_cache_bundle(record.pk).nb.cells[-1].outputs[0]["text"] == "42\n"
    assert len(cache.list_cache_records()) == 1
