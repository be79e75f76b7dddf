"""Chapter parameters: declared once, refused clearly, before any computation."""

import re
import sys

import numpy as np
import pytest

import attnspec
from attnspec._validation import check_choice, check_float, check_int
from attnspec.book.chapters import check_values, parse_assignments
from attnspec.book.parameters import Bool, Choice, Float, FloatList, Int, ParameterError

CH01 = "01_attention_as_a_random_matrix"


@pytest.mark.parametrize("spec, value, expected", [
    (Int(2, 10), 5, 5),
    (Int(2, 10), np.int64(5), 5),
    (Float(0, 5, min_open=True), 2, 2.0),
    (Bool(), True, True),
    (Choice(("none", "mqa")), "mqa", "mqa"),
    (FloatList(0, 5, min_open=True), [0.5, 1], [0.5, 1.0]),
], ids=["int", "numpy-int", "int-as-float", "bool", "choice", "float-list"])
def test_valid_values_are_converted(spec, value, expected):
    """Valid values pass and come back in the declared type."""
    got = spec.check("x", value)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize("spec, value, message", [
    (Int(2, 10), 1, "x must be an integer >= 2 and <= 10; got x=1"),
    (Int(2, 10), 2.5, "x must be an integer; got x=2.5 (float)"),
    (Int(2, 10), 5.0, "x must be an integer; got x=5.0 (float)"),
    (Int(2, 10), True, "x must be an integer; got x=True"),
    (Float(0, 5, min_open=True), 0.0, "x must be a finite number > 0 and <= 5; got x=0.0"),
    (Float(0, 5, min_open=True), float("nan"), "x must be a finite number > 0 and <= 5; got x=nan"),
    (Float(0, 5), "1", "x must be a real number; got x='1' (str)"),
    (Bool(), 1, "x must be True or False; got x=1"),
    (Choice(("none", "mqa")), "mq", "x must be one of 'none', 'mqa'; got x='mq'"),
    (FloatList(0, 5), [], "x must have 1 to 12 entries; got 0 in x=[]"),
    (FloatList(0, 5), [1, -1], "x[1] must be a finite number >= 0 and <= 5; got x[1]=-1.0"),
], ids=["int-low", "int-fraction", "int-integral-float", "int-bool", "float-low", "float-nan",
        "float-str",
        "bool-int", "choice", "list-empty", "list-item"])
def test_invalid_values_name_parameter_value_and_range(spec, value, message):
    """Every refusal names the parameter, the value and what is allowed."""
    with pytest.raises(ParameterError, match=re.escape(message)):
        spec.check("x", value)


@pytest.mark.parametrize("spec, check, value", [
    (Int(2, 10), lambda v: check_int("x", v, min=2, max=10), 5),
    (Int(2, 10), lambda v: check_int("x", v, min=2, max=10), 5.0),
    (Int(2, 10), lambda v: check_int("x", v, min=2, max=10), 11),
    (Int(2, 10), lambda v: check_int("x", v, min=2, max=10), "5"),
    (Float(0, 5, min_open=True), lambda v: check_float("x", v, min=0, max=5, min_open=True), 0),
    (Float(0, 5, min_open=True), lambda v: check_float("x", v, min=0, max=5, min_open=True), 5),
    (Float(0, 5, min_open=True), lambda v: check_float("x", v, min=0, max=5, min_open=True),
     float("inf")),
    (Choice(("a", "b")), lambda v: check_choice("x", v, ("a", "b")), "c"),
], ids=["int", "int-float", "int-high", "int-str", "float-zero", "float-max", "float-inf",
        "choice"])
def test_chapter_parameters_and_function_arguments_agree(spec, check, value):
    """A spec type and the library's validator accept the same values, convert them alike, and
    refuse the rest with the same error type and message (issue 10: one implementation)."""
    def outcome(fn):
        try:
            got = fn(value)
        except ValueError as exc:
            return type(exc), str(exc)
        return type(got), got
    assert outcome(lambda v: spec.check("x", v)) == outcome(check)


def test_every_refusal_is_a_parameter_error():
    """Range and type errors of the validators are ParameterErrors (ValueErrors), type errors
    also TypeErrors, so check_values collects them and callers can catch either."""
    with pytest.raises(ParameterError):
        check_int("x", 1, min=2)
    with pytest.raises(ParameterError) as info:
        check_float("x", "1")
    assert isinstance(info.value, TypeError)
    assert attnspec.ParameterError is ParameterError


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


def test_bare_words_in_lists_survive_the_shell():
    """`make rerun PARAMS="ties=[kv,mqa]"` reaches us without quotes and still parses."""
    got = parse_assignments("07_key_dependent_projections", ["ties=[kv,mqa]"])
    assert got == {"ties": ["kv", "mqa"]}
    with pytest.raises(ParameterError, match=re.escape("ties[0] must be one of")):
        parse_assignments("07_key_dependent_projections", ["ties=[kvv]"])




@pytest.mark.parametrize("entry, named", [
    ('x = { kind = "flaot", min = 0, max = 1 }', "flaot"),
    ('x = { min = 0, max = 1 }', "kind"),
    ('x = { kind = "choice", options = "nosuchset" }', "nosuchset"),
    ('x = { kind = "float", min = 0, max = 1, colour = "red" }', "colour"),
    ('x = { kind = "int", min = 5, max = 1 }', "min=5 is above max=1"),
])
def test_a_malformed_registry_entry_is_refused_by_chapter_and_name(tmp_path, entry, named):
    from attnspec.book.chapters import _read_registry

    path = tmp_path / "chapters.toml"
    path.write_text(f'["07_demo".parameters]\n{entry}\n', encoding="utf-8")
    with pytest.raises(ParameterError) as info:
        _read_registry(path)
    assert "[07_demo.parameters] x" in str(info.value) and named in str(info.value)


def test_the_shipped_registry_reads_back_equal():
    from attnspec.book.chapters import _REGISTRY, CHAPTERS, _read_registry

    assert _read_registry(_REGISTRY) == CHAPTERS


def test_a_misspelt_parameter_gets_a_did_you_mean():
    """An unknown name close to a declared one is answered with that name (difflib)."""
    with pytest.raises(ParameterError) as info:
        check_values("03_single_head_theorem", {"betaz": [1.0], "dras": 2, "zzzz": 1})
    message = str(info.value)
    assert "betaz (did you mean betas?)" in message and "dras (did you mean draws?)" in message
    assert "zzzz," not in message and re.search(r"zzzz(?! \()", message)   # nothing close


@pytest.mark.parametrize("text, items", [
    ("ell=500 betas=[0.5, 1]", ["ell=500", "betas=[0.5, 1]"]),
    ("  tie='a b'   ties=[mqa, kv] --quick ", ["tie='a b'", "ties=[mqa, kv]", "--quick"]),
    ("x=(1, [2, 3]) y={'a': 1}", ["x=(1, [2, 3])", "y={'a': 1}"]),
    ("", []),
])
def test_parameters_text_splits_at_spaces_outside_brackets_and_quotes(text, items):
    from attnspec.book.chapters import split_assignments

    assert split_assignments(text) == items


@pytest.mark.parametrize("text, problem", [
    ("betas=[0.5, 1", "missing ']'"), ("betas=0.5]", "unmatched ']'"),
    ("x=(1]", "unmatched ']'"), ("tie='mqa", "missing \"'\""),
])
def test_unbalanced_parameters_text_is_refused(text, problem):
    from attnspec.book.chapters import split_assignments

    with pytest.raises(ParameterError, match=re.escape(problem)):
        split_assignments(text)
