"""Sphinx extension of a rerun's one-page build (:mod:`attnspec.book.rerun_page` loads it).

- The chapter keeps the number the book gives it: a one-page book would number it 1 (its
  sections 1.1, its figures, tables, equations and theorems 1.k); every number is moved to the
  chapter's (``attnspec_chapter_number``), so Figure 3.2 stays Figure 3.2.
- A reference to another page of the book (``{doc}``, ``{ref}``, ``{numref}``, ``{eq}``,
  ``{prf:ref}``), which a one-page build cannot resolve, becomes plain text naming that page:
  its own text when the reference gives one, else "chapter 2 (Background)", "an equation of
  chapter 2", "a theorem of chapter 3". A ``{func}`` of the library (documented on the API
  page) becomes its name in code type. The targets are read from the book's sources
  (``attnspec_book_root``) with MyST's parser; a reference found there neither nor here stays
  a build warning, which fails the build.
"""

from __future__ import annotations

import functools
import posixpath
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform

KINDS = {"math": "an equation", "figure": "a figure", "glue:figure": "a figure",
         "table": "a table", "list-table": "a table", "glue:math": "an equation",
         "exercise": "an exercise", "exercise-start": "an exercise"}


def _renumber(app, env):
    """Move every section, figure, table, equation and theorem number of the chapter from 1
    (its place in the one-page book) to the chapter's number."""
    number = app.config.attnspec_chapter_number

    def moved(numbers):
        return (number, *numbers[1:]) if numbers else numbers

    for docname, anchors in env.toc_secnumbers.items():
        env.toc_secnumbers[docname] = {a: moved(n) for a, n in anchors.items()}
    for kinds in env.toc_fignumbers.values():
        for ids in kinds.values():
            ids.update({i: moved(n) for i, n in ids.items()})
    for tree in [*env.tocs.values(), *env.titles.values()]:  # sidebar, <title>, next/prev
        for node in tree.findall(nodes.Element):
            if node.get("secnumber"):
                node["secnumber"] = moved(tuple(node["secnumber"]))
    return []


def _md_parser(extensions):
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    return create_md_parser(MdParserConfig(enable_extensions=set(extensions) | {"colon_fence"}),
                            RendererHTML)


def _split_options(content):
    """A directive's body as ``({option: value}, rest)`` (MyST's ``:key: value`` lines)."""
    lines = content.splitlines()
    options = {}
    while lines and lines[0].startswith(":") and ":" in lines[0][1:]:
        key, _, value = lines.pop(0)[1:].partition(":")
        options[key.strip()] = value.strip()
    return options, "\n".join(lines)


def _page_targets(text, parser):
    """``(title, {label: (kind, title or "")})`` of one page's MyST text."""
    tokens, title, targets, pending = parser.parse(text), "", {}, None
    for i, token in enumerate(tokens):
        if token.type == "myst_target":
            pending = token.content.strip()
        elif token.type == "heading_open":
            heading = tokens[i + 1].content.strip()
            if token.tag == "h1" and not title:
                title = heading
                if pending:
                    targets[pending] = ("page", heading)
            elif pending:
                targets[pending] = ("section", heading)
            pending = None
        elif token.type == "math_block_label":
            targets[token.info.strip()] = ("math", "")
        elif token.type in ("fence", "colon_fence") and token.info.strip().startswith("{"):
            name, _, argument = token.info.strip()[1:].partition("}")
            options, body = _split_options(token.content)
            label = options.get("label") or options.get("name")
            if label:
                targets[label] = (name, argument.strip())
            targets.update(_page_targets(body, parser)[1])
    return title, targets


def _page_text(path):
    if path.suffix == ".ipynb":
        import nbformat

        nb = nbformat.read(path, as_version=4)
        return "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    return path.read_text()


def _cell_figures(path):
    """``{name: ("figure", "")}`` of a notebook's figures named in code cell metadata
    (``mystnb.figure.name``), which its Markdown does not show."""
    if path.suffix != ".ipynb":
        return {}
    import nbformat

    nb = nbformat.read(path, as_version=4)
    names = (c.metadata.get("mystnb", {}).get("figure", {}).get("name") for c in nb.cells)
    return {name: ("figure", "") for name in names if name}


def _page_name(docname, title):
    stem = docname.rsplit("/", 1)[-1]
    prefix = stem.split("_", 1)[0]
    if prefix.isdigit():
        return f"chapter {int(prefix)}", f"chapter {int(prefix)} ({title})"
    if prefix[:1] == "A" and prefix[1:].isdigit():
        title = title.removeprefix(f"{prefix}.").strip()      # "A1. The law" → "The law"
        return f"appendix {prefix}", f"appendix {prefix} ({title})"
    return f"the page “{title}”", f"“{title}”"


@functools.lru_cache(maxsize=4)
def book_targets(book_root, skip):
    """``(docs, labels)``: what each page of the book at ``book_root`` other than ``skip``
    (a docname) is called, and what each of its labels is, as plain text."""
    import yaml

    root = Path(book_root)
    config = yaml.safe_load((root / "_config.yml").read_text()) or {}
    parser = _md_parser((config.get("parse") or {}).get("myst_enable_extensions") or [])
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(entries):
        for entry in entries:
            files.extend([entry["file"]] if "file" in entry else [])
            for key in ("parts", "chapters", "sections"):
                walk(entry.get(key, []))

    walk(toc.get("parts", []) + toc.get("chapters", []))
    docs, labels = {}, {}
    for docname in files:
        if docname == skip:
            continue
        path = next((p for p in (root / f"{docname}.ipynb", root / f"{docname}.md")
                     if p.is_file()), None)
        if path is None:
            continue
        title, targets = _page_targets(_page_text(path), parser)
        targets.update(_cell_figures(path))
        short, full = _page_name(docname, title)
        docs[docname] = full
        for label, (kind, heading) in targets.items():
            if kind == "page":
                text = full
            elif kind == "section":
                text = f"section “{heading}” of {short}"
            elif kind.startswith("prf:"):
                name = kind[4:]
                text = (f"{name.title()} ({heading}) of {short}" if heading
                        else f"a {name} of {short}")
            else:
                text = f"{KINDS.get(kind, 'a ' + kind)} of {short}"
            labels[label.lower()] = text
    return docs, labels


def _library_object(name):
    """True if ``name`` (``attnspec.sampling.x``) is an object of the library."""
    import importlib

    parts = name.split(".")
    if parts[0] != "attnspec":
        return False
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            obj = getattr(obj, attribute, None)
        return obj is not None
    return False


class ElsewhereInTheBook(SphinxPostTransform):
    """References to other pages of the book, as plain text (before any domain tries them)."""

    default_priority = 5        # before sphinx's ReferencesResolver (10)

    def run(self, **kwargs):
        config = self.app.config
        docs, labels = book_targets(config.attnspec_book_root, self.env.docname)
        for node in list(self.document.findall(addnodes.pending_xref)):
            target = node.get("reftarget", "")
            if node.get("reftype") == "doc":
                base = posixpath.dirname(node.get("refdoc", ""))
                target = target[1:] if target.startswith("/") \
                    else posixpath.normpath(posixpath.join(base, target))
                text = docs.get(target) if target not in self.env.found_docs else None
            elif node.get("refdomain") == "py":
                if _library_object(target):       # documented on the API page: its name
                    node.replace_self(nodes.literal("", node.astext(),
                                                    classes=["attnspec-elsewhere"]))
                continue
            else:
                text = labels.get(target.lower())
            if text is None:
                continue
            text = node.astext() if node.get("refexplicit") else text
            node.replace_self(nodes.inline("", text, classes=["attnspec-elsewhere"]))


def setup(app):
    app.add_config_value("attnspec_chapter_number", 1, "env")
    app.add_config_value("attnspec_book_root", "", "env")
    app.connect("env-get-updated", _renumber, priority=900)
    app.add_post_transform(ElsewhereInTheBook)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
