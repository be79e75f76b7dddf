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


def notes_length(doc):
    """Lines of a numpydoc docstring's Notes section (blank lines inside it included), 0 if
    it has none: from the line after its underline to the next section heading or the end."""
    lines = inspect.cleandoc(doc).splitlines()
    for i in range(len(lines) - 1):
        if lines[i] == "Notes" and lines[i + 1].startswith("---"):
            body = lines[i + 2:]
            end = next((j for j in range(len(body) - 1) if body[j] and body[j][0] != " "
                        and body[j + 1].startswith("---")), len(body))
            return len("\n".join(body[:end]).rstrip().splitlines())
    return 0


def test_notes_length_counts_a_section_up_to_the_next():
    doc = "Summary.\n\nNotes\n-----\nOne.\n\nTwo.\n\nExamples\n--------\n>>> 1\n1\n"
    assert notes_length(doc) == 3 and notes_length("Summary.") == 0
    assert notes_length("S.\n\nNotes\n-----\n" + "x\n" * 20) == 20


def test_public_notes_are_short():
    """Issue 24: a public docstring's Notes section holds at most 15 lines; algorithm
    narratives live in the book's appendices (A1, A3), which the Notes point to. Every
    public module, class, function, method and property of a public module."""
    too_long = []
    for info in pkgutil.walk_packages(attnspec.__path__, "attnspec."):
        if info.name.endswith("__main__") or "._" in info.name:
            continue
        module = importlib.import_module(info.name)
        objects = {info.name: module}
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(obj) or inspect.isclass(obj):
                objects[f"{info.name}.{name}"] = obj
            if inspect.isclass(obj):
                objects.update((f"{info.name}.{name}.{member}", value)
                               for member, value in vars(obj).items()
                               if not member.startswith("_") and
                               (inspect.isfunction(value) or isinstance(value, property)))
        too_long += [f"{where}: {notes_length(obj.__doc__ or '')} lines"
                     for where, obj in objects.items() if notes_length(obj.__doc__ or "") > 15]
    assert too_long == []


def test_public_attribute_comments_render_as_written():
    """A3 renders the ``#:`` comments of module constants with napoleon, which reads a first
    line holding a colon followed by text as "type: description" and prints the two halves
    in the wrong order (A3 once showed BETA_MAX that way). Every public constant's comment,
    parsed by napoleon as the book configures it, yields no ``:type:`` field."""
    from sphinx.ext.napoleon import Config
    from sphinx.ext.napoleon.docstring import NumpyDocstring
    from sphinx.pycode import ModuleAnalyzer

    config = Config(napoleon_numpy_docstring=True, napoleon_google_docstring=False)
    checked, scrambled = 0, []
    for info in pkgutil.walk_packages(attnspec.__path__, "attnspec."):
        if info.name.endswith("__main__"):
            continue
        for (scope, name), lines in ModuleAnalyzer.for_module(info.name).find_attr_docs().items():
            if name.startswith("_") or scope.startswith("_"):
                continue
            checked += 1
            if ":type:" in str(NumpyDocstring(list(lines), config, what="data", name=name)):
                scrambled.append(f"{info.name}.{name}")
    assert checked > 20 and scrambled == []


def test_napoleon_would_catch_a_colon_in_a_comment():
    from sphinx.ext.napoleon import Config
    from sphinx.ext.napoleon.docstring import NumpyDocstring
    config = Config(napoleon_numpy_docstring=True, napoleon_google_docstring=False)
    assert ":type:" in str(NumpyDocstring(["Domain: 0 < b."], config, what="data", name="X"))
    assert ":type:" not in str(NumpyDocstring(["Domain 0 < b."], config, what="data", name="X"))
