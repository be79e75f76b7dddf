"""Row-sum fluctuations (attnspec.experiments.row_sums): formula against simulation."""

import math

import pytest

from attnspec.experiments import row_sums


def test_formula_values_from_math_md():
    # MATH.md §5: 0.041 and 0.022 at beta = 1, ell = d_qk = 1000
    out = row_sums.row_sum_fluctuation(1000, 1000, 1.0)
    assert out.keys == pytest.approx(0.041, abs=5e-4)
    assert out.query == pytest.approx(0.022, abs=5e-4)
    assert out.total == pytest.approx(math.hypot(out.keys, out.query))


@pytest.mark.parametrize("ell, d_qk, beta", [(600, 600, 1.0), (800, 200, 0.7), (300, 900, 1.3)])
def test_simulation_matches_both_terms(ell, d_qk, beta):
    theory = row_sums.row_sum_fluctuation(ell, d_qk, beta)
    measured = row_sums.measure_row_sum_fluctuation(ell, d_qk, beta, draws=3, rng=11)
    # sampling error of a standard deviation over n rows ~ 1/sqrt(2n) relative (n = 3 ell),
    # plus O(1/sqrt(ell)) corrections to the leading-order formula
    assert measured.keys == pytest.approx(theory.keys, rel=0.12)
    assert measured.total == pytest.approx(theory.total, rel=0.12)
    assert measured.query == pytest.approx(theory.query, rel=0.35)


def test_seeded():
    first = row_sums.measure_row_sum_fluctuation(50, 40, 1.0, rng=5)
    assert first == row_sums.measure_row_sum_fluctuation(50, 40, 1.0, rng=5)


@pytest.mark.parametrize("kwargs, name", [
    (dict(ell=1, d_qk=5, beta=1.0), "ell"), (dict(ell=5, d_qk=0, beta=1.0), "d_qk"),
    (dict(ell=5, d_qk=5, beta=0.0), "beta"), (dict(ell=5, d_qk=5, beta=float("inf")), "beta"),
])
def test_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        row_sums.row_sum_fluctuation(**kwargs)
    with pytest.raises(ValueError, match=name):
        row_sums.measure_row_sum_fluctuation(**kwargs)


def test_size_beyond_memory_refused_by_name():
    with pytest.raises(ValueError, match="ell"):
        row_sums.measure_row_sum_fluctuation(10**7, 10, 1.0)
