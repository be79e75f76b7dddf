"""A chapter notebook as a plain Jupyter notebook: every MyST construct resolved (the handout).

JupyterLab, Colab and VS Code show MyST markup raw, so the handout's notebooks carry none. What
the book's HTML build computed is written in as text, read from that build (``make book``):
its Sphinx environment (``_build/.doctrees/environment.pickle``) for every number and title,
its executed notebooks (``_build/jupyter_execute/``) for the glued values, and
``references.bib`` (pybtex) for the citations:

- ``{glue:text}`` and ``{glue}`` → the value the build glued (formatted as asked);
- ``{cite:t}`` → "Hayase et al. (2025)", ``{cite:p}`` → "(Hayase et al., 2025)", and a
  reference list at the end;
- ``{numref}``, ``{ref}``, ``{eq}``, ``{prf:ref}``, ``{doc}`` → "Figure 3.2", "Section 3.4",
  "Exercise 3.1", "(3.3)", "Theorem 3.1", "chapter 2 (Background…)"; headings get their
  section numbers, figures (``mystnb.figure`` of a code cell) a caption cell below them;
- ``math`` directives and labelled ``$$`` blocks → ``$$`` blocks with ``\\tag{3.1}``;
- theorems, proofs, exercises and admonitions → a bold heading and the body as a quote;
- MyST targets ``(label)=`` and ``exercise-end`` go;
- the book's TeX macros (``\\E``, ``\\Tr``…, ``_config.yml``) are written out: a viewer's
  MathJax or KaTeX does not know them;
- code cells tagged ``hide-input``/``remove-input`` get ``jupyter.source_hidden``,
  ``remove-output`` ``jupyter.outputs_hidden``, ``hide-cell``/``remove-cell`` both (they still
  run: the install cell is one); a Markdown cell tagged ``remove-cell`` goes, and so do the
  cells tagged ``explorable`` (an interactive figure of the online book and its lead-in).

A role or directive this module does not know raises :class:`MystLeft`: nothing is left raw.
The handout's notebooks (``tools/build_handout.py``) and the course's problem sheets
(``tools/build_course.py``) both go through it.
"""

from __future__ import annotations

import ast
import functools
import pickle
import posixpath
import re
from pathlib import Path

import nbformat
import yaml

ROLE = re.compile(r"\{([a-z][\w:-]*)\}`([^`]+)`")
EXPLICIT = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.S)
FIGTYPE_NAMES = {"figure": "Figure", "table": "Table", "code-block": "Listing",
                 "exercise": "Exercise"}
ADMONITIONS = {"admonition", "note", "tip", "hint", "warning", "important", "seealso",
               "attention", "caution", "danger", "error"}


class MystLeft(RuntimeError):
    """A MyST construct the handout cannot resolve (it would show raw)."""


class BookMissing(RuntimeError):
    """The book's build is missing or older than the library (run ``make book``)."""


class Book:
    """What the book's HTML build knows: numbers, titles and labels (its Sphinx environment),
    and the bibliography."""

    def __init__(self, root, build=None):
        root = Path(root)
        build = Path(build) if build else root / "_build"
        with open(build / ".doctrees" / "environment.pickle", "rb") as file:
            self.env = pickle.load(file)
        self.executed = build / "jupyter_execute"
        self.bib = root / "references.bib"
        self.labels = self.env.domaindata["std"]["labels"]

    def _numbers(self, docname, node_id):
        """``(figtype, "3.2")`` of a numbered object, or ``(None, None)``."""
        for figtype, ids in self.env.toc_fignumbers.get(docname, {}).items():
            if node_id in ids:
                return figtype, ".".join(map(str, ids[node_id]))
        return None, None

    def chapter(self, docname):
        """``"chapter 2 (Title)"`` for a numbered chapter, else the page's title."""
        title = self.env.titles[docname].astext()
        number = self.env.toc_secnumbers.get(docname, {}).get("")
        return f"chapter {number[0]} ({title})" if number else title

    def reference(self, role, target, docname):
        """The text a cross-reference shows in the book (without a link)."""
        if role == "doc":
            path = target[1:] if target.startswith("/") else posixpath.normpath(
                posixpath.join(posixpath.dirname(docname), target))
            return self.chapter(path)
        if role == "eq":
            where = self.env.domaindata["math"]["objects"].get(target)
            _, number = self._numbers(where[0], f"equation-{target}") if where else (0, None)
            return f"({number})" if number else None
        if role == "prf:ref":
            proof = getattr(self.env, "proof_list", {}).get(target)
            if not proof:
                return None
            _, number = self._numbers(proof["docname"], target)
            return f"{proof['realtype'].title()} {number}"
        found = self.labels.get(target.lower())
        if not found:
            return None
        todoc, node_id, title = found
        figtype, number = self._numbers(todoc, node_id)
        if figtype:
            return f"{FIGTYPE_NAMES.get(figtype, figtype.title())} {number}"
        numbers = self.env.toc_secnumbers.get(todoc, {})
        if f"#{node_id}" in numbers:
            return f"Section {'.'.join(map(str, numbers['#' + node_id]))}"
        if title == self.env.titles[todoc].astext():
            return self.chapter(todoc)
        return title

    def headings(self, docname):
        """The section numbers of the page's headings, in reading order."""
        numbers = self.env.toc_secnumbers.get(docname, {})
        return [".".join(map(str, numbers[anchor])) for anchor in
                [""] + [f"#{ref['anchorname'][1:]}" for ref in
                        self.env.tocs[docname].findall(_reference()) if ref["anchorname"]]
                if anchor in numbers]

    def executed_notebook(self, docname):
        return nbformat.read(self.executed / f"{docname}.ipynb", as_version=4)


def book_build(root, what="the handout's notebooks"):
    """The current book build under ``root`` as a :class:`Book`; :class:`BookMissing` if there
    is none or it is older than ``lib/`` (``what`` names who needs it, for the message)."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from build_book import cache_is_current

    root = Path(root)
    if not ((root / "_build" / ".doctrees" / "environment.pickle").is_file()
            and cache_is_current(root)):
        raise BookMissing(f"{what} take their numbers, references and glued values from the "
                          "book's build, which is missing or older than lib/: run `make book` "
                          "first")
    return Book(root)


def _reference():
    from docutils import nodes

    return nodes.reference


@functools.lru_cache(maxsize=2)
def _bibliography(path):
    from pybtex.database import parse_file

    return parse_file(str(path))


def _latex_text(text):
    from pybtex.richtext import Text

    return Text.from_latex(text).render_as("text")


def author_year(entry):
    """``("Hayase et al.", "2025")`` of a pybtex entry."""
    people = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [_latex_text(" ".join(p.last_names)) for p in people]
    who = (names[0] if len(names) == 1 else " and ".join(names) if len(names) == 2
           else f"{names[0]} et al." if names else "Anonymous")
    return who, entry.fields.get("year", "n.d.")


def reference_list(bib_path, keys):
    """The cited entries as a Markdown list, formatted by pybtex's plain style."""
    from pybtex.plugin import find_plugin

    bib = _bibliography(bib_path)
    style = find_plugin("pybtex.style.formatting", "plain")()
    backend = find_plugin("pybtex.backends", "markdown")()
    entries = sorted((bib.entries[k] for k in keys), key=lambda e: author_year(e))
    return "\n".join("- " + " ".join(item.text.render(backend).split())
                     for item in style.format_entries(entries))


def glued_values(nb):
    """``{name: mime bundle}`` of every value an executed notebook glued."""
    values = {}
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                prefix = output["metadata"]["scrapbook"].get("mime_prefix", "")
                values[name] = {k.removeprefix(prefix): v for k, v in output["data"].items()}
    return values


class Chapter:
    """Resolve the MyST of one chapter (its Markdown cells, in order)."""

    def __init__(self, book, docname, parser):
        self.book, self.docname, self.parser = book, docname, parser
        self.glue = glued_values(book.executed_notebook(docname))
        self.cited = []
        self.headings = iter(book.headings(docname))

    def role(self, match):
        name, content = match[1], match[2]
        if name in ("glue", "glue:text", "glue:md"):
            key, _, spec = content.partition(":")
            bundle = self.glue.get(key.strip())
            if bundle is None:
                raise MystLeft(f"{self.docname}: glue key {key!r} is not in the build's "
                               "executed notebook")
            if name == "glue:md" and "text/markdown" in bundle:
                return "".join(bundle["text/markdown"])
            text = "".join(bundle.get("text/plain", ""))
            try:
                value = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                value = text
            return format(value, spec) if spec else str(value)
        if name.startswith("cite"):
            return self.cite(name, content)
        if name in ("math",):
            return f"${content}$"
        if name in ("func", "class", "meth", "mod", "attr", "obj", "data"):
            return f"`{content.lstrip('~')}`"
        explicit = EXPLICIT.match(content)
        target = explicit[2] if explicit else content
        if name in ("numref", "ref", "eq", "prf:ref", "doc"):
            text = self.book.reference(name, target.strip(), self.docname)
            if text is None:
                raise MystLeft(f"{self.docname}: {{{name}}}`{content}` names nothing the "
                               "book's build knows")
            if explicit and explicit[1]:
                number = re.sub(r"^\D+", "", text)
                return explicit[1].replace("%s", number).replace("{number}", number)
            return text
        raise MystLeft(f"{self.docname}: the role {{{name}}} has no plain form")

    def cite(self, name, content):
        bib = _bibliography(self.book.bib)
        parts = []
        for key in (k.strip() for k in content.split(",")):
            if key not in bib.entries:
                raise MystLeft(f"{self.docname}: citation {key!r} is not in references.bib")
            self.cited += [key] if key not in self.cited else []
            who, year = author_year(bib.entries[key])
            parts.append(f"{who} ({year})" if name == "cite:t" else f"{who}, {year}")
        return ", ".join(parts) if name == "cite:t" else f"({'; '.join(parts)})"

    def inline(self, text):
        return ROLE.sub(self.role, text)

    def markdown(self, text):
        """A Markdown cell's text (or a directive's body) with its MyST resolved."""
        tokens = self.parser.parse(text)
        lines = text.splitlines()
        replace = {}                            # first line → (end line, new text)
        for token in tokens:
            if token.map is None:
                continue
            first, end = token.map
            if token.type == "myst_target":
                replace[first] = (end, None)
            elif token.type in ("math_block", "math_block_label"):
                new = self.math(token.content, token.info.strip() or None)
                replace[first] = (end, _indent(new, lines[first]))
            elif token.type in ("fence", "colon_fence") and token.info.strip().startswith("{"):
                new = self.directive(token)
                replace[first] = (end, None if new is None else _indent(new, lines[first]))
            elif token.type == "heading_open" and token.tag in ("h1", "h2", "h3"):
                number = next(self.headings, None)
                if number is None:
                    raise MystLeft(f"{self.docname}: more headings than the build numbered")
                title = self.inline(lines[first].lstrip("#").strip())
                replace[first] = (end, f"{'#' * int(token.tag[1])} {number}. {title}")
        out, i = [], 0
        while i < len(lines):
            if i in replace:
                end, new = replace[i]
                out += [] if new is None else [new]
                i = end
            else:
                out.append(self.inline(lines[i]))
                i += 1
        return "\n".join(out).strip("\n")

    def math(self, body, label=None):
        """A ``$$`` block; lines broken with ``\\\\`` go in ``aligned``, as the book's Sphinx
        wraps them in ``split`` (a viewer's MathJax or KaTeX refuses a bare ``&``)."""
        body = body.strip()
        if "\\\\" in body:
            body = f"\\begin{{aligned}}\n{body}\n\\end{{aligned}}"
        tag = ""
        if label:
            where = self.book.reference("eq", label, self.docname)
            if where is None:
                raise MystLeft(f"{self.docname}: equation {label!r} has no number in the build")
            tag = f" \\tag{{{where[1:-1]}}}"
        return f"$$\n{body}{tag}\n$$"

    def directive(self, token):
        name, _, argument = token.info.strip()[1:].partition("}")
        argument = self.inline(argument.strip())
        options, body = _split_options(token.content)
        label = options.get("label") or options.get("name")
        if name == "math":
            return self.math(body, label)
        if name == "exercise-end":
            return None
        inner = self.markdown(body) if body.strip() else ""
        if name.startswith("prf:"):
            kind = name[4:]
            if kind == "proof":
                return _quote(f"*Proof.* {inner} ∎")
            number = self.book.reference("prf:ref", label, self.docname) if label else None
            head = number or kind.title()
            head += f" ({argument})" if argument else ""
            return _quote(f"**{head}.**\n\n{inner}")
        if name in ("exercise", "exercise-start"):
            number = self.book.reference("ref", label, self.docname) if label else "Exercise"
            head = f"#### {number}" + (f" ({argument})" if argument else "")
            return f"{head}\n\n{_quote(inner)}" if inner else head
        if name in ADMONITIONS:
            head = argument or name.title()
            return _quote(f"**{head}**\n\n{inner}")
        raise MystLeft(f"{self.docname}: the directive {{{name}}} has no plain form")


def _split_options(content):
    lines = content.splitlines()
    options = {}
    while lines and re.match(r"^:[\w-]+:", lines[0]):
        key, _, value = lines.pop(0)[1:].partition(":")
        options[key.strip()] = value.strip()
    return options, "\n".join(lines)


def _indent(text, first_line):
    """``text`` indented as ``first_line`` (a directive or ``$$`` block in a list item)."""
    indent = re.match(r"\s*", first_line)[0]
    return "\n".join(indent + line if line else line for line in text.splitlines())


_DISPLAY_MATH = re.compile(r"^([ \t]*)\$\$\n(.*?)\n[ \t]*\$\$", re.M | re.S)


def _quote(text):
    """``text`` as a Markdown quote; a ``$$`` block in it goes on one line (Jupyter takes the
    maths out before it parses the Markdown: the quote's ``>`` would land in the TeX)."""
    text = _DISPLAY_MATH.sub(lambda m: f"{m[1]}$$ {' '.join(m[2].split())} $$", text)
    return "\n".join(f"> {line}" if line.strip() else ">" for line in text.splitlines())


@functools.lru_cache(maxsize=1)
def _parser(root):
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    config = yaml.safe_load((Path(root) / "_config.yml").read_text()) or {}
    extensions = set((config.get("parse") or {}).get("myst_enable_extensions") or [])
    return create_md_parser(MdParserConfig(enable_extensions=extensions | {"colon_fence"}),
                            RendererHTML)


@functools.lru_cache(maxsize=2)
def _macros(root):
    config = yaml.safe_load((Path(root) / "_config.yml").read_text()) or {}
    macros = ((((config.get("sphinx") or {}).get("config") or {}).get("mathjax3_config")
               or {}).get("tex") or {}).get("macros") or {}
    for name, body in macros.items():
        if not isinstance(body, str):
            raise MystLeft(f"the TeX macro \\{name} takes arguments; it has no plain form")
    return macros


def expand_macros(text, root):
    """``text`` with the book's TeX macros written out (``\\E`` → ``\\mathbb{E}``)."""
    macros = _macros(str(root))
    if not macros:
        return text
    pattern = re.compile(r"\\(" + "|".join(map(re.escape, macros)) + r")(?![A-Za-z])")
    return pattern.sub(lambda m: macros[m[1]], text)


HIDDEN = {"hide-input": ("source_hidden",), "remove-input": ("source_hidden",),
          "remove-output": ("outputs_hidden",), "hide-output": ("outputs_hidden",),
          "hide-cell": ("source_hidden", "outputs_hidden"),
          "remove-cell": ("source_hidden", "outputs_hidden")}


def plain_notebook(nb, book, docname, root):
    """``nb`` (a chapter, solutions already removed) with every MyST construct resolved."""
    chapter = Chapter(book, docname, _parser(str(root)))
    out = nbformat.from_dict(nb)
    cells = []
    for cell in out.cells:
        tags = cell.metadata.get("tags", [])
        if "explorable" in tags:          # an interactive figure and its lead-in: web only
            continue
        if cell.cell_type == "markdown":
            if "remove-cell" in tags:
                continue
            cell.source = expand_macros(chapter.markdown(cell.source), root)
            cells.append(cell)
            continue
        hidden = {flag for tag in tags for flag in HIDDEN.get(tag, ())}
        if hidden:
            cell.metadata["jupyter"] = {flag: True for flag in sorted(hidden)}
        figure = cell.metadata.pop("mystnb", {}).get("figure")   # myst-nb's, for the book
        cells.append(cell)
        if figure:
            name = book.reference("numref", figure["name"], docname) if "name" in figure \
                else "Figure"
            cells.append(nbformat.v4.new_markdown_cell(
                f"**{name}.** "
                + expand_macros(chapter.markdown(figure.get("caption", "")), root)))
    if next(chapter.headings, None) is not None:
        raise MystLeft(f"{docname}: fewer headings than the build numbered")
    if chapter.cited:
        cells.append(nbformat.v4.new_markdown_cell(
            "## References\n\n" + reference_list(book.bib, chapter.cited)))
    out.cells = cells
    return out
