"""An executed chapter as one self-contained HTML page (written by ``attnspec rerun``).

A rerun leaves an executed notebook; this turns it into a page a reader can open in any browser,
with what makes the book's pages trustworthy carried over:

- the prose's ``{glue:text}`` / ``{glue}`` roles are replaced by the values the run glued, and
  ``{glue:figure}`` directives by the glued figures, so every number in the text is this run's;
- figures are embedded (base64 PNG or SVG images, with their alt text): the page is a single
  file;
- cells tagged ``remove-cell`` (the install cell) are left out, ``remove-input`` cells show only
  their output, and code is folded under "code" like ``hide-input``;
- maths is typeset by the book's own MathJax (``_vendor/static``) when the page is opened inside
  the repository, else left as TeX.

Other MyST roles keep their text (``{numref}`fig-x``` → ``fig-x``); directives (admonitions,
exercises, solutions) become titled boxes.
"""

from __future__ import annotations

import ast
import base64
import html
import os
import re
from pathlib import Path

__all__ = ["write_report", "glued_values", "render_markdown"]

GLUE_PREFIX = "application/papermill.record/"
_ROLE = re.compile(r"\{([a-zA-Z:_-]*)\}`([^`]*)`")
_FENCE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[^}]+)\}[ \t]*(?P<arg>.*)$")
_MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+?\$", re.S)


def _mime_bundle(output):
    data = dict(output.get("data", {}))
    prefix = output.get("metadata", {}).get("scrapbook", {}).get("mime_prefix", "")
    return {k[len(prefix):] if prefix and k.startswith(prefix) else k: v for k, v in data.items()}


def glued_values(nb):
    """``{name: mime bundle}`` of every value the notebook glued with ``myst_nb.glue``."""
    values = {}
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                values[name] = _mime_bundle(output)
    return values


def _text_of(bundle, spec=""):
    text = bundle.get("text/plain", "")
    text = "".join(text) if isinstance(text, list) else text
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        value = text
    if spec:
        try:
            return format(value, spec)
        except (TypeError, ValueError):
            pass
    return str(value)


def _image_html(bundle, alt=""):
    alt = html.escape(alt, quote=True)
    if "image/png" in bundle:
        data = "".join(bundle["image/png"]).replace("\n", "")
        return f'<img src="data:image/png;base64,{data}" alt="{alt}">'
    if "image/svg+xml" in bundle:     # as an image: each figure's ids stay its own
        data = base64.b64encode("".join(bundle["image/svg+xml"]).encode()).decode()
        return f'<img src="data:image/svg+xml;base64,{data}" alt="{alt}">'
    return None


def _role(name, content, glue):
    if name.startswith("glue"):
        key, _, spec = content.partition(":")
        if key.strip() not in glue:
            return f"<mark>[{html.escape(content)}: not glued]</mark>"
        bundle = glue[key.strip()]
        return _image_html(bundle) or html.escape(_text_of(bundle, spec.strip()))
    if name == "math":
        return f"${content}$"
    match = re.fullmatch(r"(.*?)\s*<([^>]+)>", content, re.S)
    text = match[1] if match and match[1] else (match[2] if match else content)
    if name.startswith("cite"):
        return f"[{html.escape(text)}]"
    return html.escape(text)


def render_markdown(text, glue):
    """MyST Markdown → HTML, with glued values substituted and maths left for MathJax."""
    from markdown_it import MarkdownIt

    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        match = _FENCE.match(lines[i].strip())
        if not match:
            out.append(lines[i])
            i += 1
            continue
        fence, name, arg = match["fence"], match["name"], match["arg"].strip()
        j, body = i + 1, []
        while j < len(lines) and lines[j].strip() != fence:
            body.append(lines[j])
            j += 1
        options = [b for b in body if re.match(r"^:[\w-]+:", b.strip())]
        body = [b for b in body if b not in options]
        if name.startswith("glue"):
            bundle = glue.get(arg.split()[0] if arg else "", {})
            caption = render_markdown("\n".join(body), glue)
            image = _image_html(bundle, re.sub(r"<[^>]+>", "", caption).strip())
            shown = image or html.escape(_text_of(bundle)) if bundle else \
                f"<mark>[{html.escape(arg)}: not glued]</mark>"
            out.append(f'\n<figure>{shown}<figcaption>{caption}</figcaption></figure>\n')
        elif name in ("math",):
            out.append("\n$$" + "\n".join(body) + "$$\n")
        else:
            title = html.escape(arg or name)
            inner = render_markdown("\n".join(body), glue)
            out.append(f'\n<div class="box {html.escape(name)}"><p class="title">{title}</p>'
                       f"{inner}</div>\n")
        i = j + 1
    source = "\n".join(out)
    maths = []

    def keep_math(m):
        maths.append(m[0])
        return f"MATHPLACEHOLDER{len(maths) - 1}X"

    source = _MATH.sub(keep_math, source)
    source = _ROLE.sub(lambda m: _role(m[1], m[2], glue), source)
    source = re.sub(r"^\([\w:-]+\)=\s*$", "", source, flags=re.M)   # MyST labels
    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render(source)
    return re.sub(r"MATHPLACEHOLDER(\d+)X", lambda m: html.escape(maths[int(m[1])]), rendered)


def _output_html(output, glue):
    kind = output.get("output_type")
    if output.get("metadata", {}).get("scrapbook"):
        return ""        # a glued value: shown where the prose uses it
    if kind == "stream":
        text = "".join(output.get("text", ""))
        return f'<pre class="{output.get("name", "stdout")}">{html.escape(text)}</pre>'
    if kind == "error":
        return f'<pre class="error">{html.escape(chr(10).join(output.get("traceback", [])))}</pre>'
    bundle = _mime_bundle(output)
    image = _image_html(bundle)
    if image:
        return image
    if "text/html" in bundle:
        return "".join(bundle["text/html"])
    if "text/markdown" in bundle:
        return render_markdown("".join(bundle["text/markdown"]), glue)
    if "text/latex" in bundle:
        return f"<div>{html.escape(''.join(bundle['text/latex']))}</div>"
    if "text/plain" in bundle:
        return f"<pre>{html.escape(''.join(bundle['text/plain']))}</pre>"
    return ""


def _mathjax(page, book_root):
    script = Path(book_root) / "_vendor" / "static" / "mathjax" / "tex-chtml.js" \
        if book_root else None
    macros = {}
    if book_root and (Path(book_root) / "_config.yml").is_file():
        import yaml

        config = yaml.safe_load((Path(book_root) / "_config.yml").read_text()) or {}
        sphinx = (config.get("sphinx") or {}).get("config") or {}
        macros = ((sphinx.get("mathjax3_config") or {}).get("tex") or {}).get("macros") or {}
    if not (script and script.is_file()):
        return ""
    src = os.path.relpath(script, Path(page).parent)
    import json

    config = {"tex": {"inlineMath": [["$", "$"], ["\\(", "\\)"]],
                      "displayMath": [["$$", "$$"], ["\\[", "\\]"]], "macros": macros}}
    return (f"<script>window.MathJax = {json.dumps(config)};</script>\n"
            f'<script defer src="{html.escape(src)}"></script>')


STYLE = """
body { max-width: 52rem; margin: 2rem auto; padding: 0 1rem; font: 16px/1.55 system-ui, sans-serif;
       color: #1a1a1a; }
pre { background: #f6f8fa; padding: .6rem; overflow-x: auto; font-size: .85rem; }
pre.stderr, pre.error { background: #fff0f0; }
img, svg { max-width: 100%; height: auto; }
figure { margin: 1.2rem 0; } figcaption { color: #222; font-size: .95rem; }
table { border-collapse: collapse; display: block; overflow-x: auto; }
td, th { border: 1px solid #ccc; padding: .2rem .5rem; }
.box { border-left: 4px solid #1f4e79; background: #f4f7fb; padding: .2rem 1rem; margin: 1rem 0; }
.box .title { font-weight: 600; }
details > summary { cursor: pointer; color: #1f4e79; }
mjx-container[display="true"] { overflow-x: auto; overflow-y: hidden; }
.banner { background: #fff8e1; padding: .5rem 1rem; border: 1px solid #e0c060; }
"""


def write_report(notebook_path, html_path=None, *, book_root=None, parameters=None):
    """Write the executed notebook at ``notebook_path`` as an HTML page; return its path.

    Parameters
    ----------
    notebook_path : path-like
        An executed chapter notebook (papermill's output).
    html_path : path-like, optional
        Where to write (default: the notebook's path with ``.html``).
    book_root : path-like, optional
        The repository, for the book's MathJax and TeX macros.
    parameters : dict, optional
        The values the run used, shown at the top of the page.
    """
    import nbformat

    notebook_path = Path(notebook_path)
    html_path = Path(html_path) if html_path else notebook_path.with_suffix(".html")
    nb = nbformat.read(notebook_path, as_version=4)
    glue = glued_values(nb)
    parts = []
    for cell in nb.cells:
        tags = set(cell.get("metadata", {}).get("tags", []))
        if "remove-cell" in tags:
            continue
        if cell.cell_type == "markdown":
            parts.append(render_markdown(cell.source, glue))
        elif cell.cell_type == "code":
            if "remove-input" not in tags and cell.source.strip():
                code = html.escape(cell.source)
                parts.append(f"<details><summary>code</summary><pre>{code}</pre></details>")
            if "remove-output" not in tags:
                parts += [_output_html(o, glue) for o in cell.get("outputs", [])]
    title = html.escape(notebook_path.stem)
    used = ", ".join(f"{k} = {v!r}" for k, v in (parameters or {}).items()) or "the defaults"
    banner = (f'<p class="banner">Rerun of <code>{title}</code> with {html.escape(used)}. '
              "Every number in the text below was computed by this run.</p>")
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{title}</title><style>{STYLE}</style>"
            f"{_mathjax(html_path, book_root)}</head>\n<body>{banner}\n"
            + "\n".join(parts) + "\n</body></html>\n")
    partial = html_path.with_name(html_path.name + ".partial")
    partial.write_text(page, encoding="utf-8")
    os.replace(partial, html_path)
    return html_path
