"""MyST resolved into plain Markdown for the handout (tools/resolve_myst.py), without a book
build: a stand-in for the build answers the numbers, a glued notebook gives the values, and
the book's references.bib the citations. (tests/test_handout.py checks the real handout.)"""

import nbformat
import pytest
from helpers import ROOT, load_tool

resolve = load_tool("resolve_myst")

NUMBERS = {("numref", "fig-x"): "Figure 7.2", ("eq", "eq-x"): "(7.1)",
           ("prf:ref", "thm-x"): "Theorem 7.1", ("ref", "ex-x"): "Exercise 7.3",
           ("ref", "ch02"): "chapter 2 (Background)", ("doc", "02_background"):
           "chapter 2 (Background)", ("numref", "tbl-x"): "Table 7.1"}


class StandIn:
    """What resolve_myst asks of the book's build, answered from NUMBERS."""
    bib = ROOT / "references.bib"

    def __init__(self, glued):
        self.glued = glued

    def reference(self, role, target, docname):
        return NUMBERS.get((role, target))

    def headings(self, docname):
        return ["7", "7.1"]

    def executed_notebook(self, docname):
        return self.glued


def _glued(**values):
    cells = []
    for name, text in values.items():
        output = nbformat.v4.new_output(
            "display_data", data={"text/plain": text},
            metadata={"scrapbook": {"name": name, "mime_prefix": ""}})
        cells.append(nbformat.v4.new_code_cell("glue()", outputs=[output]))
    return nbformat.v4.new_notebook(cells=cells)


@pytest.fixture
def chapter():
    book = StandIn(_glued(value="3.14159", word="'softmax'"))
    return resolve.Chapter(book, "chapters/07_x", resolve._parser(str(ROOT)))


def test_roles_become_their_text(chapter):
    text = chapter.markdown(
        "It is {glue:text}`value:.2f` for {glue:text}`word`, as {cite:t}`hayase2025gaussian` "
        "show {cite:p}`hayase2025gaussian,naderi2024mind`; see {numref}`fig-x`, "
        "{numref}`Panel %s <fig-x>`, {eq}`eq-x`, {prf:ref}`thm-x`, {ref}`ex-x`, "
        "{ref}`the background <ch02>`, {doc}`02_background`, {func}`attnspec.sweep` and "
        "{math}`x^2`.")
    assert text == (
        "It is 3.14 for softmax, as Hayase et al. (2025) show (Hayase et al., 2025; Naderi et "
        "al., 2024); see Figure 7.2, Panel 7.2, (7.1), Theorem 7.1, Exercise 7.3, the "
        "background, chapter 2 (Background), `attnspec.sweep` and $x^2$.")
    assert chapter.cited == ["hayase2025gaussian", "naderi2024mind"]


def test_directives_become_headings_and_quotes(chapter):
    source = ("(ch07)=\n# Title\n\n## Part\n\n```{prf:theorem} Big\n:label: thm-x\n\n"
              "Body with {eq}`eq-x`.\n```\n\n```{prf:proof}\nEasy.\n```\n\n"
              "- An item:\n\n  ```{math}\n  :label: eq-x\n  a = b\n  ```\n\n"
              "```{exercise} Try\n:label: ex-x\n\nDo it.\n```\n\n"
              "```{admonition} Derived here\n:class: note\n\nA note.\n```\n\n"
              ":::{exercise-end}\n:::\n")
    assert chapter.markdown(source) == (
        "# 7. Title\n\n## 7.1. Part\n\n> **Theorem 7.1 (Big).**\n>\n> Body with (7.1).\n\n"
        "> *Proof.* Easy. ∎\n\n- An item:\n\n  $$\n  a = b \\tag{7.1}\n  $$\n\n"
        "#### Exercise 7.3 (Try)\n\n> Do it.\n\n> **Derived here**\n>\n> A note.")


@pytest.mark.parametrize("source, problem", [
    ("{glue:text}`missing`", "glue key 'missing'"),
    ("{cite:p}`nobody2099`", "'nobody2099' is not in references.bib"),
    ("{numref}`fig-unknown`", "names nothing the book's build knows"),
    ("{abbr}`x`", "the role {abbr} has no plain form"),
    ("```{margin}\nx\n```", "the directive {margin} has no plain form"),
])
def test_what_cannot_be_resolved_stops_the_build(chapter, source, problem):
    with pytest.raises(resolve.MystLeft, match=problem.replace("{", r"\{").replace("(", r"\(")):
        chapter.markdown(source)


def test_cells_hide_where_jupyter_can_and_figures_get_captions():
    """Hidden cells carry Jupyter's flags, figures get caption cells, and the interactive
    figures of the online book (cells tagged ``explorable``) leave the handout."""
    book = StandIn(_glued())
    cells = [nbformat.v4.new_code_cell("install()", metadata={"tags": ["remove-cell"]}),
             nbformat.v4.new_markdown_cell("# Title {cite:p}`hayase2025gaussian`"),
             nbformat.v4.new_markdown_cell("gone", metadata={"tags": ["remove-cell"]}),
             nbformat.v4.new_code_cell("plot()", metadata={
                 "tags": ["hide-input"], "mystnb": {"figure": {"name": "fig-x",
                                                               "caption": "A $y$ line."}}}),
             nbformat.v4.new_markdown_cell("Try it online.", metadata={"tags": ["explorable"]}),
             nbformat.v4.new_code_cell("explore()",
                                       metadata={"tags": ["hide-input", "explorable"]}),
             nbformat.v4.new_markdown_cell("## Next")]
    out = resolve.plain_notebook(nbformat.v4.new_notebook(cells=cells), book, "chapters/07_x",
                                 ROOT)
    assert out.cells[0].metadata["jupyter"] == {"outputs_hidden": True, "source_hidden": True}
    assert [c.source for c in out.cells[1:]] == [
        "# 7. Title (Hayase et al., 2025)", "plot()", "**Figure 7.2.** A $y$ line.",
        "## 7.1. Next", out.cells[-1].source]
    assert out.cells[2].metadata == {"tags": ["hide-input"],
                                     "jupyter": {"source_hidden": True}}
    assert out.cells[-1].source.startswith("## References\n\n- Tomohiro Hayase, ")


def test_the_books_tex_macros_are_written_out():
    """A viewer's MathJax or KaTeX knows none of _config.yml's macros (\\E, \\Tr, \\R, \\one):
    the handout writes them out; longer commands that start alike stay."""
    text = r"$\E\Tr(GW) + \R^d \Rightarrow \one_n$, $\Re z$"
    assert resolve.expand_macros(text, ROOT) == (
        r"$\mathbb{E}\operatorname{tr}(GW) + \mathbb{R}^d \Rightarrow \mathbf{1}_n$, $\Re z$")


def test_display_maths_renders_outside_the_book(chapter):
    """Lines broken with \\\\ go in ``aligned`` (the book's Sphinx wraps them in ``split``; a
    bare ``&`` is 'Misplaced &' elsewhere), and a $$ block inside a box goes on one line, so
    that the quote's ``>`` stays out of the TeX (Jupyter takes maths out before Markdown)."""
    assert chapter.markdown("$$\na &= b \\\\\n&= c\n$$") == (
        "$$\n\\begin{aligned}\na &= b \\\\\n&= c\n\\end{aligned}\n$$")
    assert chapter.markdown("$$\nx = y\n$$") == "$$\nx = y\n$$"
    assert chapter.markdown("```{prf:proof}\nSo\n\n$$\nx &= y \\\\\n&> z\n$$ (eq-x)\n```") == (
        "> *Proof.* So\n>\n> $$ \\begin{aligned} x &= y \\\\ &> z \\end{aligned} \\tag{7.1} $$ ∎")
