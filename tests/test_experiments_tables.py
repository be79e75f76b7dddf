"""Tests of attnspec.experiments.tables: number formats and comparison tables."""

import math

import pytest

from attnspec.experiments import tables


@pytest.mark.parametrize("x, digits, text", [
    (7.14310799, 4, "7.143"), (0.0034567, 2, "0.0035"), (36.0, 3, "36.0"), (100.4, 2, "1.0e+02"),
    (math.nan, 3, "nan"), (None, 3, "nan")], ids=["m2", "ks", "trailing-zero", "big", "nan",
                                                   "none"])
def test_significant(x, digits, text):
    """Rounding to significant digits keeps trailing zeros (stable nbval text)."""
    assert tables.significant(x, digits) == text
