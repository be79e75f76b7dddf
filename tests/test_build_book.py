"""`make book` re-executes the chapters when lib/ or the pins change, and only then."""

from helpers import load_tool


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
