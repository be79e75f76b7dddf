"""Moments of the multi-head law (A4 §6): the closed forms (a)–(c) for m₁, m₂ and
the exact series for higher orders, and the reduction of a configuration (ℓ, d, H, β, tie,
widths) to the chain of free convolutions of :mod:`attnspec.freeprob.chains` that the law
:class:`attnspec.laws.multihead.MultiHeadLaw` and its moments share (derivation: chapter A1).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .._validation import check_bool, check_int
from ..freeprob.chains import Chain, chain_moments
from ..hermite import total_variance
from ..sampling.multihead import check_arguments

__all__ = ["multihead_moments", "multihead_chain", "closed_form_moments", "scaled_moments",
           "unscaled_moment", "BETA_MIN"]


#: Smallest β with s = e^{β²} − 1 a normal float64 (β² ≥ 1e-300); below, s underflows to 0.
BETA_MIN = 1e-150


def multihead_chain(ell, d, heads, beta, tie, d_head, d_value, groups, unit=1.0):
    """Validate (as :func:`attnspec.multihead_output` does, and β ≥ BETA_MIN) and
    reduce to a :class:`Chain` in units of ``unit`` (None: s = e^{β²} − 1)."""
    ell, d, heads, beta, tie, d_head, d_value, groups, _ = check_arguments(
        ell, d, heads, beta, tie, d_head, d_value, groups, False)
    if beta < BETA_MIN:     # (β ≤ BETA_MAX is checked with the other arguments)
        raise ValueError(
            f"beta must be >= {BETA_MIN:g} for the multi-head law and its moments (below, "
            "s = e^{beta^2} - 1 underflows to 0 in float64 and the law is a point mass at 0); "
            f"got beta={beta!r}")
    unit = float(total_variance(beta)) if unit is None else unit
    if tie == "kv" or (tie == "cross_kv" and heads == 1):   # one head: V_1 = K_{(1 mod 1)+1} = K_1
        chain = Chain("kv", heads, beta, ell / d_head, ell / d_value, ell / d, unit)
        rank = heads * min(ell, d_head)
    elif tie == "shared_pattern":     # one pattern: H → 1, d_v → H d_v
        chain = Chain("untied", 1, beta, ell / d_head, ell / (heads * d_value), ell / d, unit)
        rank = min(ell, heads * d_value)
    else:                             # "none", every across-head tie, "output_keys" (taken)
        chain = Chain("untied", heads, beta, ell / d_head, ell / d_value, ell / d, unit)
        rank = heads * min(ell, d_value)
    atom = max(0.0, 1.0 - min(rank, d, ell) / ell)
    params = dict(ell=ell, d=d, heads=heads, beta=beta, tie=tie, d_head=d_head,
                  d_value=d_value, groups=groups)
    return chain, atom, params


def closed_form_moments(chain):
    """m₁, m₂ from the closed forms (a)–(c) of A4 §6, in units of ``chain.unit``."""
    s, a2, b2, H = chain.s, chain.alpha2, chain.b2, chain.heads
    if chain.kind == "untied":
        m2 = s * s * (1 + (1 + chain.a) / H + chain.gamma) + chain.c * b2 * b2 / H
        return [s, m2]
    y = 1.0 / chain.c
    mu2, mu3, mu4 = 1 + y, 1 + 3 * y + y * y, 1 + 6 * y + 6 * y * y + y ** 3
    m1 = s + b2 / y
    head = (b2 * b2 * mu4 / y + 2 * a2 * b2 * mu3 + a2 * a2 * y * mu2
            + (b2 * (1 + y) + a2 * y) ** 2) / (H * y * y)
    return [m1, head + (1 - 1 / H + chain.gamma) * m1 * m1]


_LOG_FLOAT_MAX = np.log(np.finfo(float).max)


def unscaled_moment(scaled, k, unit, params):
    """m_k = (m_k/s^k)·s^k, refusing (ValueError) where it overflows float64."""
    if scaled > 0 and np.log(scaled) + k * np.log(unit) >= _LOG_FLOAT_MAX:
        magnitude = (np.log(scaled) + k * np.log(unit)) / np.log(10)
        raise ValueError(
            f"moment order {k} overflows float64 at beta={params['beta']!r} (m_{k} ≈ "
            f"1e{magnitude:.0f}); use multihead_moments(..., scaled=True), which returns "
            "m_k/s^k with s = e^{beta^2} - 1")
    return float(scaled * unit ** k)


#: The series moments are computed twice, in two units; orders where the two disagree by more
#: than this (rounding, which grows quickly with the order) are refused.
_MOMENT_RTOL = 1e-10


def scaled_moments(chain, n, name):
    """m_k/unit^k for k = 1..n (``chain.unit``), or a ValueError naming ``name`` where rounding
    makes them inaccurate.  The series arithmetic of :func:`chain_moments` runs in units of
    about the right edge (so no coefficient overflows) and, as a rounding estimate, again in a
    unit 1.3 times larger; the order where the two first disagree by more than _MOMENT_RTOL
    and every order above it are refused."""
    exact = closed_form_moments(chain)
    if n <= 2:
        return exact[:n]
    with np.errstate(all="ignore"):
        low = chain_moments(chain, min(n, 20))
    edge = max(m ** (1.0 / k) for k, m in enumerate(low, start=1) if m > 0)
    logs = []
    for unit in (edge, 1.3 * edge):
        with np.errstate(all="ignore"):
            m = chain_moments(replace(chain, unit=chain.unit * unit), n)
            logs.append(np.log(m) + np.arange(1, n + 1) * np.log(unit))
    with np.errstate(all="ignore"):
        moments = np.exp(logs[0])
        gap = np.abs(np.expm1(logs[0] - logs[1]))
        agree = (gap <= _MOMENT_RTOL) & np.isfinite(moments)
        safe = (gap <= _MOMENT_RTOL / 100) & np.isfinite(moments)
    if not agree[2:].all():                           # (m₁, m₂: the closed forms)
        # the order to suggest, with a margin: the estimate moves a little with n, so the last
        # order within 1/100 of the tolerance is still accepted when asked for on its own
        last = 2 + int(np.argmin(safe[2:]))
        raise ValueError(
            f"{name}={n}: the multi-head moments come from power-series arithmetic whose "
            f"rounding grows with the order; at these parameters only m_1..m_{last} are "
            f"accurate to {_MOMENT_RTOL:g} (chapter A1, Moments), so {name} must be <= {last}")
    return exact + [float(m) for m in moments[2:]]


def multihead_moments(ell, d, heads, beta, tie="none", d_head=None, d_value=None, groups=None,
                      order=2, scaled=False):
    r"""Moments m₁, …, m_order of the limiting squared-singular-value law of the multi-head output.

    Parameters
    ----------
    ell, d : int
        Tokens ℓ and embedding width d (2 ≤ ℓ ≤ d).
    heads : int
        Number of heads H ≥ 1; must divide d unless both widths are given.
    beta : float
        Inverse temperature, BETA_MIN ≤ β ≤ BETA_MAX (1e-150 ≤ β ≤ 26).
    tie : str
        Weight tie, one of :data:`attnspec.TIES`.
    d_head, d_value : int, optional
        Query/key and value widths (default d/H each, the standard allocation).
    groups : int, optional
        Number of key–value groups, only for ``tie="gqa"``.
    order : int
        Number of moments returned (≥ 1).
    scaled : bool
        Return m_k/s^k (s = e^{β²} − 1) instead of m_k: finite over the whole domain, where
        m_k itself overflows float64 for k·β² ≳ 709 (β = 26: k ≥ 2).

    Returns
    -------
    list of float
        ``[m₁, m₂, …]`` with :math:`m_k = \lim \frac1\ell \operatorname{tr}(YY^\top)^k`
        (divided by s^k if ``scaled``).

    Raises
    ------
    ValueError
        Invalid parameters (named), β outside [BETA_MIN, BETA_MAX]; an order beyond those
        the series arithmetic gives accurately (the message names the highest that it does);
        or, without ``scaled``, an order whose moment overflows float64 (the message names
        the order and β).

    Notes
    -----
    m₁ and m₂ are the closed forms of A4 §6 (s = e^{β²} − 1, α² = s − β²):

    (a) independent heads, every across-head sharing and ``output_keys`` (taken: Monte Carlo):
    :math:`m_1 = s,\ m_2 = s^2[1 + (1 + \ell/d_v)/H + \ell/d] + \ell\beta^4/(H d_h)`;
    (b) key–value tie (y = d_h/ℓ, μ_k the moments of MP(y)): :math:`m_1 = s + \beta^2/y`,
    :math:`m_2 = [\beta^4\mu_4/y + 2\alpha^2\beta^2\mu_3 + \alpha^4 y\mu_2
    + (\beta^2(1+y) + \alpha^2 y)^2]/(H y^2) + (1 - 1/H + \ell/d)\,m_1^2`;
    (c) shared pattern: (a) with H → 1 and d_v → H d_v.

    Higher moments are exact as well: they come from the free cumulants of the attention core
    (κ₂ = s, κ_{2j} = c^{j−1}β^{2j} for the symmetrised law, c = ℓ/d_h; A4 §3) pushed through
    the chain of :class:`MultiHeadLaw` with truncated power series of S-transforms
    (⊠ MP(r): S ↦ S/(1 + r w)) and R-transforms (H heads: κ_k ↦ κ_k/H^{k−1}), in floating point
    and in units of s (every step is homogeneous); they agree with the closed forms to 1e-12
    (chapter A1, Moments).

    Examples
    --------
    >>> import attnspec
    >>> [round(m, 4) for m in attnspec.multihead_moments(500, 1000, 4, 1.0)]
    [1.7183, 7.1431]
    """
    chain, _, params = multihead_chain(ell, d, heads, beta, tie, d_head, d_value, groups, unit=None)
    order = check_int("order", order, min=1)
    scaled = check_bool("scaled", scaled)
    moments = scaled_moments(chain, order, "order")
    if scaled:
        return [float(m) for m in moments]
    return [unscaled_moment(m, k, chain.unit, params) for k, m in enumerate(moments, start=1)]
