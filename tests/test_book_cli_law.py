"""Tests of attnspec.book.cli_law: the `attnspec law` subcommand."""

import argparse
import math
import re

import pytest

from attnspec.book import cli_law


def test_cli_law_run(capsys):
    """`attnspec law` prints edges, MP edge, ratio, exact moments and a density table."""
    args = argparse.Namespace(beta=1.0, c=1.0, moments=3, table=5)
    assert cli_law.run(args) == 0
    out = capsys.readouterr().out
    assert "AttentionLaw(beta=1.0, c=1.0)" in out
    assert re.search(r"right edge\s+9\.00954", out) and re.search(r"MP edge 4s\s+6\.87312", out)
    assert re.search(r"ratio\s+1\.31", out)
    assert re.search(r"m2\s+" + re.escape(f"{2 * math.expm1(1) ** 2 + 1:.12g}"), out)
    assert len([line for line in out.splitlines() if re.match(r"\s+\d\.\d+\s+\d", line)]) == 5


def test_cli_law_parser_and_bad_input(capsys):
    """The subcommand registers its options; bad β exits 2 with a named message."""
    parser = argparse.ArgumentParser()
    cli_law.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["law", "--beta", "-1", "--c", "2"])
    assert args.func(args) == 2
    assert "beta must be" in capsys.readouterr().err


def _parse(argv):
    parser = argparse.ArgumentParser(prog="attnspec")
    cli_law.add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["law", *argv])


@pytest.mark.parametrize("argv, message", [
    (["--beta", "٣"], "'٣' is not a decimal number"),          # Arabic-Indic 3, read as 3
    (["--beta", "1_0"], "'1_0' is not a decimal number"),       # read as 10
    (["--c", "0x1"], "'0x1' is not a decimal number"),
    (["--moments", "١"], "'١' is not a decimal integer"),
    (["--beta", "1", "--beta", "2"], "argument --beta: given twice"),   # kept 2 silently
    (["--c", "2", "--table", "3", "--c", "4"], "argument --c: given twice"),
])
def test_cli_law_refuses_foreign_digits_underscores_and_repeats(argv, message, capsys):
    """Issue 24: the CLI read `--beta ٣` as 3 and `1_0` as 10, and kept the last of a
    repeated option; each is now an argparse error (exit status 2) saying why."""
    with pytest.raises(SystemExit) as info:
        _parse(argv)
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_cli_law_reads_ascii_numbers_and_states_the_domain(capsys):
    """Plain literals still parse (nan reaches the library, which refuses it by name); the
    help states the domains 0 < β ≤ 26 and 0.01 ≤ c ≤ 100 (it said "c > 0")."""
    args = _parse(["--beta", ".5", "--c", "1e1", "--moments", "+3"])
    assert (args.beta, args.c, args.moments) == (0.5, 10.0, 3)
    assert _parse(["--beta=-2.5E-1"]).beta == -0.25
    assert math.isnan(_parse(["--beta", "nan"]).beta)
    with pytest.raises(SystemExit):
        _parse(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "0 < β ≤ 26" in text and "0.01 ≤ c ≤ 100" in text and "> 0" not in text
