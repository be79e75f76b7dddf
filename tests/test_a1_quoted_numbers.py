"""Appendix A1 is Markdown without execution: the tolerances it quotes are the library's and the
tests' own constants, and every test it names exists (so the page cannot drift from the code)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from attnspec.laws import base, multihead, multihead_moments

ROOT = Path(__file__).resolve().parents[1]
A1 = " ".join((ROOT / "chapters" / "A1_multihead_law_derivation.md").read_text().split())
TESTS = " ".join((ROOT / "tests" / "test_laws_multihead.py").read_text().split())
HERE = Path(__file__).read_text()


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
        assert f"def {name}(" in TESTS + HERE, name


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
    ("`KS_NOISE` was measured at $\\ell = 1000$, $d = 2000$",
     "H = 1..8, ℓ = 1000, d = 2000, β = 1):"),
    ("two independent draws must differ by 0.4 to 3 times $\\sqrt2\\,$`KS_NOISE`",
     "assert 0.4 * math.sqrt(2) * KS_NOISE <= ks <= 3 * math.sqrt(2) * KS_NOISE"),
])
def test_quoted_test_settings(a1_text, test_text):
    assert a1_text in A1
    assert test_text in TESTS


def _shared_query_m2(ell, d, heads, beta, seed):
    """m₂ of one Gaussian-equivalent draw with shared queries Q_h ≡ Q (independent K_h, V_h,
    Z_h, W_O^h; standard allocation d_h = d_v = d/H): a variant the library does not sample."""
    rng = np.random.default_rng(seed)
    width = d // heads
    s = math.expm1(beta ** 2)
    noise = math.sqrt(s - beta ** 2)
    Q = rng.standard_normal((ell, width))
    Y = np.zeros((ell, d))
    for _ in range(heads):
        K, V = rng.standard_normal((2, ell, width))
        B = (beta * Q @ K.T / math.sqrt(width) + noise * rng.standard_normal((ell, ell)))
        W_O = rng.standard_normal((width, d)) / math.sqrt(heads * width)
        Y += (B / math.sqrt(ell)) @ V @ W_O / math.sqrt(d)
    return np.mean(np.linalg.eigvalsh(Y @ Y.T) ** 2)


def test_shared_queries_change_m2():
    """A1, step 2: sharing queries alone is not covered because it changes the law. Its m₂
    (derived as chapter 7's shared-pattern computation: two heads' signals now share Q) is
    formula (a) + (1 − 1/H)(ℓ/d_h)β⁴, and a sample is far from formula (a)."""
    ell, d, heads, beta, draws = 240, 480, 4, 1.0, 16
    m2 = np.array([_shared_query_m2(ell, d, heads, beta, seed) for seed in range(draws)])
    formula_a = multihead_moments.multihead_moments(ell, d, heads, beta, "none")[1]
    shared_q = formula_a + (1 - 1 / heads) * (ell / (d // heads)) * beta ** 4
    tol = 3.5 * m2.std(ddof=1) / math.sqrt(draws) + 2 * shared_q / ell   # + O(k/ℓ) bias
    assert abs(m2.mean() - shared_q) <= tol, (m2.mean(), shared_q, tol)
    assert abs(m2.mean() - formula_a) > 3 * tol, (m2.mean(), formula_a, tol)
