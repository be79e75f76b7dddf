"""One reveal.js deck per session of the course guide (``make slides``, after ``make book``).

A deck is made from what the book already says and shows:

1. a title slide (the session and its chapters) and the session's learning goals (the course
   guide);
2. one slide per item of each chapter's ``## Takeaways`` list, with the numbers glued in the
   executed chapter (``_build/jupyter_execute/chapters/``) put in place of ``{glue:text}`` roles;
3. one slide per figure of the executed chapter (``mystnb.figure``: the image and its caption);
4. the session's exercises.

The decks, ``_build/slides/<session>.html``, load reveal.js and MathJax from
``_build/slides/assets/`` (copies of the pinned, vendored ones in ``_vendor/``),
so the folder works offline from ``file://`` and can be moved or zipped whole.

Usage::

    .venv/bin/python tools/build_slides.py [--sheets session-03 ...]
"""

from __future__ import annotations

import argparse
import base64
import html
import re
import shutil
import sys
from pathlib import Path

import nbformat
from markdown_it import MarkdownIt

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_course import mathjax_config, sessions  # noqa: E402  (shared with the sheets)

ROOT = Path(__file__).resolve().parent.parent
EXECUTED = ROOT / "_build" / "jupyter_execute" / "chapters"
OUT = ROOT / "_build" / "slides"
REVEAL = ROOT / "_vendor" / "reveal.js"          # not under static/: not a page asset
MATHJAX = ROOT / "_vendor" / "static" / "mathjax"
_MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+\$", re.S)
_GLUE = re.compile(r"\{glue(?::text)?\}`([^`:]+)(?::([^`]*))?`")
_ROLE = re.compile(r"\{([\w:-]+)\}`([^`]*)`")
#: how a reference reads on a slide, by its label's prefix
NAMES = {"thm-": "the theorem", "lem-": "the lemma", "prop-": "the proposition",
         "fig-": "the figure", "ex-": "the exercise", "tab-": "the table"}


class SlidesError(RuntimeError):
    """A deck cannot be built (no executed chapter, no vendored reveal.js)."""


def glued(nb):
    """``{name: text/plain value}`` of every glued value of an executed notebook."""
    values = {}
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            record = output.get("metadata", {}).get("scrapbook")
            if record:
                text = output["data"].get(record.get("mime_prefix", "") + "text/plain", "")
                values[record["name"]] = text
    return values


def resolve(text, values):
    """MyST roles as plain text: glued numbers in place, references as their target."""
    def glue(match):
        name, spec = match.groups()
        raw = values.get(name, name)
        value = raw.strip("'\"")
        if spec:
            try:
                return format(float(value), spec)
            except ValueError:
                return value
        return value

    def role(match):
        name, target = match.groups()
        if name.startswith("cite"):
            return target
        if "<" in target:                                   # {ref}`text <label>`
            return target.split("<")[0].strip()
        return next((words for prefix, words in NAMES.items() if target.startswith(prefix)),
                    "the chapter")
    return _ROLE.sub(role, _GLUE.sub(glue, text))


def markdown(text):
    """Markdown to HTML with the ``$...$`` math left intact for MathJax."""
    math = []

    def keep(match):
        math.append(match.group(0))
        return f"MATH{len(math) - 1}X"
    rendered = MarkdownIt("commonmark").render(_MATH.sub(keep, text))
    return re.sub(r"MATH(\d+)X", lambda m: html.escape(math[int(m.group(1))]), rendered)


def takeaways(nb):
    """The items of the ``## Takeaways`` list of a chapter."""
    text = "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    section = text.split("## Takeaways", 1)[1] if "## Takeaways" in text else ""
    section = section.split("\n## ", 1)[0]
    return [item.strip() for item in re.split(r"^\s*(?:\d+\.|-)\s+", section, flags=re.M)
            if item.strip()]


def figures(nb):
    """``[(caption, data URI)]`` of every figure of an executed chapter (SVG, as the book
    draws them, or PNG)."""
    found = []
    for cell in nb.cells:
        figure = (cell.metadata.get("mystnb") or {}).get("figure") or {}
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if figure and "image/svg+xml" in data:
                svg = base64.b64encode("".join(data["image/svg+xml"]).encode()).decode()
                found.append((figure.get("caption", ""), f"data:image/svg+xml;base64,{svg}"))
                break
            if figure and "image/png" in data:
                png = data["image/png"]
                found.append((figure.get("caption", ""), f"data:image/png;base64,{png}"))
                break
    return found


def learning_goals(guide_text, title):
    """The learning-goal bullets of a session in the course guide."""
    section = guide_text.split(title, 1)[1]
    goals = section.split("Learning goals: students can", 1)
    if len(goals) < 2:
        return []
    block = goals[1].split("\n\n", 2)[1]
    return [line[2:].strip() for line in re.split(r"\n(?=- )", block) if line.startswith("- ")]


def deck(session, guide_text):
    """The HTML of one session's deck."""
    slides = [f"<h2>{html.escape(session['title'])}</h2><p>Chapters: "
              + ", ".join(session["chapters"]) + "</p>"]
    goals = learning_goals(guide_text, session["title"])
    if goals:
        slides.append("<h3>Learning goals</h3>" + markdown("\n".join(f"- {g}" for g in goals)))
    for chapter in session["chapters"]:
        path = EXECUTED / f"{chapter}.ipynb"
        if not path.is_file():
            if chapter[:2].isdigit():
                raise SlidesError(f"{path} is missing: run make book first (or copy a built "
                                  "_build/ here)")
            continue
        nb = nbformat.read(path, as_version=4)
        values = glued(nb)
        for number, item in enumerate(takeaways(nb), 1):
            slides.append(f"<h3>Takeaway {number}</h3>" + markdown(resolve(item, values)))
        for caption, uri in figures(nb):
            slides.append(f'<img class="figure" src="{uri}" alt="">'
                          f'<div class="caption">{markdown(resolve(caption, values))}</div>')
    if session["exercises"]:
        slides.append("<h3>Exercises</h3>" + markdown(
            "\n".join(f"- `{label}`" for label in session["exercises"])))
    sections = "\n".join(f"<section>{s}</section>" for s in slides)
    return PAGE.format(title=html.escape(session["title"]), sections=sections,
                       mathjax=mathjax_config())


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>{title}</title>
<link rel="stylesheet" href="assets/reveal.js/reveal.css">
<link rel="stylesheet" href="assets/reveal.js/theme/white.css">
<style>.reveal {{ font-size: 30px; }} .reveal img.figure {{ max-height: 62vh; margin: 0; }}
.reveal .caption {{ font-size: 0.55em; }} .reveal ul {{ display: block; }}</style>
<script>window.MathJax = {mathjax};</script>
<script src="assets/mathjax/tex-chtml.js"></script>
</head><body>
<div class="reveal"><div class="slides">
{sections}
</div></div>
<script src="assets/reveal.js/reveal.js"></script>
<script>Reveal.initialize({{hash: true, slideNumber: true}});</script>
</body></html>
"""


def build(out=OUT, only=None):
    """Write the decks (``only``: their session ids) and their assets; return ``out``."""
    if not (REVEAL / "reveal.js").is_file() or not (MATHJAX / "tex-chtml.js").is_file():
        raise SlidesError("reveal.js or MathJax is not vendored: run make setup")
    guide_text = (ROOT / "chapters" / "course_guide.md").read_text()
    chosen = [s for s in sessions() if only is None or s["id"] in only]
    if only is not None and len(chosen) != len(set(only)):
        raise SlidesError(f"sheets={sorted(only)} includes unknown ids; allowed: "
                          f"{[s['id'] for s in sessions()]}")
    decks = {s["id"]: deck(s, guide_text) for s in chosen}     # everything checked first
    staging = out.with_name(out.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    (staging / "assets").mkdir(parents=True)
    shutil.copytree(REVEAL, staging / "assets" / "reveal.js")
    shutil.copytree(MATHJAX, staging / "assets" / "mathjax")
    for ident, page in decks.items():
        (staging / f"{ident}.html").write_text(page)
    shutil.rmtree(out, ignore_errors=True)
    staging.rename(out)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sheets", nargs="*", help="only these sessions (session-03 ...)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    try:
        out = build(args.out, args.sheets)
    except SlidesError as error:
        sys.exit(f"make slides: {error}")
    print(f"Decks: {out}/session-NN.html (open in a browser; the folder works offline)")


if __name__ == "__main__":
    main()
