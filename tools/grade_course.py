"""Grade a folder of submitted problem sheets into a CSV gradebook (``make grade SUBMISSIONS=dir``).

Each submission ``<student>.ipynb`` is copied into its own working folder and executed by
``tools/course_runner.py`` inside a bubblewrap sandbox (``bwrap``): no network, the interpreter
and the virtual environment read-only, the submission's folder the only writable place, and
nothing else of the machine visible (not the checkout, not the autograder, not the solutions).
A time limit (``--timeout``, default 300 s) kills the sandbox and everything in it. The runner
writes the submission's named answers as plain JSON; Otter-Grader's test files then run here,
outside the sandbox, on those values (``otter.test_files.OKTestFile``).

Output, in ``--out`` (default ``_build/grading/<sheet>/``): ``gradebook.csv`` (one row per
student: the status, each autograded part's score, the automatic total, an empty column per
part marked by hand) and ``feedback/<student>.md``.

Usage::

    .venv/bin/python tools/grade_course.py SUBMISSIONS [--sheet session-03] [--timeout 300]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
AUTOGRADER = ROOT / "_build" / "course" / "autograder"
RUNNER = Path(__file__).resolve().with_name("course_runner.py")
#: largest answers.json read back from a sandbox
MAX_ANSWERS = 1_000_000


class GradingError(RuntimeError):
    """The grader cannot start (no autograder, no bwrap, unknown sheet)."""


def sandbox_command(folder, names, timeout):
    """The ``timeout bwrap ... python course_runner.py`` command for one working folder."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise GradingError("bubblewrap is needed to grade in a sandbox (apt-get install bubblewrap)")
    venv = Path(sys.prefix)
    base = Path(os.path.realpath(sys.base_prefix))
    library = ROOT / "lib"
    command = ["timeout", "--kill-after=5", str(timeout), bwrap,
               "--unshare-all", "--die-with-parent", "--new-session", "--clearenv",
               "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib",
               "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
               "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for path in dict.fromkeys([base, venv, library]):
        if not str(path).startswith("/usr/"):
            command += ["--ro-bind", str(path), str(path)]
    command += ["--ro-bind", str(RUNNER), "/grader/course_runner.py",
                "--bind", str(folder), "/submission", "--chdir", "/submission",
                "--setenv", "HOME", "/submission", "--setenv", "PATH", f"{venv}/bin:/usr/bin",
                "--setenv", "MPLBACKEND", "Agg", "--setenv", "MPLCONFIGDIR", "/tmp",
                "--setenv", "OPENBLAS_NUM_THREADS", "1", "--setenv", "OMP_NUM_THREADS", "1",
                f"{venv}/bin/python", "/grader/course_runner.py", "submission.ipynb", *names]
    return command


def read_answers(folder):
    """The JSON the runner wrote, as a dict of plain values; ``{}`` if missing or malformed."""
    path = folder / "answers.json"
    if not path.is_file() or path.is_symlink() or path.stat().st_size > MAX_ANSWERS:
        return {}
    try:
        answers = json.loads(path.read_text())
    except (ValueError, UnicodeDecodeError):
        return {}
    return answers if isinstance(answers, dict) else {}


def score_parts(sheet, grader, answers):
    """``[(part, score, points, summary)]``: Otter's test files run on the answers."""
    from otter.test_files import OKTestFile

    results = []
    for part in sheet["auto"]:
        test = OKTestFile.from_file(str(grader / "tests" / f"{part['name']}.py"))
        env = {name: answers[name] for name in part["answers"] if name in answers}
        if len(env) < len(part["answers"]):
            missing = sorted(set(part["answers"]) - set(env))
            results.append((part["name"], 0.0, part["points"], f"not defined: {missing}"))
            continue
        test.run(env)
        passed = sum(result.passed for result in test.test_case_results)
        summary = f"{passed} of {len(test.test_case_results)} checks passed"
        results.append((part["name"], float(test.score), float(test.possible), summary))
    return results


def sheet_of(notebook, chosen):
    """The sheet a submission answers: ``--sheet``, else the notebook's metadata."""
    if chosen:
        return chosen
    try:
        return nbformat.read(notebook, as_version=4).metadata.get("attnspec_sheet")
    except Exception:  # noqa: BLE001 (an unreadable file is graded as blank)
        return None


def grade(submissions, sheet_id=None, timeout=300, out=None, autograder=AUTOGRADER):
    """Grade every ``*.ipynb`` of ``submissions``; return the gradebook's path."""
    submissions = Path(submissions)
    notebooks = sorted(submissions.glob("*.ipynb"))
    if not notebooks:
        raise GradingError(f"SUBMISSIONS={submissions} holds no .ipynb file")
    ids = {sheet_of(nb, sheet_id) for nb in notebooks} - {None}
    if len(ids) != 1:
        raise GradingError(f"the submissions answer sheets {sorted(ids)}: grade one sheet at a "
                           "time, or name it with SHEET=session-NN")
    (sheet_id,) = ids
    grader = autograder / sheet_id
    if not (grader / "sheet.json").is_file():
        raise GradingError(f"no autograder for sheet {sheet_id!r} in {autograder}; run make course")
    sheet = json.loads((grader / "sheet.json").read_text())
    out = Path(out) if out else ROOT / "_build" / "grading" / sheet_id
    shutil.rmtree(out, ignore_errors=True)
    (out / "feedback").mkdir(parents=True)
    names = [name for part in sheet["auto"] for name in part["answers"]]
    rows = []
    for notebook in notebooks:
        student = notebook.stem
        folder = out / "work" / student
        folder.mkdir(parents=True)
        shutil.copy(notebook, folder / "submission.ipynb")
        run = subprocess.run(sandbox_command(folder, names, timeout), capture_output=True,
                             text=True)
        status = {0: "ran"}.get(run.returncode, "time limit" if run.returncode in (124, 137)
                                else f"failed (exit {run.returncode})")
        answers = read_answers(folder) if run.returncode == 0 else {}
        parts = score_parts(sheet, grader, answers)
        total = sum(score for _, score, _, _ in parts)
        possible = sum(points for _, _, points, _ in parts)
        row = {"student": student, "status": status}
        row.update({name: f"{score:g}" for name, score, _, _ in parts})
        row.update({"auto_total": f"{total:g}", "auto_possible": f"{possible:g}"})
        row.update({f"{m['name']} (by hand, /{m['points']})": "" for m in sheet["manual"]})
        rows.append(row)
        lines = [f"# {sheet['title']}: {student}", "", f"Run: {status} (time limit {timeout} s).",
                 "", f"Autograded: {total:g} of {possible:g} points.", ""]
        lines += [f"- {name}: {score:g}/{points:g} ({summary})"
                  for name, score, points, summary in parts]
        lines += ["", "Marked by hand: " + ", ".join(m["name"] for m in sheet["manual"]) + "."]
        if status != "ran":
            lines += ["", "The notebook did not finish: no answer was read. " +
                      (run.stderr.strip().splitlines() or [""])[-1]]
        (out / "feedback" / f"{student}.md").write_text("\n".join(lines) + "\n")
    gradebook = out / "gradebook.csv"
    with gradebook.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return gradebook


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submissions", type=Path)
    parser.add_argument("--sheet", help="the sheet (session-NN) if the notebooks do not say")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per submission")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if args.timeout <= 0:
        sys.exit(f"make grade: TIMEOUT={args.timeout}; allowed: a positive number of seconds")
    try:
        gradebook = grade(args.submissions, args.sheet, args.timeout, args.out)
    except GradingError as error:
        sys.exit(f"make grade: {error}")
    print(f"Gradebook: {gradebook}\nFeedback: {gradebook.parent / 'feedback'}")


if __name__ == "__main__":
    main()
