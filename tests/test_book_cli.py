"""The attnspec command line, as a reader runs it from a shell."""

import subprocess
import sys

import pytest

from attnspec.book import cli
from attnspec.book.chapters import CHAPTERS


def test_chapters_lists_every_chapter_with_its_parameters(capsys):
    """`attnspec chapters` prints each chapter and each parameter's type, range and help."""
    assert cli.main(["chapters"]) == 0
    out = capsys.readouterr().out
    for name, spec in CHAPTERS.items():
        assert name in out
        for parameter, declared in spec.parameters.items():
            assert f"  {parameter} ({declared.kind()}): {declared.help}" in out


def test_python_dash_m_runs_the_same_command():
    """`python -m attnspec law ...` works from a shell and exits 0."""
    done = subprocess.run([sys.executable, "-m", "attnspec", "law", "--beta", "1", "--c", "1"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "9.00954" in done.stdout      # the right edge of MATH.md §3 at beta = 1, c = 1


def test_bad_law_parameter_exits_2_with_the_name():
    """A bad value is named on stderr with exit status 2, no traceback."""
    done = subprocess.run([sys.executable, "-m", "attnspec", "law", "--beta", "0", "--c", "1"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "beta" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("flag, value, bound", [("--table", "100000000", "10000"),
                                                ("--moments", "1000", "20"),
                                                ("--table", "-1", "0")])
def test_law_size_flags_are_bounded_before_any_work(flag, value, bound):
    """--table and --moments have documented maxima, refused at once with exit 2 (no 24 GB)."""
    done = subprocess.run([sys.executable, "-m", "attnspec", "law", flag, value],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stdout[-500:]
    assert flag.lstrip("-") in done.stderr and bound in done.stderr
    assert "Traceback" not in done.stderr
