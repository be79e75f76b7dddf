"""Shared by the test files: the repository root and loading the scripts in tools/."""

import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI", "").lower() == "true"


def unavailable(reason):
    """Skip a test whose tool (a built book, Chromium, poppler) is missing; in CI, fail."""
    import pytest

    if IN_CI:
        pytest.fail(f"{reason} (required in CI)")
    pytest.skip(reason)


def load_tool(name):
    """Import ``tools/<name>.py`` (scripts, not a package) as module ``_tools_<name>``."""
    key = f"_tools_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, ROOT / "tools" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


def read_nb(path):
    """A notebook, as nbformat version 4."""
    import nbformat

    return nbformat.read(path, as_version=4)


def tagged(nb, tag):
    """The cells of ``nb`` that carry ``tag``."""
    return [c for c in nb.cells if tag in c.metadata.get("tags", [])]


def parameter_defaults(nb):
    """``{name: value}`` of the notebook's one ``parameters`` cell (plain assignments only)."""
    import ast

    (cell,) = tagged(nb, "parameters")
    values = {}
    for node in ast.parse(cell.source).body:
        assert isinstance(node, ast.Assign), "parameters cell holds plain assignments only"
        (target,) = node.targets
        values[target.id] = ast.literal_eval(node.value)
    return values
