"""The limit law ν_∞(β, c) of single-head attention as a scipy-like object (MATH.md §3).

Every law is frozen at construction (parameters validated, edges computed) and offers
``pdf``, ``cdf``, ``ppf``, ``moment``, ``mean``, ``var``, ``support``, ``interval`` and
``rvs(size, rng)`` with scipy.stats' conventions (see :mod:`attnspec.laws.base`).
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_float
from ..freeprob.roots import physical_root, polish
from ..hermite import noise_variance
from .base import SpectralLaw

__all__ = ["AttentionLaw",
           "free_cumulant_moments"]


def free_cumulant_moments(cumulants, n):
    """Moments ``m_0..m_n`` of a law from its free cumulants (moment–cumulant recursion).

    Parameters
    ----------
    cumulants : callable
        ``cumulants(j)`` returns the free cumulant κ_j (j ≥ 1).
    n : int
        Highest order.

    Returns
    -------
    list of float
        ``[m_0, ..., m_n]`` with ``m_0 = 1``.

    Notes
    -----
    The generating functions satisfy :math:`M(x) = 1 + \\sum_j \\kappa_j x^j M(x)^j`, so
    :math:`m_n = \\sum_{j=1}^{n} \\kappa_j [x^{n-j}] M(x)^j`, which only needs
    :math:`m_0, …, m_{n-1}` (the sum over non-crossing partitions, MATH.md §3).

    Examples
    --------
    >>> free_cumulant_moments(lambda j: 1.0 if j == 2 else 0.0, 6)  # semicircle: Catalan
    [1.0, 0.0, 1.0, 0.0, 2.0, 0.0, 5.0]
    """
    m = [1.0]
    kappa = [0.0] + [float(cumulants(j)) for j in range(1, n + 1)]
    for order in range(1, n + 1):
        series = np.array(m)                     # M(x) truncated at degree order − 1
        power = np.array([1.0])
        total = 0.0
        for j in range(1, order + 1):
            power = np.convolve(power, series)[:order]
            if kappa[j] != 0.0:
                total += kappa[j] * power[order - j]
        m.append(float(total))
    return m


class AttentionLaw(SpectralLaw):
    r"""Limit law ν_∞(β, c) of the squared singular values of √ℓ A^⊥ (MATH.md §3).

    The Gaussian equivalence (MATH.md §2) gives it as the law of the squared singular values
    of :math:`Y_{lin} = (αZ + βQK^T/\sqrt{d_{qk}})/\sqrt{ℓ}` as ℓ, d_qk → ∞ with ℓ/d_qk → c.

    Parameters
    ----------
    beta : float
        Inverse temperature β > 0 (finite, with e^{β²} finite: β ≤ 26).
    c : float, default 1.0
        Aspect ratio c = ℓ/d_qk > 0.

    Attributes
    ----------
    beta, c : float
        The parameters.
    s : float
        e^{β²} − 1: the mean of the law and the MP scale.
    noise_variance : float
        α² = e^{β²} − 1 − β², the variance of the noise of the linear model.

    Notes
    -----
    The symmetrised law is semicircle(α²) ⊞ a free compound Poisson law (rate 1/c, jumps
    ±β√c), with inverse Cauchy transform

    .. math:: K(g) = \frac1g + α^2 g + \frac{β^2 g}{1 - cβ^2 g^2},

    so G solves the quartic :math:`-α^2cβ^2g^4 + zcβ^2g^3 + (α^2+β^2-cβ^2)g^2 - zg + 1 = 0`.
    At real z = √t the root with ``Im g < 0`` is unique (:mod:`attnspec.freeprob.roots`) and

    .. math:: ρ(t) = -\frac{\operatorname{Im} G(\sqrt t + i0)}{π\sqrt t}.

    Edges are the values ``|K(g)|`` at the real critical points ``K′(g) = 0`` (a cubic in
    g²) that separate support from gaps; the outer one is √(right edge) = K(g*), g* the
    smallest positive critical point. There is no atom: near 0 the density is
    ~ ρ_sym(0)/√t (a hard edge, where α > 0 smooths the rank deficiency of QKᵀ for c > 1).
    For c > 1 and small β the support can split: [0, t₁] ∪ [t₂, t₃] (e.g. β = 0.25, c = 2).
    Moments come from the free cumulants of the symmetrised law, κ₂ = s and
    κ_{2j} = c^{j−1}β^{2j} (j ≥ 2): ``moment(k)`` is its moment of order 2k, exact up to
    rounding for every k; ``moment(2) = 2s² + cβ⁴``.

    Accuracy (measured against an mpmath continuation oracle, tests/test_laws_attention.py): density
    ≤ 1e-14 relative in the bulk (3–97 % into each interval), edges ≤ 1e-15 relative, cdf
    ≤ 1e-13 absolute (Chebyshev tail estimate ``_cdf_error`` ≤ 2e-15 on the test grid).

    Examples
    --------
    >>> law = AttentionLaw(beta=1.0, c=1.0)
    >>> law
    AttentionLaw(beta=1.0, c=1.0)
    >>> round(law.support()[1], 5), round(law.mp_edge(), 5)
    (9.00954, 6.87313)
    >>> round(law.moment(2), 10) == round(2 * law.s ** 2 + law.c, 10)
    True
    >>> x = np.linspace(*law.interval(0.98), 5)
    >>> bool(np.all(law.pdf(x) > 0))
    True
    >>> q = law.cdf(x)
    >>> bool(np.allclose(law.ppf(q), x, rtol=1e-12))
    True
    """

    _left_edge = "hard"

    def __init__(self, beta, c=1.0):
        self.beta = check_float("beta", beta, min=0, min_open=True)
        self.c = check_float("c", c, min=0, min_open=True)
        self.s = math.expm1(self.beta ** 2) if self.beta < 26.5 else math.inf
        if not math.isfinite(self.s):
            raise ValueError(f"beta must be a finite number > 0 and <= 26 (so that e^(beta^2) "
                             f"is finite); got beta={self.beta!r}")
        self.noise_variance = noise_variance(self.beta)
        self._edges_s = self._find_edges()
        super().__init__()

    def _params(self):
        return {"beta": self.beta, "c": self.c}

    # K(g) = 1/g + a g + B g/(1 − p g²) with a = α², B = β², p = cβ²
    def _coeffs(self, z):
        a, B = self.noise_variance, self.beta ** 2
        p = self.c * B
        return (-a * p, z * p, a + B - p, -z, 1.0)

    def _inverse_cauchy(self, g):
        a, B = self.noise_variance, self.beta ** 2
        return 1 / g + a * g + B * g / (1 - self.c * B * g * g)

    def _symmetric_density(self, x):
        """Density of the symmetrised law at real x (vectorised)."""
        x = np.asarray(x, dtype=float)
        g = physical_root(self._coeffs(x))
        return np.maximum(-g.imag / np.pi, 0.0)

    def _find_edges(self):
        """Edges in the singular-value variable: [0, e₁, e₂, …, e_max] (pieces pairwise)."""
        a, B = self.noise_variance, self.beta ** 2
        p = self.c * B
        # K′(g) = 0 ⇔ a p² u³ + (Bp − p² − 2ap) u² + (2p + a + B) u − 1 = 0, u = g²
        cubic = np.array([a * p * p, B * p - p * p - 2 * a * p, 2 * p + a + B, -1.0])
        roots = np.roots(cubic)
        u = roots.real[(np.abs(roots.imag) <= 1e-9 * np.abs(roots)) & (roots.real > 0)]
        u = polish(list(cubic), u, 3)
        g = np.sqrt(u)
        g = g[np.abs(1 - p * g * g) > 1e-12]
        candidates = np.unique(np.abs(self._inverse_cauchy(g)))
        if candidates.size == 1:  # one critical point: the outer edge, a single interval
            return np.array([0.0, candidates[0]])
        bounds = np.concatenate([[0.0], candidates])
        mids = 0.5 * (bounds[:-1] + bounds[1:])
        g_mid = physical_root(self._coeffs(mids))
        inside = -g_mid.imag > 1e-7 * np.abs(g_mid)
        edges = []
        for lo, hi, keep in zip(bounds[:-1], bounds[1:], inside):
            if not keep:
                continue
            if edges and edges[-1] == lo:  # a spurious candidate inside the bulk: merge
                edges[-1] = hi
            else:
                edges += [lo, hi]
        if not edges or edges[0] != 0.0:
            raise RuntimeError(f"unexpected support structure for {self!r}: {bounds}")
        return np.array(edges)

    def _intervals(self):
        t = self._edges_s ** 2
        return [(t[i], t[i + 1], "hard" if i == 0 else "soft") for i in range(0, t.size, 2)]

    def _support(self):
        return 0.0, float(self._edges_s[-1] ** 2)

    def _pdf(self, x):
        root = np.sqrt(x)
        return self._symmetric_density(root) / root

    def _moment(self, k):
        kappa = {2: self.s}

        def cumulant(j):
            if j % 2:
                return 0.0
            return kappa.get(j, self.c ** (j // 2 - 1) * self.beta ** j)
        return free_cumulant_moments(cumulant, 2 * k)[2 * k]

    def edges(self):
        """All edges of the support in the squared variable, sorted: ``(0, …, right edge)``.

        Two values for a single interval; four when a gap splits the support.
        """
        return tuple(float(e) for e in self._edges_s ** 2)

    def mp_edge(self):
        """Right edge 4s = 4(e^{β²} − 1) of the Marchenko–Pastur surrogate (MATH.md §2)."""
        return 4.0 * self.s


