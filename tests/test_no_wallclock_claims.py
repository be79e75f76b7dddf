"""The book's prose states no typed wall-clock time for a computation.

A time in milliseconds, seconds or minutes measured on the authors' machine is not reproducible
on a reader's: the pages state costs as ratios (``make bench``) or glue a value computed in the
page. Durations of class activities ("90 minutes", "10 min") are not computations and stay.

A sentence is flagged when it names a time unit and also a computing context (cores, a machine,
something that takes or costs time). Table rows (the lesson schedules) and code blocks are
not prose. The MyST pages and the introduction are read as files, the chapter notebooks'
Markdown cells from the stored notebooks; nothing is executed.
"""

import re

import pytest

from helpers import ROOT

TIME_UNIT = re.compile(
    r"\b(milliseconds?|seconds|secs?|ms|minutes?|min|hours?|hrs?)\b(?!-)"   # not sec-08-x
    r"|(?<![\w$.{])\d+(?:\.\d+)?\s?s\b", re.IGNORECASE)
COMPUTING = re.compile(
    r"\b(cores?|CPUs?|GPUs?|machines?(?!\s+learning)|laptops?|computers?|takes?|costs?"
    r"|executes?|needs?|lasts?)\b", re.IGNORECASE)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z{(`$*-])")


def _prose_pages():
    """(name, prose) of every page: MyST files, and each notebook's Markdown cells."""
    import nbformat

    pages = sorted((ROOT / "chapters").glob("*.md")) + [ROOT / "intro.md"]
    prose = [(page.name, page.read_text(encoding="utf-8")) for page in pages]
    for path in sorted((ROOT / "chapters").glob("*.ipynb")):
        cells = nbformat.read(path, as_version=4).cells
        prose.append((path.name, "\n\n".join(c.source for c in cells
                                               if c.cell_type == "markdown")))
    return prose


def wallclock_sentences(text):
    """Sentences of ``text`` that state a time unit in a computing context."""
    text = re.sub(r"```.*?```", " ", text, flags=re.DOTALL)  # code blocks are not prose
    text = re.sub(r"^\|.*$", " ", text, flags=re.MULTILINE)  # nor are table rows (schedules)
    flagged = []
    for paragraph in re.split(r"\n\s*\n", text):
        for sentence in SENTENCE_END.split(" ".join(paragraph.split())):
            if TIME_UNIT.search(sentence) and COMPUTING.search(sentence):
                flagged.append(sentence)
    return flagged


@pytest.mark.parametrize(
    "sentence",
    [
        "Each step is explicit, which makes the density cheap: 400 points take a few "
        "milliseconds.",
        "On two cores that is one to three seconds.",
        "The published defaults are budgeted at about two minutes per chapter on two cores.",
        "The default run takes about two minutes on one core.",
        "The defaults take about a minute on one core; rerun with other values via `make rerun`.",
        "A run takes 2 s on one core.",
        "It takes about 30 sec on a laptop.",
        "The sweep runs in three hours on one CPU.",
        "The build needs 1.5 s on two cores.",
        "It lasts 2 minutes on my computer.",
    ],
)
def test_the_check_flags_typed_timings(sentence):
    assert wallclock_sentences(sentence) == [sentence]


@pytest.mark.parametrize(
    "sentence",
    [
        "Each session below is 90 minutes: a short lecture on the statement.",
        "In class: the kernel of the matrix (mathematical, 10 min) and a rerun (20 min).",
        "One draw costs at most three eigenvalue computations (`make bench`).",
        "This distance need not vanish as it grows, {ref}`sec-08-head-width`.",
        "To see what they cost on your machine, time a quick rerun first (`attnspec rerun 09 "
        "--quick`).",
    ],
)
def test_the_check_spares_class_durations_and_ratios(sentence):
    assert wallclock_sentences(sentence) == []


@pytest.mark.parametrize("name, text", _prose_pages(), ids=lambda v: v if len(v) < 60 else "")
def test_no_page_states_a_wallclock_time(name, text):
    assert wallclock_sentences(text) == [], name
