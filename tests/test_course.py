"""The course kit end to end: `make course` builds a sheet, `make grade` grades submissions.

One sheet (session 3) is built with Otter-Grader; six submissions are made from its student
notebook and the solutions of ``tools/course_sheets.py``, and graded in the bubblewrap sandbox.
Expected marks follow from the tests' points: q1_moments has checks worth 1 (m1) and 2 (m2);
q2_edges 1 (four values), 1 (increasing), 1 (beyond the Marchenko–Pastur edge).
"""

import csv
import re
import shutil
import subprocess
import sys

import nbformat
import pytest
from helpers import ROOT, unavailable

sys.path.insert(0, str(ROOT / "tools"))
import build_course  # noqa: E402
import grade_course  # noqa: E402
from course_sheets import PARTS  # noqa: E402

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")]
SHEET = "session-03"
TIME_LIMIT = 40


def _submission(student, answers):
    """The student notebook with its answer cells (``...``) replaced by ``answers`` in order."""
    nb = nbformat.read(student, as_version=4)
    cells = iter(answers)
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.source.strip() == "...":
            cell.source = next(cells, "...")
    return nb


def _build(out, only, pdf):
    """``make course`` for ``only`` (it reads the book's build: ``make book``)."""
    try:
        build_course.book_build(ROOT)
    except build_course.BookMissing as exc:
        unavailable(str(exc))
    return build_course.build(out=out, only=only, pdf=pdf)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    student = _build(root / "course", [SHEET], pdf=False)
    notebook = student / f"{SHEET}.ipynb"
    solution = [part.solution for part in PARTS[SHEET]]
    outside = root / "outside.txt"
    secret = root / "course" / "source" / f"{SHEET}.ipynb"
    tests = root / "course" / "autograder" / SHEET / "tests" / "q1_moments.py"
    sneaky = (f"text = open({str(secret)!r}).read() + open({str(tests)!r}).read()\n"
              "m1, m2 = 1.718281828459045, 2 * 1.718281828459045**2 + 1\n")
    writer = (f"for path in ({str(outside)!r}, {str(ROOT / 'PWNED')!r}, '/tmp/../PWNED'):\n"
              "    try:\n        open(path, 'w').write('x')\n    except OSError:\n        pass\n"
              + solution[0])
    submissions = root / "submissions"
    submissions.mkdir()
    made = {
        "correct": solution,
        "blank": [],
        "partial": [solution[0].replace("law.moment(2)", "2 * law.moment(1)**2"),
                    solution[1].replace("for b in", "for b in reversed(").replace(
                        "2.0)]", "2.0))]")],
        "loop": ["while True:\n    pass"] + solution[1:],
        "reads_solutions": [sneaky, ""],
        "writes_outside": [writer],
    }
    for name, answers in made.items():
        nbformat.write(_submission(notebook, answers), submissions / f"{name}.ipynb")
    gradebook = grade_course.grade(submissions, timeout=TIME_LIMIT, out=root / "grading",
                                   autograder=root / "course" / "autograder")
    rows = {row["student"]: row for row in csv.DictReader(gradebook.open())}
    return rows, root, outside


def test_the_student_release_has_no_solution_and_no_hidden_test(graded):
    _, root, _ = graded
    student = root / "course" / "student"
    text = "".join(p.read_text() for p in student.rglob("*") if p.is_file())
    assert "AttentionLaw(1.0, 1.0)" in (root / "course" / "source" / f"{SHEET}.ipynb").read_text()
    assert "law = attnspec.AttentionLaw(1.0, 1.0)" not in text
    assert "Marking scheme" not in text and "hidden': True" not in text
    assert not (student / "autograder").exists()


def test_a_correct_submission_gets_full_marks(graded):
    row = graded[0]["correct"]
    assert row["status"] == "ran"
    assert row["auto_total"] == row["auto_possible"] == "6"


def test_a_blank_submission_gets_zero(graded):
    assert graded[0]["blank"]["auto_total"] == "0"


def test_a_partly_wrong_submission_gets_the_partial_marks(graded):
    row = graded[0]["partial"]
    # m2 = 2 s² misses c β⁴: 1 of 3 (m1 right). Edges in reverse order: four values (1), not
    # increasing (0), and the edge of β = 0.5 stands where β = 2's should exceed 4(e⁴ − 1) (0)
    assert (row["q1_moments"], row["q2_edges"], row["auto_total"]) == ("1", "1", "2")


def test_an_infinite_loop_is_stopped_at_the_time_limit(graded):
    row = graded[0]["loop"]
    assert row["status"] == "time limit" and row["auto_total"] == "0"


def test_a_submission_cannot_read_the_solutions(graded):
    row = graded[0]["reads_solutions"]
    assert row["status"] == "ran" and row["auto_total"] == "0"


def test_a_submission_cannot_write_outside_its_folder(graded):
    rows, root, outside = graded
    assert not outside.exists() and not (ROOT / "PWNED").exists()
    assert rows["writes_outside"]["q1_moments"] == "3"       # it ran, in its own folder


def test_feedback_per_student(graded):
    rows, root, _ = graded
    feedback = root / "grading" / "feedback"
    assert sorted(p.stem for p in feedback.glob("*.md")) == sorted(rows)
    assert "did not finish" in (feedback / "loop.md").read_text()
    assert "3/3" in (feedback / "correct.md").read_text()


@pytest.mark.browser
def test_a_sheet_prints_to_pdf_with_its_maths_typeset(tmp_path):
    """The PDF of a sheet (nbconvert HTML, headless Chromium) shows the text and no raw TeX."""
    if build_course.find_chrome() is None or shutil.which("pdftotext") is None:
        unavailable("headless Chromium and poppler-utils are needed for the PDF sheets")
    student = _build(tmp_path / "course", ["session-01"], pdf=True)
    pdf = student / "session-01.pdf"
    assert pdf.read_bytes()[:5] == b"%PDF-"
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    assert "Problem sheet: Session 1" in text and re.search(r"Exercise 1\.\d", text)
    assert "ex-01-" not in text
    assert "\\beta" not in text and "$" not in text          # MathJax typeset every formula
