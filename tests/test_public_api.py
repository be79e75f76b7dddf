"""The public surface (issue 24): at most 40 core names at the top level, visible to type
checkers and IDEs through ``__init__.pyi``; studies as ``attnspec.experiments.<topic>``, the
book's tooling as ``attnspec.book``."""

import ast
import importlib
import tomllib

import attnspec
from helpers import ROOT

PACKAGE = ROOT / "lib" / "attnspec"
#: The layers whose names may be at the top level: samplers, laws, spectra, the Hermite
#: coefficients, sweep and the exceptions.
CORE = ("hermite", "sampling.", "spectra", "laws.", "sweeps", "_validation")


def _stub():
    """(name → module, submodules) as ``__init__.pyi`` imports them."""
    names, submodules = {}, set()
    for node in ast.parse((PACKAGE / "__init__.pyi").read_text()).body:
        if isinstance(node, ast.ImportFrom):
            assert all(alias.asname == alias.name for alias in node.names), ast.dump(node)
            if node.module is None:
                submodules |= {alias.name for alias in node.names}
            else:
                names |= {alias.name: node.module for alias in node.names}
    return names, submodules


def test_the_stub_lists_exactly_the_lazy_names():
    """What an IDE sees is what ``attnspec.X`` gives: the stub's imports are _EXPORTS and
    _SUBMODULES, name for name and module for module."""
    names, submodules = _stub()
    assert names == attnspec._EXPORTS
    assert submodules == attnspec._SUBMODULES
    assert sorted(attnspec.__all__) == sorted(names)


def test_the_top_level_is_the_core_and_at_most_40_names():
    assert len(attnspec._EXPORTS) <= 40
    outside = {n: m for n, m in attnspec._EXPORTS.items() if not m.startswith(CORE)}
    assert outside == {}
    for name, module in attnspec._EXPORTS.items():
        assert getattr(attnspec, name) is getattr(importlib.import_module(f"attnspec.{module}"),
                                                  name)


def test_studies_and_book_tooling_are_reached_through_their_packages():
    """After ``import attnspec`` alone: ``attnspec.experiments.<topic>`` for every study module,
    ``attnspec.book.check_parameters``; the names that left the top level are gone from it."""
    topics = {p.stem for p in (PACKAGE / "experiments").glob("*.py") if p.stem != "__init__"}
    assert topics <= set(dir(attnspec.experiments))
    for topic in topics:
        assert getattr(attnspec.experiments, topic).__name__ == f"attnspec.experiments.{topic}"
    from attnspec.book.chapters import check_parameters
    assert attnspec.book.check_parameters is check_parameters
    for gone in ("threshold_scales", "check_parameters", "minilm_attention", "relaxation_study"):
        assert not hasattr(attnspec, gone)


def test_the_wheel_ships_the_stub_and_the_typed_marker():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    shipped = data["tool"]["setuptools"]["package-data"]["attnspec"]
    assert {"__init__.pyi", "py.typed"} <= set(shipped)
    assert (PACKAGE / "py.typed").exists()
