"""Sphinx extension of the book's site (loaded from ``_config.yml``, ``sphinx.local_extensions``).

- ``A4 §n`` in the library's docstrings becomes a link to section n of the specification
  appendix A4 (label ``spec-sn``), so the API page links to the section it names.
- Figures carry real alternative text: an image whose ``alt`` is empty or a file name (what
  myst-nb gives glued figures) gets its figure's caption.
- The footer shows the version (``pyproject.toml``) and the licences; the colour mode is
  light (an empty default is a console error of the theme).
- Launch buttons (Binder, Colab) only on pages that are notebooks (``.ipynb``): a Markdown page
  such as the landing page cannot be opened by either.
- The download button of a chapter serves its executed notebook, figures included.
- Each inline script is emitted once: sphinx-thebe registers its configuration script on every
  ``env-before-read-docs``, and a second ``const THEBE_JS_URL`` is a JavaScript error.
"""

import re
import tomllib
from pathlib import Path

from docutils import nodes

SPEC_REF = re.compile(r"\bA4 §(\d+)")
FILE_LIKE = re.compile(r"^[\w./-]*\.(png|jpe?g|svg|gif)$|^[0-9a-f]{16,}", re.I)


def link_docstring(app, what, name, obj, options, lines):
    for i, line in enumerate(lines):
        new = SPEC_REF.sub(lambda m: f":ref:`A4 §{m[1]} <spec-s{m[1]}>`", line)
        if new != line and i + 1 < len(lines) and re.fullmatch(r"([-=~^])\1+", lines[i + 1]):
            lines[i + 1] = lines[i + 1][0] * len(new)      # a section title keeps its underline
        lines[i] = new


def caption_alt_text(app, doctree, docname):
    for figure in doctree.findall(nodes.figure):
        captions = list(figure.findall(nodes.caption))
        if not captions:
            continue
        text = " ".join(captions[0].astext().split())
        for image in figure.findall(nodes.image):
            alt = image.get("alt", "")
            if not alt or FILE_LIKE.search(alt):
                image["alt"] = text


def launch_buttons_on_notebooks_only(app, pagename, templatename, context, doctree):
    if context.get("page_source_suffix") == ".ipynb":
        return
    buttons = context.get("header_buttons")
    if buttons:
        context["header_buttons"] = [b for b in buttons if b.get("label") != "launch-buttons"]


def unique_scripts(app, pagename, templatename, context, doctree):
    seen, unique = set(), []
    for script in context.get("script_files", []):
        body = getattr(script, "attributes", {}).get("body")
        key = ("inline", body) if body else str(script)   # filename None or "": same script
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def download_executed_notebooks(app, exception):
    """The download button serves the executed notebook (with its figures), not the source.

    myst-nb writes ``jupyter_execute/<doc>.ipynb`` from the notebook it read, which holds the
    outputs only when it executed the notebook itself: on a hit of the execution cache (a
    second ``make book``, or chapters executed in parallel beforehand) it writes the bare
    source. So each chapter's executed copy is rewritten as the page shows it, its source
    merged with the cached outputs (jupyter-cache's ``merge_match_into_notebook``, what
    myst-nb renders), and served; the student edition reads the same copies."""
    if exception is not None or app.builder.format != "html":
        return
    import shutil

    import nbformat
    from jupyter_cache import get_cache

    cache = get_cache(app.env.mystnb_config.execution_cache_path)
    executed = Path(app.outdir).parent / "jupyter_execute"
    for docname in app.env.found_docs:
        source = Path(app.env.doc2path(docname))
        served = Path(app.outdir) / "_sources" / f"{docname}.ipynb"
        if source.suffix != ".ipynb" or not served.is_file():
            continue
        run = executed / f"{docname}.ipynb"
        try:
            _, notebook = cache.merge_match_into_notebook(nbformat.read(source, as_version=4))
        except KeyError:            # not in the cache: myst-nb's copy is all there is
            if run.is_file():
                shutil.copyfile(run, served)
            continue
        for path in (run, served):
            nbformat.write(notebook, path)


def footer(app, config):
    root = Path(app.srcdir)
    version = tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"]
    config.version = config.release = version
    text = (f"attnspec {version}. Code under the "
            '<a href="https://opensource.org/license/mit">MIT licence</a>; text and figures '
            'under <a href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a>. '
            "How to cite: see the landing page.")
    # default_mode: the theme's default is empty, which its script reports as a console error
    # ("Got invalid theme mode"); light, because the figures are drawn on white.
    config.html_theme_options = dict(config.html_theme_options or {}, extra_footer=text)
    config.html_context = dict(config.html_context or {}, default_mode="light")


def setup(app):
    app.connect("config-inited", footer)
    app.connect("autodoc-process-docstring", link_docstring)
    app.connect("doctree-resolved", caption_alt_text)
    app.connect("html-page-context", launch_buttons_on_notebooks_only, priority=900)
    app.connect("html-page-context", unique_scripts, priority=900)
    app.connect("build-finished", download_executed_notebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
