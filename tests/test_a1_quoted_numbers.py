"""Appendix A1 is Markdown without execution: the tolerances it quotes are the library's and the
tests' own constants, and every test it names exists (so the page cannot drift from the code)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from attnspec.laws import base, multihead, multihead_moments

ROOT = Path(__file__).resolve().parents[1]
A1 = " ".join((ROOT / "chapters" / "A1_multihead_law_derivation.md").read_text().split())
TESTS = " ".join((ROOT / "tests" / "test_laws_multihead.py").read_text().split())


def power(value):
    """1e-10 -> '10^{-10}', as A1 writes it."""
    exponent = round(math.log10(value))
    assert value == pytest.approx(10.0 ** exponent, rel=1e-12), value
    return f"10^{{{exponent}}}"


@pytest.mark.parametrize("phrase, value", [
    ("every build checks the mass to ${}$", base.MASS_TOL),
    ("and $m_1, m_2$ to ${}$ relative", base.MOMENT_TOL),
    ("the two disagree by more than ${}$ is refused", multihead_moments._MOMENT_RTOL),
    ("error bound is below ${}$ of the density", multihead._SERIES_RTOL),
    ("below ${}$ of the right edge, where rounding", multihead._TAIL_START),
])
def test_quoted_library_tolerances(phrase, value):
    assert phrase.format(power(value)) in A1, phrase


def test_cited_tests_exist():
    cited = set(re.findall(r"`(test_\w+)`", A1))
    assert len(cited) >= 4, cited
    for name in cited:
        assert f"def {name}(" in TESTS, name


@pytest.mark.parametrize("a1_text, test_text", [
    ("off the real axis at $\\eta = 0.01\\,m_1$ | agreement to $10^{-10}$ relative "
     "(`test_newton_agrees_with_polynomial_method`)",
     "eta = 0.01 * law.mean() / law.chain.unit G, _ = law.chain.cauchy_on_axis(x, "
     "closed_form_moments(law.chain)[0], eta=eta) assert_allclose(cauchy_polynomial(law.chain, "
     "x + 1j * eta), G, rtol=1e-10)"),
    ("off the real axis at $\\eta = 0.1\\,m_1$ | agreement to $10^{-10}$ relative "
     "(`test_newton_agrees_with_forward_fixed_point_kv`)",
     "eta = 0.1 * law.mean() / law.chain.unit"),
    ("$1$ to $10^{-12}$, also at $x^{-3/4}$ edges (`test_edges_mass_and_scipy_semantics`)",
     "assert law.expect(np.ones_like) == pytest.approx(1.0, rel=0, abs=1e-12)"),
    ("`KS_TOL`, three times the sampling noise `KS_NOISE`", "KS_TOL = 3 * KS_NOISE"),
])
def test_quoted_test_settings(a1_text, test_text):
    assert a1_text in A1
    assert test_text in TESTS
