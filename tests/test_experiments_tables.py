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


@pytest.mark.parametrize("value, se, text", [
    (177.4, 34.0, "177 ± 30"),                  # never rounded to tens: 177, not 180
    (7.1431, 0.0512, "7.14 ± 0.05"),
    (1.6812, 0.0134, "1.681 ± 0.013"),          # an error starting with 1 keeps two digits
    (9.31, 0.0996, "9.31 ± 0.10"),              # the error rounds up to a leading 1
    (0.28321, 7.1e-4, "0.2832 ± 0.0007"),
    (-0.001, 0.05, "0.00 ± 0.05"),              # no "-0.00"
    (-3.456, 0.2, "-3.5 ± 0.2"),
    (123456.0, 3000.0, "123456 ± 3000"),
    (1.2346e12, 4.6e9, "(1.235 ± 0.005)e+12"),  # huge: a shared power of ten
    (1e308, 1e307, "(1.00 ± 0.10)e+308"),
    (1.0e-9, 3e-10, "(1.0 ± 0.3)e-09"),         # tiny
    (1.0, 1e300, "(0.0 ± 1.0)e+300"),           # error far above the value
    (2.0, math.nan, "2.00"),                    # one draw: no error
    (5.0, 0.0, "5.00"),                         # exact
    (0.5, 5e-324, "0.500"),                     # below double precision's rounding
    (1.0, math.inf, "1.00 ± inf"),
    (math.nan, 0.1, "nan"), (math.inf, 0.1, "inf")],
    ids=lambda x: str(x))
def test_format_with_se(value, se, text):
    """The value is rounded to the decimal place of its error's last significant digit."""
    assert tables.format_with_se(value, se) == text


def test_format_with_se_matches_the_error_digits():
    """On random inputs the value shows exactly as many decimals as the error, the value is
    within half a unit of that last place, and the error within a quarter of itself."""
    import numpy as np

    rng = np.random.default_rng(22)
    for value, se in zip(rng.normal(0, 50, 200), 10.0 ** rng.uniform(-3.5, 2.5, 200)):
        shown, error = tables.format_with_se(value, se).split(" ± ")
        decimals = len(error.partition(".")[2])
        assert len(shown.partition(".")[2]) == decimals
        assert abs(float(shown) - value) <= 0.5 * 10.0 ** -decimals + 1e-12
        assert abs(float(error) - se) <= 0.26 * se      # one digit >= 2, or two digits


def test_format_with_se_nonbreaking():
    assert tables.format_with_se(1.0, 0.1, nonbreaking=True) == "1.00\u00a0±\u00a00.10"


@pytest.mark.parametrize("kwargs, match", [
    (dict(value=1.0, se=-0.1), r"se must be a standard error >= 0.*se=-0\.1"),
    (dict(value="a", se=0.1), r"value and se must be real numbers.*value='a'"),
    (dict(value=1.0, se=0.1, nonbreaking="yes"), r"nonbreaking"),
])
def test_format_with_se_refuses_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        tables.format_with_se(**kwargs)
