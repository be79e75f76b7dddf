"""Limiting spectral laws as scipy-like objects: ν_∞(β, c), Marchenko–Pastur, semicircle, M.

Every law is frozen at construction (parameters validated, edges computed) and offers
``pdf``, ``cdf``, ``ppf``, ``moment``, ``mean``, ``var``, ``support``, ``interval`` and
``rvs(size, rng)`` with scipy.stats' conventions (see :mod:`attnspec._lawbase`).
"""

from __future__ import annotations

import math

import numpy as np

from ._freeprob import physical_root, polish
from ._lawbase import SpectralLaw, as_float_array, scalar_or_array
from ._validation import check_float, check_int, check_rng
from .hermite import noise_variance

__all__ = ["AttentionLaw", "MarchenkoPastur", "Semicircle", "ScoreProductLaw",
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
    At real z = √t the root with ``Im g < 0`` is unique (:mod:`attnspec._freeprob`) and

    .. math:: ρ(t) = -\frac{\operatorname{Im} G(\sqrt t + i0)}{π\sqrt t}.

    Edges are the values ``|K(g)|`` at the real critical points ``K′(g) = 0`` (a cubic in
    g²) that separate support from gaps; the outer one is √(right edge) = K(g*), g* the
    smallest positive critical point. There is no atom: near 0 the density is
    ~ ρ_sym(0)/√t (a hard edge, where α > 0 smooths the rank deficiency of QKᵀ for c > 1).
    For c > 1 and small β the support can split: [0, t₁] ∪ [t₂, t₃] (e.g. β = 0.25, c = 2).
    Moments come from the free cumulants of the symmetrised law, κ₂ = s and
    κ_{2j} = c^{j−1}β^{2j} (j ≥ 2): ``moment(k)`` is its moment of order 2k, exact up to
    rounding for every k; ``moment(2) = 2s² + cβ⁴``.

    Accuracy (measured against an mpmath continuation oracle, tests/test_laws.py): density
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


class MarchenkoPastur(SpectralLaw):
    r"""Marchenko–Pastur law: eigenvalues of X Xᵀ/n, X ∈ ℝ^{p×n} i.i.d. N(0, scale).

    Parameters
    ----------
    ratio : float, default 1.0
        λ = p/n > 0: rows over columns of the sampled X (the Gram matrix XXᵀ is p×p).
    scale : float, default 1.0
        Variance σ² > 0 of the entries; the mean of the law.

    Notes
    -----
    Support [σ²(1 − √λ)², σ²(1 + √λ)²] with density

    .. math:: ρ(x) = \frac{\sqrt{(b - x)(x - a)}}{2π σ^2 λ x},

    plus an atom of mass 1 − 1/λ at 0 when λ > 1 (XXᵀ has rank n < p). At λ = 1 the density
    is ~ x^{-1/2} at 0. Moments are Narayana polynomials,
    :math:`E x^k = σ^{2k}\sum_{r=0}^{k-1} \frac{λ^r}{r+1}\binom{k}{r}\binom{k-1}{r}`.
    The i.i.d.-score surrogate of MATH.md §2 is ``MarchenkoPastur(1, e^{β²} − 1)``.

    Examples
    --------
    >>> law = MarchenkoPastur(ratio=0.5, scale=2.0)
    >>> law
    MarchenkoPastur(ratio=0.5, scale=2.0)
    >>> law.moment(2)  # σ⁴ (1 + λ)
    6.0
    >>> MarchenkoPastur(ratio=4.0).atom
    0.75
    """

    def __init__(self, ratio=1.0, scale=1.0):
        self.ratio = check_float("ratio", ratio, min=0, min_open=True)
        self.scale = check_float("scale", scale, min=0, min_open=True)
        self._atom = max(0.0, 1.0 - 1.0 / self.ratio)
        self._left_edge = "hard" if self.ratio == 1.0 else "soft"
        super().__init__()

    def _params(self):
        return {"ratio": self.ratio, "scale": self.scale}

    def _support(self):
        r = math.sqrt(self.ratio)
        return self.scale * (1 - r) ** 2, self.scale * (1 + r) ** 2

    def _pdf(self, x):
        a, b = self._support()
        return np.sqrt((b - x) * (x - a)) / (2 * np.pi * self.scale * self.ratio * x)

    def _moment(self, k):
        return self.scale ** k * sum(self.ratio ** r / (r + 1) * math.comb(k, r)
                                     * math.comb(k - 1, r) for r in range(k))


class ScoreProductLaw(SpectralLaw):
    r"""Law of the eigenvalues of M = WWᵀ/ℓ, W = QKᵀ/√d_qk (MATH.md §3).

    Parameters
    ----------
    c : float, default 1.0
        c = ℓ/d_qk > 0 (Q, K ∈ ℝ^{ℓ×d_qk} with i.i.d. N(0, 1) entries).

    Notes
    -----
    M has mean 1 and S-transform 1/((1 + z)(1 + cz)) (it is MP(1) ⊠ MP(c)); its Cauchy
    transform solves the cubic

    .. math:: c x^2 G^3 + (1 - c) x G^2 - x G + 1 = 0,

    and ρ(x) = −Im G(x + i0)/π. With x(z) = (1 + z)²(1 + cz)/z the edges are x(z±) at
    z± = (−1 ± √(1 + 8c))/(4c); the right edge e_M(c) = x(z₊) (27/4 at c = 1). Three
    regimes: c < 1, density ~ x^{-1/2} at 0; c = 1, Fuss–Catalan FC₂ with density
    ~ x^{-2/3} at 0; c > 1, an atom 1 − 1/c at 0 (rank d_qk < ℓ) and a gap up to x(z₋).
    Moments by Lagrange inversion:
    :math:`E x^k = \frac1k \sum_{j=0}^{k-1} \binom{2k}{k-1-j}\binom{k}{j} c^j`
    (1, 3, 12, 55 at c = 1).

    Examples
    --------
    >>> law = ScoreProductLaw(1.0)
    >>> [law.moment(k) for k in range(1, 5)]
    [1.0, 3.0, 12.0, 55.0]
    >>> law.support()
    (0.0, 6.75)
    """

    def __init__(self, c=1.0):
        self.c = check_float("c", c, min=0, min_open=True)
        self._atom = max(0.0, 1.0 - 1.0 / self.c)
        self._left_edge = "hard" if self.c < 1 else ("hard23" if self.c == 1 else "soft")
        super().__init__()

    def _params(self):
        return {"c": self.c}

    def _edge(self, sign):
        c = self.c
        z = (-1 + sign * math.sqrt(1 + 8 * c)) / (4 * c)
        return (1 + z) ** 2 * (1 + c * z) / z

    def _support(self):
        return (self._edge(-1) if self.c > 1 else 0.0), self._edge(+1)

    def _pdf(self, x):
        c = self.c
        g = physical_root((c * x * x, (1 - c) * x, -x, np.ones_like(x)))
        return np.maximum(-g.imag / np.pi, 0.0)

    def _moment(self, k):
        return sum(math.comb(2 * k, k - 1 - j) * math.comb(k, j) * self.c ** j
                   for j in range(k)) / k


class Semicircle:
    r"""Wigner semicircle law of variance ``var`` on [−2σ, 2σ] (a law on ℝ).

    Parameters
    ----------
    var : float, default 1.0
        Variance σ² > 0.

    Notes
    -----
    ρ(x) = √(4σ² − x²)/(2πσ²); with x = −2σ cos θ the CDF is (θ − sin θ cos θ)/π.
    Even moments σ^{2k} C_k (Catalan numbers), odd moments 0. It is the law of the
    symmetrised singular values of Z/√ℓ and the noise part of ν_∞ (MATH.md §3).

    Examples
    --------
    >>> law = Semicircle(var=2.0)
    >>> law
    Semicircle(var=2.0)
    >>> law.moment(4), law.cdf(0.0), law.ppf(1.0) == law.support()[1]
    (8.0, 0.5, True)
    """

    def __init__(self, var=1.0):
        self._var = check_float("var", var, min=0, min_open=True)
        self.radius = 2.0 * math.sqrt(self._var)

    def __repr__(self):
        return f"Semicircle(var={self._var!r})"

    def support(self):
        """``(−2σ, 2σ)``."""
        return -self.radius, self.radius

    def pdf(self, x):
        """Density; 0 outside the support."""
        x = as_float_array(x)
        inside = np.abs(x) < self.radius
        root = np.sqrt(np.where(inside, self.radius ** 2 - x * x, 0.0))
        out = np.where(inside, root / (2 * np.pi * self._var), 0.0)
        return scalar_or_array(np.where(np.isnan(x), np.nan, out), x)

    def cdf(self, x):
        """Distribution function (closed form): exactly 0 below, exactly 1 at/above 2σ."""
        x = as_float_array(x)
        theta = np.arccos(np.clip(-x / self.radius, -1.0, 1.0))
        out = (theta - np.sin(theta) * np.cos(theta)) / np.pi
        out = np.where(x >= self.radius, 1.0, np.where(x <= -self.radius, 0.0, out))
        return scalar_or_array(np.where(np.isnan(x), np.nan, out), x)

    def ppf(self, q):
        """Quantile: solves θ − sin θ cos θ = πq (bisection then Newton); NaN outside [0, 1]."""
        q = as_float_array(q)
        target = np.pi * np.clip(np.nan_to_num(q), 0.0, 1.0)
        lo, hi = np.zeros(q.shape), np.full(q.shape, np.pi)
        for _ in range(52):
            mid = 0.5 * (lo + hi)
            below = mid - 0.5 * np.sin(2 * mid) < target
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        theta = 0.5 * (lo + hi)
        for _ in range(3):
            d = 2 * np.sin(theta) ** 2
            step = np.where(d > 0, (theta - 0.5 * np.sin(2 * theta) - target) / np.where(
                d > 0, d, 1.0), 0.0)
            theta = np.clip(theta - step, lo, hi)
        out = -self.radius * np.cos(theta)
        out = np.where(q == 0, -self.radius, np.where(q == 1, self.radius, out))
        out = np.where((q >= 0) & (q <= 1), out, np.nan)
        return scalar_or_array(out, q)

    def moment(self, k):
        """k-th raw moment: σ^k C_{k/2} for even k, 0 for odd k."""
        k = check_int("k", k, min=0)
        if k % 2:
            return 0.0
        j = k // 2
        return float(self._var ** j * math.comb(2 * j, j) / (j + 1))

    def mean(self):
        """0."""
        return 0.0

    def var(self):
        """Variance σ²."""
        return self._var

    def interval(self, confidence):
        """Equal-tailed interval of probability ``confidence``."""
        confidence = check_float("confidence", confidence, min=0, max=1)
        return self.ppf(0.5 - confidence / 2), self.ppf(0.5 + confidence / 2)

    def rvs(self, size=None, rng=None):
        """Random draws by inversion from ``rng``."""
        return self.ppf(check_rng(rng).random(size))
