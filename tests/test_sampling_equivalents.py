"""Tests of attnspec.sampling.equivalents: the linear model (any noise), the stepwise chain, MP."""

import math
import re

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from attnspec.hermite import noise_variance, truncated_noise_variance
from attnspec.sampling.equivalents import (STEPWISE_KEYS, linear_equivalent, linear_model_with_noise,
                                           mp_surrogate, stepwise_chain)
from attnspec.sampling.softmax import centered, softmax_attention
from attnspec.spectra import ks_distance, moments_with_se, squared_singular_values


def linear_model_m2_exact(ell, d_qk, beta):
    """Exact E[m₂] of Y_lin = (αZ + βW)/√ℓ, W = QKᵀ/√d, at finite ℓ (derived for this test).

    Averaging over Z (Wishart identities E tr(ZZᵀ)² = ℓ²(2ℓ + 1), E ZZᵀ = ℓI):
    E tr(YYᵀ)² = [α⁴ℓ²(2ℓ+1) + (4ℓ+2)α²β²‖W‖² + β⁴ tr(WWᵀ)²]/ℓ², with E‖W‖² = ℓ² and
    E tr(WWᵀ)² = [(ℓ²+ℓ)·ℓd(ℓ+d+1) + ℓ(2ℓd + ℓ²d²)]/d² (E[BMB] = ℓ(ℓ+1)M + ℓ tr(M) I for
    B = KᵀK). Dividing by ℓ gives E[m₂] → 2s² + cβ⁴ as ℓ → ∞ with c = ℓ/d fixed.
    """
    d = d_qk
    a2 = noise_variance(beta)
    t = ((ell**2 + ell) * ell * d * (ell + d + 1) + ell * (2 * ell * d + ell**2 * d**2)) / d**2
    return a2**2 * (2 + 1 / ell) + a2 * beta**2 * (4 + 2 / ell) + beta**4 * t / ell**3


@pytest.mark.parametrize("beta, c", [(1.0, 1.0), (0.7, 2.0)], ids=["beta=1,c=1", "beta=0.7,c=2"])
def test_linear_model_moments(beta, c):
    """Linear model: m₁ = s exactly, m₂ = its exact finite-ℓ mean (→ 2s² + cβ⁴), within 4 SE."""
    ell, draws = 300, 16
    d_qk = int(ell / c)
    s = math.expm1(beta**2)
    spectra = [squared_singular_values(linear_equivalent(ell, d_qk, beta, rng=r))
               for r in range(draws)]
    (m1, m2), (se1, se2) = moments_with_se(spectra)
    assert abs(m1 - s) < 4 * se1
    assert abs(m2 - linear_model_m2_exact(ell, d_qk, beta)) < 4 * se2
    assert abs(m2 - 2 * s**2) > 10 * se2  # the MP value is rejected: the test has power
    # the exact mean converges to the closed form of MATH.md §3
    assert_allclose(linear_model_m2_exact(10**7, 10**7 / c, beta), 2 * s**2 + c * beta**4,
                    rtol=1e-6)


def test_mp_surrogate_moments():
    """MP surrogate: m₁ = s, m₂ = s²(2 + 1/ℓ) exactly in expectation (Wishart), within 4 SE."""
    ell, beta = 300, 1.0
    s = math.expm1(beta**2)
    spectra = [squared_singular_values(mp_surrogate(ell, beta, rng=r)) for r in range(12)]
    (m1, m2), (se1, se2) = moments_with_se(spectra)
    assert abs(m1 - s) < 4 * se1
    assert abs(m2 - s**2 * (2 + 1 / ell)) < 4 * se2


def bulk_ks(ell, seed, draws=2):
    """KS distance between pooled bulks (top 3 removed) of softmax and linear-model draws."""
    softmax = [squared_singular_values(centered(softmax_attention(ell, ell, 1.0, rng=seed + r)),
                                       drop_top=3) for r in range(draws)]
    linear = [squared_singular_values(linear_equivalent(ell, ell, 1.0, rng=seed + 50 + r),
                                      drop_top=3) for r in range(draws)]
    return ks_distance(np.concatenate(softmax), np.concatenate(linear))


def test_softmax_approaches_linear_model():
    """KS(softmax, linear) at β = 1 shrinks from ℓ = 250 to ℓ = 1000 (MATH.md §5: 0.036 → 0.015).

    Measured over 5 seed sets: 0.034–0.045 at ℓ = 250, 0.0155–0.0176 at ℓ = 1000, so a ratio
    below 0.7 is a robust margin; no shrinkage (ratio ≈ 1) fails.
    """
    small, large = bulk_ks(250, seed=0, draws=4), bulk_ks(1000, seed=0)
    assert large < 0.7 * small
    assert large < 0.03


def test_stepwise_chain_keys_and_coupling():
    """Keys in figure order; 'softmax' is centered(softmax_attention) of the same seed."""
    chain = stepwise_chain(120, 60, 1.0, rng=21)
    assert tuple(chain) == STEPWISE_KEYS == ("softmax", "Y", "Y_f", "Y_Q", "Y_Q_lin", "Y_f_lin")
    assert all(v.shape == (120, 120) and v.dtype == np.float64 for v in chain.values())
    assert_array_equal(chain["softmax"], centered(softmax_attention(120, 60, 1.0, rng=21)))
    assert_allclose(chain["Y_f_lin"], linear_equivalent(120, 60, 1.0, rng=21), rtol=1e-12,
                    atol=1e-14)


def test_stepwise_chain_identities():
    """Y = Y_f P; Y_Q → Y_f as Q grows; Y_Q (Q = 1) = βS/√ℓ; both linear steps share one Z."""
    ell, beta = 100, 1.0
    chain3 = stepwise_chain(ell, 50, beta, rng=22, degree=3)
    chain1 = stepwise_chain(ell, 50, beta, rng=22, degree=1)
    chain40 = stepwise_chain(ell, 50, beta, rng=22, degree=40)
    Y_f = chain3["Y_f"]
    assert_allclose(chain3["Y"], Y_f - Y_f.mean(axis=1, keepdims=True), atol=1e-13)
    assert_allclose(chain40["Y_Q"], Y_f, atol=1e-9 * np.abs(Y_f).max())
    linear_part = chain1["Y_Q"]                       # βS/√ℓ, and α_1 = 0
    assert_allclose(chain1["Y_Q_lin"], linear_part, atol=1e-14)
    noise_f = (chain3["Y_f_lin"] - linear_part) / math.sqrt(noise_variance(beta))
    noise_q = (chain3["Y_Q_lin"] - linear_part) / math.sqrt(truncated_noise_variance(beta, 3))
    assert_allclose(noise_q, noise_f, atol=1e-12)     # the same Z/√ℓ
    assert abs(np.var(noise_f) * ell - 1) < 0.05       # and it is N(0, 1)/√ℓ (10⁴ entries)


BAD_CALLS = [
    (lambda: linear_equivalent(1, 5, 1.0), "ell must be an integer >= 2; got ell=1"),
    (lambda: linear_equivalent(10, 0, 1.0), "d_qk must be an integer >= 1; got d_qk=0"),
    (lambda: linear_equivalent(10, 5, -1.0), "beta must be a finite number > 0 and <= 26 (so that e^(beta^2) is a finite float64); got beta=-1.0"),
    (lambda: stepwise_chain(10, 5, float("inf")), "beta must be a finite number > 0 and <= 26 (so that e^(beta^2) is a finite float64); got beta=inf"),
    (lambda: stepwise_chain(10, 5, 1.0, degree=0), "degree must be an integer >= 1; got degree=0"),
    (lambda: stepwise_chain(1, 5, 1.0), "ell must be an integer >= 2; got ell=1"),
    (lambda: mp_surrogate(10, 0.0), "beta must be a finite number > 0 and <= 26 (so that e^(beta^2) is a finite float64); got beta=0.0"),
    (lambda: mp_surrogate(0, 1.0), "ell must be an integer >= 2; got ell=0"),
]


@pytest.mark.parametrize("call, message", BAD_CALLS,
                         ids=["lin-ell", "lin-d_qk", "lin-beta", "chain-beta", "chain-degree",
                              "chain-ell", "mp-beta", "mp-ell"])
def test_bad_input_raises(call, message):
    """Bad input raises ValueError naming the parameter, its value and what is allowed."""
    with pytest.raises(ValueError, match=re.escape(message)):
        call()


def test_linear_model_with_the_right_noise_is_linear_equivalent():
    """noise_var = α² and the same seed reproduce attnspec.linear_equivalent exactly."""
    beta = 1.3
    np.testing.assert_array_equal(
        linear_model_with_noise(40, 30, beta, noise_variance(beta), rng=11),
        linear_equivalent(40, 30, beta, rng=11))


def test_linear_model_with_the_wrong_noise_has_the_wrong_mean():
    """With noise e^{β²} − 1 the mean squared singular value is s + β², not s."""
    beta, ell = 1.0, 400
    s = math.expm1(beta**2)
    Y = linear_model_with_noise(ell, ell, beta, s, rng=12)
    m1 = squared_singular_values(Y).mean()
    assert abs(m1 - (s + beta**2)) < 0.05


def test_linear_model_with_noise_validates():
    """Negative noise variance is refused by name."""
    with pytest.raises(ValueError, match=re.escape("noise_var must be a finite number >= 0")):
        linear_model_with_noise(10, 10, 1.0, -1.0)


def test_linear_model_formula_and_refusals_by_name():
    from attnspec import ParameterError
    from attnspec.sampling.equivalents import linear_model
    rng = np.random.default_rng(0)
    S, Z = rng.standard_normal((5, 5)), rng.standard_normal((5, 5))
    assert_allclose(linear_model(S, 1.5, 0.5, Z), (1.5 * S + 0.5 * Z) / math.sqrt(5),
                    rtol=1e-15)
    bad_calls = [
        ("S", dict(S=[[1.0, 2.0], [3.0, 4.0]])),                 # a list, not an array
        ("S", dict(S=np.ones((5, 5), dtype=int))),               # not floating point
        ("S", dict(S=np.ones((2, 3)), Z=np.ones((2, 3)))),      # not square
        ("S", dict(S=np.ones(5), Z=np.ones(5))),                # not 2-d
        ("Z", dict(Z=np.ones((4, 4)))),                          # would broadcast wrongly
        ("Z", dict(Z=np.ones((1, 5)))),                          # would broadcast silently
        ("Z", dict(Z=5.0)),
        ("beta", dict(beta=math.nan)),
        ("beta", dict(beta="1")),
        ("noise_sd", dict(noise_sd=-0.1)),
        ("noise_sd", dict(noise_sd=math.inf)),
    ]
    for name, bad in bad_calls:
        kwargs = {"S": S, "beta": 1.5, "noise_sd": 0.5, "Z": Z, **bad}
        with pytest.raises(ParameterError, match=rf"^{name} must"):
            linear_model(**kwargs)
    # float32 scores keep their dtype as before (the scalars are used as given)
    assert linear_model(S.astype(np.float32), 1.5, 0.5, Z.astype(np.float32)).dtype \
        == np.float32
