"""The examples in the library's docstrings run and print what they show (doctest).

Every module of the installed package is imported by name (``__main__`` excepted: importing it
runs the command line), so ``make test`` checks the examples of the code readers get.
"""

import doctest
import importlib
import pkgutil

import pytest

import attnspec

MODULES = sorted(m.name for m in pkgutil.walk_packages(attnspec.__path__, "attnspec.")
                 if not m.name.endswith("__main__"))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    """Each module's examples pass (NumPy 2 scalar reprs are written as the examples show)."""
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                             verbose=False, report=True)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_the_library_has_examples():
    """The doctests are not vacuous: the package carries dozens of examples."""
    finder = doctest.DocTestFinder()
    examples = sum(len(test.examples)
                   for name in MODULES
                   for test in finder.find(importlib.import_module(name)))
    assert examples >= 30
