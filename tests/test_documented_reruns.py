"""Every rerun example the documentation shows passes the chapter's parameter check.

The examples (``make rerun CHAPTER=03 PARAMS="..."`` and ``attnspec rerun 03 ...``) are read
from README.md, docs/*.md, chapters/*.md, the Makefile and the command line's own source, and
each is parsed as ``attnspec rerun`` parses it (:func:`split_assignments`, then
:func:`parse_assignments` against the chapter's declared parameters), so an example naming a
parameter the chapter does not have, or a value out of range, fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attnspec.book.chapters import CHAPTERS, parse_assignments, split_assignments

ROOT = Path(__file__).resolve().parents[1]
SOURCES = (["README.md", "Makefile", "lib/attnspec/book/cli.py"]
           + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))
           + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "chapters").glob("*.md")))
MAKE = re.compile(r'make rerun CHAPTER=(\d+)\s+PARAMS="([^"]*)"')
# a pair may be quoted for the shell (zsh expands an unquoted [1.5]); the quotes are the shell's
CLI = re.compile(r"attnspec rerun (\d+)((?:\s+(?:--quick|\"?[A-Za-z_]\w*=[^\s`'\"]+\"?))*)")
HELP = re.compile(r'e\.g\. for chapter (\d+): ([^"]*)"')   # the `rerun --help` text


def _examples():
    found = []
    for source in SOURCES:
        text = (ROOT / source).read_text(encoding="utf-8")
        for number, params in MAKE.findall(text):
            found.append((source, number, params))
        for pattern in (CLI, HELP):
            found += [(source, number, params) for number, params in pattern.findall(text)]
    return found


EXAMPLES = _examples()
SHELL_QUOTED = {source for source in SOURCES if source.endswith(".md")}


def _chapter(number):
    matches = [name for name in CHAPTERS if int(name[:2]) == int(number)]
    assert len(matches) == 1, f"no chapter {number} in the registry"
    return matches[0]


def test_the_documentation_has_rerun_examples():
    """The patterns still find the examples (else the check below would pass vacuously)."""
    sources = {source for source, _, _ in EXAMPLES}
    assert {"README.md", "Makefile", "chapters/A2_reproduction.md",
            "chapters/A3_api.md", "lib/attnspec/book/cli.py"} <= sources
    assert len(EXAMPLES) >= 30


@pytest.mark.parametrize(("source", "number", "params"), EXAMPLES,
                         ids=[f"{s}:{n}:{p}" for s, n, p in EXAMPLES])
def test_documented_rerun_example_passes_the_parameter_check(source, number, params):
    if source in SHELL_QUOTED:
        params = params.replace('"', "")
    items = [item for item in split_assignments(params) if item != "--quick"]
    parse_assignments(_chapter(number), items)   # raises ParameterError for a bad example


def test_a_bad_example_would_fail():
    """The check is not vacuous: chapter 3 has ``betas``, not ``beta``."""
    from attnspec.book.parameters import ParameterError

    with pytest.raises(ParameterError, match="betas"):
        parse_assignments(_chapter("03"), split_assignments("beta=1.5 ell=500"))
