"""Bring every chapter to the book's mechanical conventions (idempotent; run after any merge).

Usage::

    .venv/bin/python tools/normalize_chapters.py          # rewrite chapters/ in place
    .venv/bin/python tools/normalize_chapters.py --check  # exit 1 if anything would change

What it does, and only this (tests/test_chapter_sources.py enforces the result):

1. **Install cell.** The first cell of every notebook in ``chapters/`` installs the library when
   ``import attnspec`` fails (Colab, a bare Jupyter), pinned to the book's version (``v`` +
   ``pyproject.toml``'s version, a git tag) from the repository set in ``_config.yml``. The
   environment variable ``ATTNSPEC_INSTALL`` replaces that source (a wheel, a checkout) for
   tests and offline classrooms. A chapter that runs the pretrained model (its code calls
   ``minilm_forward``, ``minilm_attention``, ...) installs ``attnspec[pretrained]``
   (safetensors, tokenizers), and the same extra of an ``ATTNSPEC_INSTALL`` wheel or checkout.
   In the book build and the tests ``attnspec`` imports, so the cell does nothing; it is
   tagged ``remove-cell`` so the HTML page does not show it.
2. **Specification links.** ``MATH.md §n`` in Markdown becomes a link to section n of appendix
   A4 (label ``spec-sn``); in code (comments, strings) it becomes ``appendix A4 §n``.
3. **Code fits the column.** The limits are measured (``tests/test_chapter_widths.py``): at a
   1280-px window a code or output box shows ``VISIBLE`` = 85 characters, and 82
   (``IN_TOGGLE``) inside an opened ``hide-input`` / ``hide-cell`` toggle. Code lines longer
   than their cell's limit (``code_limit``) are rewrapped: a trailing comment of a long line
   moves above it, then black (``--line-ranges`` on the long lines only, string quotes
   untouched), then a long string literal inside brackets is split into two adjacent literals
   at a space. Every rewrite is kept only if the cell's syntax tree is unchanged (``ast.dump``
   equal), so behaviour cannot change. Lines that no safe rewrite shortens are listed, for the
   chapter's author to shorten by hand.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import sys
import tokenize
import tomllib
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parent.parent
#: characters a code or output box shows at a 1280-px window (measured; see the docstring of
#: tests/test_chapter_widths.py) ...
VISIBLE = 85
#: ... and inside an opened ``hide-input`` / ``hide-cell`` toggle
IN_TOGGLE = 82
TOGGLE_TAGS = frozenset({"hide-input", "hide-cell"})
INSTALL_TAG = "install-attnspec"
#: a call of the pretrained model's reader: the chapter needs ``attnspec[pretrained]``
PRETRAINED_READER = re.compile(r"\bminilm_(?:forward|attention|head_attention|weights)\b")
MATH_REF = re.compile(r"MATH\.md §(\d+)")
#: a MyST role whose text names "MATH.md §n" (``{ref}`MATH.md §5 <specification>```)
MATH_ROLE = re.compile(r"\{[\w:-]+\}`[^`]*?MATH\.md §(\d+)[^`]*`")


def book_version(root=ROOT):
    """The library's version, from ``pyproject.toml`` (the one place it is set)."""
    return tomllib.loads((Path(root) / "pyproject.toml").read_text())["project"]["version"]


def repository_url(root=ROOT):
    """The repository address, from ``_config.yml`` (the one place it is set)."""
    config = yaml.safe_load((Path(root) / "_config.yml").read_text())
    return config["repository"]["url"].rstrip("/")


def install_source(root=ROOT, extras=""):
    """What the install cell installs: ``attnspec<extras> @ git+<repository>@v<version>``."""
    return f"attnspec{extras} @ git+{repository_url(root)}@v{book_version(root)}"


def install_extras(nb):
    """``"[pretrained]"`` for a notebook whose code runs the pretrained model, else ``""``."""
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    return "[pretrained]" if PRETRAINED_READER.search(code) else ""


def myst_nb_pin(root=ROOT):
    """The chapters import ``myst_nb.glue``: installed with the library, at the book's pin."""
    for line in (Path(root) / "requirements.txt").read_text().splitlines():
        if line.lower().startswith("myst-nb=="):
            return line.strip()
    raise RuntimeError("requirements.txt pins no myst-nb")


def install_cell_source(root=ROOT, extras=""):
    """The source of the first cell of every chapter notebook (``extras``: of
    :func:`install_extras`)."""
    same_extras = "" if not extras else f'''
    if _source != _book:  # a wheel or a checkout: with the same extra
        _source += "{extras}"'''
    return f'''\
# Colab, Binder or a bare Jupyter: install the book's library if it is missing.
# (In the book and its tests attnspec is installed already: this cell does nothing.)
try:
    import attnspec
except ImportError:
    import importlib
    import os
    import subprocess
    import sys

    _book = "{install_source(root, extras)}"
    _source = os.environ.get("ATTNSPEC_INSTALL", _book){same_extras}
    _pip = [sys.executable, "-m", "pip", "install", "--quiet", _source]
    subprocess.run(_pip + ["{myst_nb_pin(root)}"], check=True)
    importlib.invalidate_caches()
    import attnspec
'''


def ensure_install_cell(nb, root=ROOT):
    """Make the install cell the notebook's first cell (replacing an older version of it)."""
    cells = [c for c in nb.cells if INSTALL_TAG not in c.metadata.get("tags", [])]
    cell = nbformat.v4.new_code_cell(install_cell_source(root, install_extras(nb)))
    cell.metadata["tags"] = [INSTALL_TAG, "remove-cell"]
    old = nb.cells[0] if nb.cells else None
    if old is not None and INSTALL_TAG in old.metadata.get("tags", []):
        cell.id = old.get("id", cell.id)
        if old.source == cell.source and old.metadata == cell.metadata:
            cell = old
    nb.cells = [cell] + cells


# ---------------------------------------------------------------------------------------------
# Specification links
# ---------------------------------------------------------------------------------------------

def link_markdown(text):
    """``MATH.md §3`` → a MyST reference to section 3 of the specification appendix (A4).

    A role that already links the words (``{ref}`MATH.md §3 <specification>```) is replaced
    whole, so the link goes to the section rather than to the top of the appendix.
    """
    def link(m):
        return f"{{ref}}`specification §{m[1]} <spec-s{m[1]}>`"

    return MATH_REF.sub(link, MATH_ROLE.sub(link, text))


def link_code(text):
    """In code, the plain words: ``MATH.md §3`` → ``appendix A4 §3``."""
    return MATH_REF.sub(lambda m: f"appendix A4 §{m[1]}", text)


# ---------------------------------------------------------------------------------------------
# Rewrapping code lines
# ---------------------------------------------------------------------------------------------

def _same_tree(old, new):
    try:
        return ast.dump(ast.parse(old)) == ast.dump(ast.parse(new))
    except SyntaxError:
        return False


def code_limit(tags):
    """The widest code line a cell with these tags may have (the book's one rule)."""
    return IN_TOGGLE if TOGGLE_TAGS & set(tags) else VISIBLE


def output_limit(tags):
    """The widest printed line a cell with these tags may show (``hide-cell`` and
    ``hide-output`` fold the output into a toggle)."""
    return IN_TOGGLE if {"hide-cell", "hide-output"} & set(tags) else VISIBLE


def long_lines(source, limit=VISIBLE):
    """1-based numbers of the lines longer than ``limit``."""
    return [i for i, line in enumerate(source.splitlines(), 1) if len(line) > limit]


def _black(source, limit):
    import black

    lines = long_lines(source, limit)
    if not lines:
        return source
    mode = black.Mode(line_length=limit, string_normalization=False)
    try:
        new = black.format_str(source, mode=mode, lines=[(n, n) for n in lines])
    except Exception:  # black refuses (IPython magics, syntax it cannot parse): keep as is
        return source
    if source.endswith("\n") is False:
        new = new.rstrip("\n")
    return new


def _tokens(source):
    """``(lines, tokens)`` of a cell's source; tokens None where it does not tokenize."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source + "\n").readline))
    except (tokenize.TokenError, SyntaxError):
        tokens = None
    return source.splitlines(), tokens


def _comments_above(source, limit):
    """Move a trailing comment of a long line onto its own line above it."""
    lines, tokens = _tokens(source)
    if tokens is None:
        return source
    moves = {}
    for tok in tokens:
        row, col = tok.start
        if tok.type == tokenize.COMMENT and len(lines[row - 1]) > limit:
            code = lines[row - 1][:col].rstrip()
            if code.strip():
                moves[row] = (code, tok.string)
    for row in sorted(moves, reverse=True):
        code, comment = moves[row]
        indent = code[:len(code) - len(code.lstrip())]
        lines[row - 1:row] = [indent + comment, code]
    return "\n".join(lines) + ("\n" if source.endswith("\n") else "")


def _split_point(body, room, is_f):
    """Index in ``body`` after which to split (just after a space), or None."""
    depth, best, i = 0, None, 0
    while i < len(body) and i < room:
        ch = body[i]
        if ch == "\\":
            i += 2
            continue
        if is_f and ch in "{}":
            if body[i:i + 2] in ("{{", "}}"):
                i += 2
                continue
            depth += 1 if ch == "{" else -1
        elif ch == " " and depth == 0 and 0 < i < len(body) - 1:
            best = i + 1
        i += 1
    return best


def _split_strings(source, limit):
    """Split one long string literal inside brackets into two adjacent literals at a space."""
    lines, tokens = _tokens(source)
    if tokens is None:
        return source
    depth = 0
    for tok in tokens:
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth -= 1
        if tok.type != tokenize.STRING or depth == 0 or tok.start[0] != tok.end[0]:
            continue
        row, col = tok.start
        line = lines[row - 1]
        if len(line) <= limit:
            continue
        match = re.match(r"([A-Za-z]*)('|\")", tok.string)
        if not match or tok.string.startswith(match[0] * 3) or len(tok.string) < 3:
            continue
        prefix, quote = match[1], match[2]
        if "r" in prefix.lower() and "\\" in tok.string:
            continue
        body = tok.string[len(prefix) + 1:-1]
        room = limit - col - len(prefix) - 2
        cut = _split_point(body, room, "f" in prefix.lower())
        if cut is None:
            continue
        first = f"{prefix}{quote}{body[:cut]}{quote}"
        second = f"{prefix}{quote}{body[cut:]}{quote}"
        before, after = line[:col], line[tok.end[1]:]
        lines[row - 1:row] = [before + first, " " * col + second + after]
        return "\n".join(lines) + ("\n" if source.endswith("\n") else "")
    return source


def rewrap(source, limit=VISIBLE):
    """Shorten the lines longer than ``limit`` of one code cell, keeping its syntax tree."""
    if not long_lines(source, limit):
        return source
    current = source
    for step in (_comments_above, _black):
        candidate = step(current, limit)
        if candidate != current and _same_tree(source, candidate):
            current = candidate
    for _ in range(50):  # one string at a time, each checked
        candidate = _split_strings(current, limit)
        if candidate == current or not _same_tree(source, candidate):
            break
        current = candidate
    if current != source and not _same_tree(source, current):
        return source
    return current


# ---------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------

def normalize_notebook(nb, root=ROOT):
    """Apply every rule to one notebook in place."""
    ensure_install_cell(nb, root)
    for cell in nb.cells[1:]:
        if cell.cell_type == "markdown":
            cell.source = link_markdown(cell.source)
        elif cell.cell_type == "code":
            limit = code_limit(cell.metadata.get("tags", []))
            cell.source = rewrap(link_code(cell.source), limit)


def chapter_files(root=ROOT):
    return sorted((Path(root) / "chapters").glob("*.ipynb")), \
        sorted((Path(root) / "chapters").glob("*.md"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 if a file would change")
    parser.add_argument("--root", default=str(ROOT))
    args = parser.parse_args(argv)
    root = Path(args.root)
    notebooks, pages = chapter_files(root)
    changed, still_long = [], []
    for path in notebooks:
        text = path.read_text()
        nb = nbformat.reads(text, as_version=4)
        normalize_notebook(nb, root)
        new = nbformat.writes(nb) + "\n"
        if new != text:
            changed.append(path)
            if not args.check:
                path.write_text(new)
        for index, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                limit = code_limit(cell.metadata.get("tags", []))
                still_long += [f"{path.name} cell {index} line {n} (limit {limit})"
                               for n in long_lines(cell.source, limit)]
    for path in pages:
        text = path.read_text()
        new = link_markdown(text)
        if new != text:
            changed.append(path)
            if not args.check:
                path.write_text(new)
    for path in changed:
        print(("would change " if args.check else "normalized ") + str(path.relative_to(root)))
    if still_long:
        print(f"{len(still_long)} code line(s) still longer than their cell's limit "
              "(no safe mechanical rewrap; shorten by hand):\n  " + "\n  ".join(still_long))
    return 1 if (args.check and changed) or still_long else 0


if __name__ == "__main__":
    sys.exit(main())
