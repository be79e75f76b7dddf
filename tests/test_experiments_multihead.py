"""Tests of attnspec.experiments.multihead: multi-head studies (chapters 06–07, MATH.md §6)."""

import math
import re

import numpy as np
import pytest
import scipy.stats
from numpy.testing import assert_allclose

import attnspec
from attnspec.experiments import multihead as mx
from attnspec.experiments import tables

S1 = math.expm1(1.0)  # s = e^{β²} − 1 at β = 1


def one_sample_ks(sample, law):
    """sup |F_n − F| from the textbook formula max(i/n − F(x_(i)), F(x_(i)) − (i−1)/n)."""
    x = np.sort(sample)
    F = law.cdf(x)
    i = np.arange(1, x.size + 1)
    return max(np.max(i / x.size - F), np.max(F - (i - 1) / x.size))


def test_standard_widths():
    """d/H, rounded when H does not divide d; H > d refused."""
    assert mx.standard_widths(1000, 4) == (250, 250)
    assert mx.standard_widths(1000, 16) == (62, 62)
    with pytest.raises(ValueError, match=re.escape("heads must be an integer >= 1 and <= 10")):
        mx.standard_widths(10, 11)


def test_spectra_shape_and_reproducibility():
    """One array of ℓ values per draw, largest first; an int seed reproduces them."""
    a = mx.multihead_spectra(40, 80, 2, 1.0, draws=3, rng=7)
    b = mx.multihead_spectra(40, 80, 2, 1.0, draws=3, rng=7)
    assert len(a) == 3 and all(x.shape == (40,) for x in a)
    assert all(np.all(np.diff(x) <= 0) for x in a)
    for x, y in zip(a, b):
        assert_allclose(x, y, rtol=0, atol=0)
    c = mx.multihead_spectra(40, 80, 2, 1.0, draws=3, rng=8)
    assert not np.allclose(a[0], c[0])


def test_softmax_and_equivalent_share_weights():
    """Same seed: softmax and GE outputs differ only through the attention core.

    With β tiny, softmax(βS)P ≈ βSP/ℓ up to O(β²) and α = O(β²), so the two models with the
    same weights give the same spectrum to relative O(β); with other weights they would not.
    """
    beta = 1e-5
    sm = mx.multihead_spectra(30, 60, 2, beta, draws=1, rng=3)[0]
    ge = mx.multihead_spectra(30, 60, 2, beta, draws=1, rng=3, equivalent=True)[0]
    other = mx.multihead_spectra(30, 60, 2, beta, draws=1, rng=4, equivalent=True)[0]
    assert_allclose(ge[:-1], sm[:-1], rtol=1e-3)  # the last value is the zero of centring
    assert not np.allclose(other[:-1], sm[:-1], rtol=1e-2, atol=0)


def test_per_head_noise_refused_elsewhere():
    """noise='per_head' only makes sense for the GE of a shared pattern."""
    with pytest.raises(ValueError, match="needs equivalent=True and tie='shared_pattern'"):
        mx.multihead_spectra(30, 60, 2, 1.0, tie="none", equivalent=True, noise="per_head")
    with pytest.raises(ValueError, match="needs equivalent=True"):
        mx.multihead_spectra(30, 60, 2, 1.0, tie="shared_pattern", noise="per_head")
    with pytest.raises(ValueError, match=re.escape("noise must be one of 'rule', 'per_head'")):
        mx.multihead_spectra(30, 60, 2, 1.0, noise="shared")


def test_bad_rng_refused():
    """A float is not a seed."""
    with pytest.raises(TypeError, match="rng must be None, an int seed"):
        mx.multihead_spectra(30, 60, 2, 1.0, rng=1.5)


def test_shared_pattern_moments_rule_is_formula_c():
    """The true shared-pattern moments are formula (c) of the law module."""
    for ell, d, H, beta in [(500, 1000, 4, 1.0), (300, 900, 3, 0.7), (200, 200, 1, 1.3)]:
        assert_allclose(mx.shared_pattern_moments(ell, d, H, beta),
                        attnspec.multihead_moments(ell, d, H, beta, "shared_pattern"),
                        rtol=1e-13)


def test_shared_pattern_moments_math_md_values():
    """MATH.md §6: true m₂ 10.86 (GE with shared noise 10.87), per-head noise 9.39."""
    m1, m2 = mx.shared_pattern_moments(500, 1000, 4, 1.0)
    _, m2_wrong = mx.shared_pattern_moments(500, 1000, 4, 1.0, noise="per_head")
    assert_allclose([m1, m2, m2_wrong], [S1, 10.857477326, 9.393107995], rtol=1e-9)
    # the gap is (1 − 1/H)(s² − β⁴) = (1 − 1/H)(α⁴ + 2α²β²)
    assert_allclose(m2 - m2_wrong, 0.75 * (S1 ** 2 - 1), rtol=1e-12)


def test_shared_pattern_per_head_noise_second_moment():
    """Monte Carlo m₂ of the per-head-noise GE matches its closed form (ℓ = 200, 8 draws)."""
    spectra = mx.multihead_spectra(200, 400, 4, 1.0, tie="shared_pattern", equivalent=True,
                                   noise="per_head", draws=8, rng=2)
    (m1, m2), (se1, se2) = attnspec.moments_with_se(spectra)
    theory = mx.shared_pattern_moments(200, 400, 4, 1.0, noise="per_head")
    true_m2 = mx.shared_pattern_moments(200, 400, 4, 1.0)[1]
    # finite-ℓ bias of a Gaussian model is O(1/ℓ): allow 4 SE + 3 %
    assert abs(m1 - theory[0]) < 4 * se1 + 0.03 * theory[0]
    assert abs(m2 - theory[1]) < 4 * se2 + 0.03 * theory[1]
    assert true_m2 - m2 > 8 * se2  # and it is clearly not the true law


def test_compare_ties_rows_and_table():
    """'none' comes first; theory columns are formulas (a)/(b); tables list every row."""
    out = mx.compare_ties(40, 80, 2, 1.0, ties=["kv", "mqa", "kv"], draws=2, rng=0)
    assert list(out.rows) == ["none", "kv", "mqa"]
    assert_allclose(out.rows["kv"].m1_theory, S1 + 40 / 40, rtol=1e-13)
    assert_allclose(out.rows["mqa"].m2_theory, out.rows["none"].m2_theory, rtol=1e-13)
    assert math.isnan(out.rows["none"].ks_reference)
    # KS distances compare the right pooled spectra (scipy's two-sample KS as the oracle)
    assert out.rows["kv"].ks_reference == pytest.approx(scipy.stats.ks_2samp(
        out.pooled("kv"), out.pooled("none")).statistic, abs=1e-12)
    assert out.rows["kv"].ks_equivalent == pytest.approx(scipy.stats.ks_2samp(
        out.pooled("kv"), out.pooled("kv", "equivalent")).statistic, abs=1e-12)
    assert out.noise_floor < out.rows["kv"].ks_reference  # same law vs a different law
    for row in out.rows.values():
        assert len(out.softmax[row.key]) == 2 and len(out.equivalent[row.key]) == 2
        assert np.isfinite([row.m1, row.m1_se, row.m2, row.m2_se, row.ks_law,
                            row.ks_equivalent]).all()
    md = out.table(["label", "m1_theory", "m1", "ks_reference"])
    assert md.splitlines()[0] == "| variant | m₁ exact | m₁ softmax | KS to independent heads |"
    assert len(md.splitlines()) == 2 + 3
    assert md.splitlines()[2].startswith("| independent heads | 1.718 | ")
    assert md.splitlines()[2].endswith(" | — |") and "\u00a0±\u00a0" in md
    text = out.table(["key", "m1_theory"], format="text")
    assert text.splitlines()[0].split() == ["tie", "m1", "exact"]
    assert text.splitlines()[2].split() == ["kv", tables.significant(S1 + 1, 4)]


def test_compare_ties_kv_changes_law_across_head_does_not():
    """The claim of chapter 07 at a small size: kv far from independent heads, mqa close."""
    out = mx.compare_ties(100, 200, 2, 1.0, ties=["mqa", "kv"], draws=2, equivalent=False,
                          rng=1)
    assert out.rows["kv"].ks_reference > 3 * out.rows["mqa"].ks_reference
    assert out.rows["kv"].m1 > out.rows["none"].m1 + 0.5


def test_compare_ties_one_head_cross_kv_is_kv():
    """With H = 1, V_1 = K_{1 mod 1} = K_1: the theory of cross_kv is that of kv."""
    out = mx.compare_ties(40, 80, 1, 1.0, ties=["cross_kv"], draws=2, equivalent=False,
                          noise_floor=False, rng=0)
    assert_allclose(out.rows["cross_kv"].m1_theory, S1 + 40 / 80, rtol=1e-13)
    assert out.laws["cross_kv"].mean() == pytest.approx(S1 + 0.5, rel=1e-10)
    assert math.isnan(out.noise_floor)


def test_compare_ties_refuses_unknown_tie():
    """Ties are checked before any sampling, with the valid names listed."""
    with pytest.raises(ValueError, match=re.escape("ties must be one of 'none', 'mqa'")):
        mx.compare_ties(40, 80, 2, 1.0, ties=["multiquery"])


def test_compare_head_counts():
    """One row per H, formula (a) as theory, KS distances in [0, 1]."""
    out = mx.compare_head_counts(40, 80, [1, 2, 3], 1.0, draws=2, rng=0)
    assert list(out.rows) == [1, 2, 3]
    assert_allclose(out.rows[2].m2_theory,
                     attnspec.multihead_moments(40, 80, 2, 1.0)[1], rtol=1e-13)
    assert out.rows[3].label == "27"  # round(80/3)
    for H, row in out.rows.items():
        assert row.ks_equivalent == pytest.approx(scipy.stats.ks_2samp(
            out.pooled(H), out.pooled(H, "equivalent")).statistic, abs=1e-12)
        assert row.ks_law == pytest.approx(one_sample_ks(out.pooled(H), out.laws[H]), abs=1e-12)
    md = out.table(["key", "label", "m2_theory", "m2", "m2_equivalent"])
    assert md.splitlines()[0] == "| H | d_h = d_v | m₂ exact | m₂ softmax | m₂ GE |"
    with pytest.raises(ValueError, match="heads_list must contain at least one head count"):
        mx.compare_head_counts(40, 80, [], 1.0)


def test_noise_rule_study():
    """Three models of a shared pattern; per-head noise has the lower closed-form m₂."""
    out = mx.noise_rule_study(40, 80, 2, 1.0, draws=2, rng=0)
    assert list(out.rows) == ["softmax", "rule", "per_head"]
    assert_allclose(out.rows["rule"].m2_theory,
                    mx.shared_pattern_moments(40, 80, 2, 1.0)[1], rtol=1e-13)
    assert out.rows["per_head"].m2_theory < out.rows["rule"].m2_theory
    assert math.isnan(out.rows["softmax"].ks_reference)
    assert out.rows["per_head"].ks_reference == pytest.approx(scipy.stats.ks_2samp(
        out.pooled("per_head"), out.pooled("softmax")).statistic, abs=1e-12)
    header = out.table(["label", "m2", "ks_reference"]).splitlines()[0]
    assert header == "| model | m₂ simulated | KS to softmax |"


def test_noise_rule_study_reuses_a_comparison():
    """Reusing compare_ties draws: same softmax spectra, per-head noise with the same weights."""
    comp = mx.compare_ties(40, 80, 2, 1.0, ties=["shared_pattern"], draws=2, rng=3,
                           noise_floor=False)
    out = mx.noise_rule_study(40, 80, 2, 1.0, comparison=comp)
    assert out.softmax["softmax"] is comp.softmax["shared_pattern"]
    assert out.softmax["rule"] is comp.equivalent["shared_pattern"]
    assert out.seeds["per_head"] == comp.seeds["shared_pattern"]


def test_studies_accept_a_generator_like_a_seed():
    """rng may be a Generator (as everywhere else): same children, same table as its seed."""
    kwargs = dict(ties=("mqa",), draws=1, noise_floor=False)
    from_seed = mx.compare_ties(32, 64, 2, 1.0, rng=7, **kwargs)
    from_generator = mx.compare_ties(32, 64, 2, 1.0, rng=np.random.default_rng(7), **kwargs)
    assert repr(from_seed) == repr(from_generator)
