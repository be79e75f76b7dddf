"""Row-sum fluctuations measured term by term (attnspec.experiments.row_sums) against theory."""

import pytest

from attnspec.experiments import row_sums
from attnspec.experiments.thresholds import row_sum_fluctuation


@pytest.mark.parametrize("ell, d_qk, beta", [(600, 600, 1.0), (800, 200, 0.7), (300, 900, 1.3)])
def test_simulation_matches_both_terms(ell, d_qk, beta):
    # oracle: the leading-order terms of Lemma 2, implemented independently in thresholds.py
    theory = row_sum_fluctuation(beta, ell, d_qk)
    measured = row_sums.measure_row_sum_fluctuation(ell, d_qk, beta, draws=3, rng=11)
    # sampling error of a standard deviation over n rows ~ 1/sqrt(2n) relative (n = 3 ell),
    # plus O(1/sqrt(ell)) corrections to the leading-order formula
    assert measured.keys == pytest.approx(theory.keys, rel=0.12)
    assert measured.total == pytest.approx(theory.total, rel=0.12)
    assert measured.query == pytest.approx(theory.query, rel=0.35)


def test_values_of_math_md():
    # MATH.md §5: 0.041 and 0.022 at beta = 1, ell = d_qk = 1000 (one draw, ~2% noise)
    measured = row_sums.measure_row_sum_fluctuation(1000, 1000, 1.0, draws=2, rng=0)
    assert measured.keys == pytest.approx(0.041, rel=0.06)
    assert measured.query == pytest.approx(0.022, rel=0.3)


def test_seeded():
    first = row_sums.measure_row_sum_fluctuation(50, 40, 1.0, rng=5)
    assert first == row_sums.measure_row_sum_fluctuation(50, 40, 1.0, rng=5)


@pytest.mark.parametrize("kwargs, name", [
    (dict(ell=1, d_qk=5, beta=1.0), "ell"), (dict(ell=5, d_qk=0, beta=1.0), "d_qk"),
    (dict(ell=5, d_qk=5, beta=0.0), "beta"), (dict(ell=5, d_qk=5, beta=float("inf")), "beta"),
    (dict(ell=5, d_qk=5, beta=1.0, draws=0), "draws"),
])
def test_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        row_sums.measure_row_sum_fluctuation(**kwargs)


def test_size_beyond_memory_refused_by_name():
    with pytest.raises(ValueError, match="ell"):
        row_sums.measure_row_sum_fluctuation(10**7, 10, 1.0)
