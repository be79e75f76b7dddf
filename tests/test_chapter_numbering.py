"""One chapter numbering everywhere: the sidebar, the file names, the CLI, the labels, README,
``make help`` and the course guide give every chapter the number the reader sees."""

import re
import subprocess

import nbformat
import pytest
import yaml
from helpers import ROOT

from attnspec.book.parameters import ParameterError
from attnspec.book.rerun import resolve_chapter

STEM = re.compile(r"^(\d\d)_[a-z0-9_]+$")


def _toc_entries():
    """``(file stem, numbered?)`` for every page of ``_toc.yml``, in reading order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return [(entry["file"].split("/")[-1], bool(part.get("numbered")))
            for part in toc["parts"] for entry in part["chapters"]]


NUMBERED = [stem for stem, numbered in _toc_entries() if numbered]


def test_the_sidebar_numbers_are_the_file_numbers():
    """The n-th numbered page of the sidebar is ``chapters/<n:02d>_*``, and only numbered
    pages have a number in their file name."""
    assert [int(STEM.match(stem).group(1)) if STEM.match(stem) else None
            for stem in NUMBERED] == list(range(1, len(NUMBERED) + 1))
    unnumbered = [stem for stem, numbered in _toc_entries() if not numbered]
    assert [stem for stem in unnumbered if STEM.match(stem)] == []
    on_disk = sorted(p.stem for p in (ROOT / "chapters").iterdir() if STEM.match(p.stem))
    assert on_disk == sorted(NUMBERED)


@pytest.mark.parametrize("stem", NUMBERED)
def test_the_cli_finds_a_chapter_by_its_number_and_name(stem):
    """``attnspec rerun`` and ``make rerun`` accept 3, 03, the file name and its slug."""
    number = int(stem[:2])
    for name in (str(number), f"{number:02d}", stem, stem[3:], f"chapters/{stem}.ipynb"):
        assert resolve_chapter(name, ROOT).stem == stem, name


@pytest.mark.parametrize("fragment, stem", [("threshold", "05_outliers_and_threshold"),
                                            ("trained", "09_trained_transformer"),
                                            ("Key_Dependent", "07_key_dependent_projections")])
def test_a_unique_fragment_names_its_chapter(fragment, stem):
    assert resolve_chapter(fragment, ROOT).stem == stem


@pytest.mark.parametrize("name, says", [
    ("attention", "it matches 01_attention_as_a_random_matrix, 08_realistic_random_attention"),
    ("99", "it matches no chapter"), ("0", "it matches no chapter"),
    ("\u0663", "it matches no chapter"),          # an Arabic-Indic three is not 3
    ("", "it matches no chapter"), ("course_guide", "it matches no chapter")])
def test_an_ambiguous_or_unknown_chapter_is_refused_with_the_list(name, says):
    with pytest.raises(ParameterError) as error:
        resolve_chapter(name, ROOT)
    assert says in str(error.value)
    assert "3  03_single_head_theorem" in str(error.value)


def test_the_cli_says_which_chapter_it_picked(capsys):
    from attnspec.book import cli

    assert cli.main(["rerun", "threshold", "beta=-1"]) == 2   # refused before any run
    assert cli.main(["rerun", "3", "betas=[-1]"]) == 2
    err = capsys.readouterr().err
    assert "05_outliers_and_threshold" in err and "03_single_head_theorem" in err


def _chapter_sources():
    """``(chapter number, text)`` of every numbered chapter's cells."""
    for stem in NUMBERED:
        nb = nbformat.read(ROOT / "chapters" / f"{stem}.ipynb", as_version=4)
        yield int(stem[:2]), "\n".join(cell.source for cell in nb.cells)


@pytest.mark.parametrize("number, text", list(_chapter_sources()),
                         ids=[stem[:2] for stem in NUMBERED])
def test_labels_carry_their_chapters_number(number, text):
    """Labels, figure names and glue keys defined in chapter n start with its number
    (``fig-03-grid``, ``ex-09-sink``, ``ch08-m``), so a cross-reference says where it points."""
    defined = re.findall(r"(?::label:|:name:) *((?:fig|ex|sec|eq|tbl)-\d\d-[\w-]+)", text)
    defined += re.findall(r"glue\(\s*\"(ch\d\d-[\w-]+)\"", text)
    defined += re.findall(r"\"name\": \"((?:fig|tbl)-\d\d-[\w-]+)\"", text)
    wrong = [label for label in defined if int(re.search(r"\d\d", label).group()) != number]
    assert wrong == []


MENTION = re.compile(r"\b[Cc]hapter (\d+)\b")
FILE = re.compile(r"\b(\d\d)_[a-z][a-z0-9_]+\b")
MINILM_CHAPTER = next(int(s[:2]) for s in NUMBERED if "trained" in s)


def _text_files():
    paths = [ROOT / "README.md", ROOT / "Makefile", ROOT / "intro.md",
             *sorted((ROOT / "chapters").glob("*.md")), *sorted((ROOT / "docs").glob("*.md")),
             *sorted((ROOT / "lib" / "attnspec").rglob("*.py")),
             *sorted((ROOT / "lib" / "attnspec").rglob("*.md")),
             *sorted((ROOT / "tools").glob("*.py"))]
    return [p for p in paths if p.is_file()]


@pytest.mark.parametrize("path", _text_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_chapter_named_beside_its_file_has_the_files_number(path):
    """A line that says "chapter n" and names a chapter file names the file numbered n; no
    page names a chapter beyond the last; every mention of the MiniLM weights' chapter is the
    trained-transformer chapter."""
    for line in path.read_text().splitlines():
        said = {int(n) for n in MENTION.findall(line)}
        files = {int(n) for n in FILE.findall(line) if f"{n}_" in "".join(NUMBERED)}
        assert said <= set(range(1, len(NUMBERED) + 1)), line
        if len(said) == 1 and files:
            assert files == said, line
        if "MiniLM" in line and said:
            assert said == {MINILM_CHAPTER}, line


def test_make_help_numbers_chapters_as_the_book_does():
    help_text = subprocess.run(["make", "-s", "help"], cwd=ROOT, capture_output=True,
                               text=True, check=True).stdout
    for line in help_text.splitlines():
        said = {int(n) for n in MENTION.findall(line)}
        if "MiniLM" in line:
            assert said == {MINILM_CHAPTER}, line
