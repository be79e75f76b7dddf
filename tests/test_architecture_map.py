"""docs/ARCHITECTURE.md against the tree: the module table lists exactly the library's modules,
and every function of the "A4 formula → its one function" table exists at the stated path
and names its section of appendix A4 (the specification, "A4 §N") in its docstring (so the page
cannot drift from the code)."""

import importlib
import re

import pytest

from helpers import ROOT

PAGE = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
LIB = ROOT / "lib" / "attnspec"


def section(title):
    """The lines of the page's section ``## title`` (up to the next ``## ``)."""
    text = PAGE.split(f"\n## {title}\n", 1)[1]
    return text.split("\n## ", 1)[0].splitlines()


def table_rows(lines):
    """The body rows of the markdown tables in ``lines``, as lists of cells."""
    return [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in lines if line.startswith("| ") and not line.startswith("|---")]


def formula_rows():
    rows = table_rows(section("A4 formula → its one function"))
    assert rows[0] == ["A4", "formula", "its one function"]
    return rows[1:]


def test_the_module_table_lists_exactly_the_modules_of_the_tree():
    listed = set()
    for cells in table_rows(section("What each package owns"))[1:]:
        listed |= set(re.findall(r"`([\w/]+\.py)`", cells[0]))
    tree = {str(path.relative_to(LIB)) for path in LIB.rglob("*.py")
            if not (path.name == "__init__.py" and path.parent != LIB)}
    assert sorted(listed - tree) == [], "listed on the page but not in lib/attnspec"
    assert sorted(tree - listed) == [], "in lib/attnspec but not on the page"


def test_the_formula_table_covers_every_section_of_the_specification():
    sections = {cells[0] for cells in formula_rows()}
    assert sections == {f"§{n}" for n in range(1, 7)}


@pytest.mark.parametrize("cells", formula_rows(), ids=lambda cells: cells[2].strip("`"))
def test_each_formula_function_exists_and_names_its_section(cells):
    where, formula, home = cells
    match = re.fullmatch(r"`([\w/]+)\.py::(\w+(?:\.\w+)*)`", home)
    assert match, f"one function per formula, as `path.py::name`; got {home!r} for {formula}"
    path, name = match.groups()
    assert (LIB / f"{path}.py").is_file(), f"{path}.py does not exist"
    obj = importlib.import_module("attnspec." + path.replace("/", "."))
    for part in name.split("."):
        obj = getattr(obj, part)
    doc = obj.__doc__ or ""
    assert "A4 §" in doc and re.search(where + r"(?!\d)", doc), \
        f"{path}.py::{name} does not name A4 {where} in its docstring"
