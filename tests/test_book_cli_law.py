"""Tests of attnspec.book.cli_law: the `attnspec law` subcommand."""

import argparse
import math
import re

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
