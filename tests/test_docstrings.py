"""The shared numpydoc entries (_docstrings.py): every placeholder is filled.

Oracle: the text itself: no docstring of the public API keeps a ``%(name)s`` line, and a
filled docstring holds the entry at the placeholder's indentation.
"""

import importlib
import inspect
import pkgutil

import pytest

import attnspec
from attnspec._docstrings import DOCS, fill_docstring


def test_no_docstring_of_the_library_keeps_a_placeholder():
    modules = [importlib.import_module(info.name) for info in
               pkgutil.walk_packages(attnspec.__path__, "attnspec.")
               if not info.name.endswith("__main__")]
    assert len(modules) > 40
    for module in modules:
        for name, obj in vars(module).items():
            if (inspect.isfunction(obj) or inspect.isclass(obj)) \
                    and obj.__module__ == module.__name__ and obj is not fill_docstring:
                assert "%(" not in (obj.__doc__ or ""), f"{module.__name__}.{name}"


def test_an_entry_is_indented_as_its_placeholder():
    def f(ell):
        """Summary.

        Parameters
        ----------
        %(ell)s
        """
    fill_docstring(f)
    assert "        ell : int\n            Number of tokens" in f.__doc__
    assert inspect.getdoc(f).split("\n")[4:6] == DOCS["ell"].split("\n")


def test_an_unknown_entry_fails_at_import_time_and_no_docstring_is_left_alone():
    def g():
        """%(no_such_entry)s"""
    with pytest.raises(KeyError):
        fill_docstring(g)

    def h():
        pass
    assert fill_docstring(h) is h and h.__doc__ is None


def test_docstrings_cite_the_book_not_the_design_note():
    """Docstrings name sections of the book's appendix A4 ("A4 §3"), never MATH.md, a design
    note users do not have: every module, class and function docstring of the library."""
    modules = [importlib.import_module(info.name) for info in
               pkgutil.walk_packages(attnspec.__path__, "attnspec.")
               if not info.name.endswith("__main__")]
    offenders = [module.__name__ for module in modules if "MATH.md" in (module.__doc__ or "")]
    for module in modules:
        for name, obj in vars(module).items():
            if (inspect.isfunction(obj) or inspect.isclass(obj)) \
                    and obj.__module__ == module.__name__:
                docs = [obj.__doc__ or ""] + [getattr(member, "__doc__", None) or ""
                                              for member in vars(obj).values()
                                              if inspect.isclass(obj)]
                if any("MATH.md" in doc for doc in docs):
                    offenders.append(f"{module.__name__}.{name}")
    assert offenders == []
