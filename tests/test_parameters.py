"""Chapter parameters: declared once, refused clearly, before any computation."""

import re
import sys

import pytest

import attnspec
from attnspec.book import cli
from attnspec.book.parameters import (Bool, Choice, Float, FloatList, Int, ParameterError,
                                 check_values, parse_assignments)

CH01 = "01_attention_as_a_random_matrix"


@pytest.mark.parametrize("spec, value, expected", [
    (Int(2, 10), 5, 5),
    (Int(2, 10), 5.0, 5),
    (Float(0, 5, min_open=True), 2, 2.0),
    (Bool(), True, True),
    (Choice(("none", "mqa")), "mqa", "mqa"),
    (FloatList(0, 5, min_open=True), [0.5, 1], [0.5, 1.0]),
], ids=["int", "integral-float", "int-as-float", "bool", "choice", "float-list"])
def test_valid_values_are_converted(spec, value, expected):
    """Valid values pass and come back in the declared type."""
    got = spec.check("x", value)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize("spec, value, message", [
    (Int(2, 10), 1, "x must be an int >= 2 and <= 10; got x=1"),
    (Int(2, 10), 2.5, "x must be an integer; got x=2.5"),
    (Int(2, 10), True, "x must be an integer; got x=True"),
    (Float(0, 5, min_open=True), 0.0, "x must be a finite float > 0 and <= 5; got x=0.0"),
    (Float(0, 5, min_open=True), float("nan"), "x must be a finite float > 0 and <= 5; got x=nan"),
    (Float(0, 5), "1", "x must be a number; got x='1'"),
    (Bool(), 1, "x must be True or False; got x=1"),
    (Choice(("none", "mqa")), "mq", "x must be one of 'none', 'mqa'; got x='mq'"),
    (FloatList(0, 5), [], "x must have 1 to 12 entries; got 0 in x=[]"),
    (FloatList(0, 5), [1, -1], "x[1] must be a finite float >= 0 and <= 5; got x[1]=-1.0"),
], ids=["int-low", "int-fraction", "int-bool", "float-low", "float-nan", "float-str",
        "bool-int", "choice", "list-empty", "list-item"])
def test_invalid_values_name_parameter_value_and_range(spec, value, message):
    """Every refusal names the parameter, the value and what is allowed."""
    with pytest.raises(ParameterError, match=re.escape(message)):
        spec.check("x", value)


def test_unknown_name_lists_the_chapters_parameters():
    """A misspelt name is refused with the chapter's whole parameter list."""
    with pytest.raises(ParameterError) as info:
        check_values(CH01, {"betta": 1.0})
    text = str(info.value)
    assert "unknown parameter(s) betta" in text
    for name in ["ell", "d_qk", "beta", "draws", "seed"]:
        assert f"  {name} (" in text


def test_check_parameters_reads_a_notebook_namespace():
    """In a notebook the check sees the globals, ignores modules and functions, converts types."""
    namespace = {"np": sys, "print": print, "ell": 100, "d_qk": 50, "beta": 1, "draws": 2,
                 "seed": 0, "_": None, "In": [], "Out": {}}
    params = attnspec.check_parameters(CH01, namespace)
    assert params.beta == 1.0 and isinstance(namespace["beta"], float)


def test_check_parameters_catches_an_injected_unknown_name():
    """A papermill -p with an unknown name shows up as an extra global and is refused."""
    namespace = {"ell": 100, "d_qk": 50, "beta": 1.0, "draws": 2, "seed": 0, "bta": 2.0}
    with pytest.raises(ParameterError, match="unknown parameter"):
        attnspec.check_parameters(CH01, namespace)


def test_parse_assignments_reads_literals_and_bare_words():
    """beta=1.5 is a float, betas=[0.5,1] a list; a bare word would be a string."""
    got = parse_assignments(CH01, ["beta=1.5", "ell=500"])
    assert got == {"beta": 1.5, "ell": 500}
    with pytest.raises(ParameterError, match="name=value"):
        parse_assignments(CH01, ["beta 1.5"])


def test_cli_rerun_refuses_before_starting_a_kernel(monkeypatch, capsys):
    """attnspec rerun with a bad value exits 2 with the message, and papermill is never called."""
    import papermill

    def fail(*args, **kwargs):
        raise AssertionError("papermill must not run")

    monkeypatch.setattr(papermill, "execute_notebook", fail)
    status = cli.main(["rerun", "01", "beta=-1"])
    err = capsys.readouterr().err
    assert status == 2
    assert "beta must be a finite float > 0 and <= 5; got beta=-1.0" in err
    assert "Its parameters are:" in err


def test_cli_rerun_refuses_an_unknown_chapter(capsys):
    """An unknown chapter lists the chapters that exist."""
    assert cli.main(["rerun", "99_nope"]) == 2
    assert "01_attention_as_a_random_matrix" in capsys.readouterr().err


def test_output_name_is_safe_and_sorted():
    """Rerun outputs are named by chapter and sorted parameters, with safe characters only."""
    from attnspec.book.rerun import output_name

    assert output_name("03_x", {"ell": 500, "beta": 1.5}) == "03_x__beta=1.5__ell=500.ipynb"
    assert output_name("03_x", {"betas": [0.5, 1.0]}) == "03_x__betas=0.5,1.0.ipynb"


def test_bare_words_in_lists_survive_the_shell():
    """`make rerun PARAMS="ties=[kv,mqa]"` reaches us without quotes and still parses."""
    got = parse_assignments("07_key_dependent_projections", ["ties=[kv,mqa]"])
    assert got == {"ties": ["kv", "mqa"]}
    with pytest.raises(ParameterError, match=re.escape("ties[0] must be one of")):
        parse_assignments("07_key_dependent_projections", ["ties=[kvv]"])


def test_cli_accepts_parameters_after_options(monkeypatch, capsys):
    """`attnspec rerun 01 --quick beta=-2` reads beta (and refuses it) like `01 beta=-2 --quick`."""
    assert cli.main(["rerun", "01", "--quick", "beta=-2"]) == 2
    assert "got beta=-2.0" in capsys.readouterr().err


def test_cli_reports_a_failing_chapter_without_a_traceback(monkeypatch, capsys):
    """A chapter that raises gives exit status 1 and papermill's message, nothing written."""
    import papermill
    from papermill.exceptions import PapermillExecutionError

    def fail(*args, **kwargs):
        raise PapermillExecutionError(3, 1, "boom", "RuntimeError", "boom", [])

    monkeypatch.setattr(papermill, "execute_notebook", fail)
    assert cli.main(["rerun", "01", "--quick"]) == 1
    assert "the chapter failed; nothing was written" in capsys.readouterr().err
