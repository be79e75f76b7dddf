"""The autograded parts of the problem sheets, one list per session of the course guide.

Each part asks for named values computed with the attnspec library; its solution is the code
that computes them, and its tests are assertions on those names with the tolerance stated in
the prompt (numbers, shapes, monotone curves). The hand-marked parts are the chapters'
exercises named in the course guide (``tools/build_course.py`` reads them from there).

Tolerances come from theory: a deterministic quantity (a law's moment, a Hermite coefficient)
is checked to 1e-6 relative; a simulated mean at the stated size and seed to 5 %, which is
more than ten standard errors of the mean at that size and below the gap to a wrong answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Test:
    """One assertion; ``hidden`` tests are in the autograder only, not in the student's sheet."""

    code: str
    points: float
    hidden: bool = True


@dataclass(frozen=True)
class Part:
    """An autograded part: the prompt, the solution code, the names it defines, its tests."""

    name: str
    prompt: str
    solution: str
    answers: tuple[str, ...]
    tests: tuple[Test, ...] = field(default_factory=tuple)

    @property
    def points(self) -> float:
        return sum(t.points for t in self.tests)


def _close(name, value, rel=1e-6):
    return f"assert abs(float({name}) - ({value})) <= {rel} * abs({value})"


def _closed_form(name, prompt, solution, expected):
    """A part whose answers are closed-form numbers: ``expected`` maps each answer's name to
    ``(its value as a Python expression, points)``, checked to 1e-6 relative."""
    return Part(name, prompt, solution, tuple(expected),
                tuple(Test(_close(answer, value), points)
                      for answer, (value, points) in expected.items()))


#: s = e^{β²} − 1 at β = 1 and β = 0.5
S_1, S_05 = "1.718281828459045", "0.2840254166877415"


PARTS: dict[str, tuple[Part, ...]] = {
    "session-01": (
        Part("q1_prediction",
             "Predict the mean of the squared singular values of $\\sqrt{\\ell}A^\\perp$ at "
             "$\\beta = 0.5$ and $\\beta = 1.5$ from its limit $e^{\\beta^2}-1$ as "
             "$\\ell \\to \\infty$ (at a finite $\\ell$ it falls short, the more so the larger "
             "$\\beta$: chapter 5). Store them as `predict_05` and `predict_15` (checked to 1e-6 "
             "relative).",
             "import numpy as np\npredict_05 = np.expm1(0.5**2)\npredict_15 = np.expm1(1.5**2)",
             ("predict_05", "predict_15"),
             (Test("assert isinstance(float(predict_05), float)", 0, hidden=False),
              Test(_close("predict_05", "0.2840254166877415"), 1),
              Test(_close("predict_15", "8.487735836358526"), 1))),
        Part("q2_simulation",
             "Sample one head with `attnspec.softmax_attention(300, 300, 0.5, rng=1)`, centre it "
             "with `attnspec.centered`, and store its squared singular values "
             "(`attnspec.squared_singular_values`) as `spectrum` and their mean as `mean_05` "
             "(checked: 300 values, mean within 5 % of the prediction).",
             "import attnspec\nspectrum = attnspec.squared_singular_values(\n"
             "    attnspec.centered(attnspec.softmax_attention(300, 300, 0.5, rng=1)))\n"
             "mean_05 = float(spectrum.mean())",
             ("spectrum", "mean_05"),
             (Test("assert len(spectrum) == 300", 1, hidden=False),
              Test(_close("mean_05", "0.2840254166877415", rel=0.05), 2))),
    ),
    "session-02": (
        Part("q1_hermite",
             "Store the Hermite coefficients $\\beta^k/k!$, $k = 0..4$, at $\\beta = 1$ as "
             "`coefficients` (`attnspec.hermite_coefficients`) and $\\alpha^2$ at $\\beta = 1$ "
             "as `alpha2` (checked: 5 coefficients, each to 1e-6; $\\alpha^2$ to 1e-6).",
             "import attnspec\ncoefficients = attnspec.hermite_coefficients(1.0, 4)\n"
             "alpha2 = attnspec.noise_variance(1.0)",
             ("coefficients", "alpha2"),
             (Test("assert len(coefficients) == 5", 1, hidden=False),
              Test("import math\nassert all(abs(c - 1 / math.factorial(k)) < 1e-6 "
                   "for k, c in enumerate(coefficients))", 1),
              Test(_close("alpha2", "2.718281828459045 - 2"), 2))),
    ),
    "session-03": (
        _closed_form(
            "q1_moments",
            "Store the first two moments of $\\nu_\\infty(\\beta=1, c=1)$ as `m1`, `m2` "
            "(`attnspec.AttentionLaw(1.0, 1.0).moment(k)`; checked against $s$ and "
            "$2s^2 + c\\beta^4$ to 1e-6).",
            "import attnspec\nlaw = attnspec.AttentionLaw(1.0, 1.0)\n"
            "m1, m2 = law.moment(1), law.moment(2)",
            {"m1": (S_1, 1), "m2": (f"2 * {S_1}**2 + 1", 2)}),
        Part("q2_edges",
             "For $\\beta$ = 0.5, 1, 1.5, 2 (c = 1) store the right edges of the support of "
             "$\\nu_\\infty$ as the list `edges` (`law.support()[1]`; checked: 4 values, "
             "increasing, and each beyond the Marchenko–Pastur edge $4(e^{\\beta^2}-1)$).",
             "import attnspec\nedges = [attnspec.AttentionLaw(b, 1.0).support()[1] "
             "for b in (0.5, 1.0, 1.5, 2.0)]",
             ("edges",),
             (Test("assert len(edges) == 4", 1, hidden=False),
              Test("assert all(a < b for a, b in zip(edges, edges[1:]))", 1),
              Test("import math\nassert all(e > 4 * math.expm1(b * b) "
                   "for e, b in zip(edges, (0.5, 1.0, 1.5, 2.0)))", 1))),
    ),
    "session-04": (
        Part("q1_truncation",
             "Store $\\alpha_n^2$ at $\\beta = 1$ for $n = 1, \\dots, 6$ as the list `alpha_q` "
             "(`attnspec.truncated_noise_variance`; checked: 6 values, non-decreasing, the last "
             "within 1e-3 of $\\alpha^2 = e - 2$).",
             "import attnspec\nalpha_q = [attnspec.truncated_noise_variance(1.0, q) "
             "for q in range(1, 7)]",
             ("alpha_q",),
             (Test("assert len(alpha_q) == 6", 1, hidden=False),
              Test("assert all(a <= b for a, b in zip(alpha_q, alpha_q[1:]))", 1),
              Test("assert abs(alpha_q[-1] - (2.718281828459045 - 2)) < 1e-3", 1))),
    ),
    "session-05": (
        Part("q1_scales",
             "Store the largest-entry scale "
             "(`attnspec.experiments.thresholds.threshold_scales(ell).largest_entry.value`) for "
             "$\\ell$ = 100, 1000, 10000 as the list `entry_scales` (checked: increasing, and "
             "each equal to $(2-\\sqrt3)\\sqrt{\\log\\ell}$ to 1e-6).",
             "from attnspec.experiments import thresholds\n"
             "entry_scales = [thresholds.threshold_scales(n).largest_entry.value "
             "for n in (100, 1000, 10000)]",
             ("entry_scales",),
             (Test("assert len(entry_scales) == 3", 0, hidden=False),
              Test("assert all(a < b for a, b in zip(entry_scales, entry_scales[1:]))", 1),
              Test("import math\nassert all(abs(v - (2 - math.sqrt(3)) * math.sqrt(math.log(n)))"
                   " < 1e-6 for v, n in zip(entry_scales, (100, 1000, 10000)))", 2))),
    ),
    "session-06": (
        # ℓ = 500, d = 1000 and H = 2, 20 as exercise ex-06-predict: H must divide d under the
        # standard allocation (the quick d = 128 refuses 20 heads)
        _closed_form(
            "q1_heads",
            "With $\\ell = 500$, $d = 1000$, $\\beta = 0.5$ and independent heads with the "
            "standard allocation $d_h = d_v = d/H$, store the closed-form first two moments "
            "for 2 heads as `m1_2`, `m2_2` and for 20 heads as `m1_20`, `m2_20` "
            "(`attnspec.multihead_moments(ell, d, H, beta)`; checked to 1e-6 against the "
            "closed forms of chapter 6 with $s = e^{1/4} - 1$).",
            "import attnspec\nm1_2, m2_2 = attnspec.multihead_moments(500, 1000, 2, 0.5)\n"
            "m1_20, m2_20 = attnspec.multihead_moments(500, 1000, 20, 0.5)",
            # m₁ = s for every H; m₂ = s²(1 + 1/H + 2ℓ/d) + ℓβ⁴/d = s²(2 + 1/H) + β⁴/2 (A4 §6)
            {"m1_2": (S_05, 1), "m1_20": (S_05, 1),
             "m2_2": (f"{S_05}**2 * (2 + 1 / 2) + 0.5**4 / 2", 1),
             "m2_20": (f"{S_05}**2 * (2 + 1 / 20) + 0.5**4 / 2", 1)}),
    ),
    "session-07": (
        _closed_form(
            "q1_kv",
            "Under the key–value tie with $\\ell = 64$, $d = 128$, 8 heads, $\\beta = 1$, "
            "store the closed-form mean as `mean_kv` (`tie=\"kv\"`; checked against "
            "$s + \\beta^2\\ell/d_h$, $d_h = d/H$, to 1e-6).",
            "import attnspec\nmean_kv = attnspec.multihead_moments(64, 128, 8, 1.0, tie='kv')[0]",
            {"mean_kv": (f"{S_1} + 64 / 16", 2)}),
    ),
    "session-09": (
        _closed_form(
            "q1_profile",
            "Store the first two moments of the causal-profile law "
            "`attnspec.TriangularProfileLaw(scale)` with $\\sigma^2 = s = e - 1$ "
            "($\\beta = 1$) as `m1_causal`, `m2_causal`, and its right edge "
            "(`law.support()[1]`) as `edge_causal` (checked against $s/2$, $2s^2/3$ and "
            "$e\\,s$ to 1e-6 relative).",
            "import attnspec\nimport math\nlaw = attnspec.TriangularProfileLaw(math.e - 1)\n"
            "m1_causal, m2_causal = law.moment(1), law.moment(2)\n"
            "edge_causal = law.support()[1]",
            {"m1_causal": (f"{S_1} / 2", 1), "m2_causal": (f"2 * {S_1}**2 / 3", 1),
             "edge_causal": (f"2.718281828459045 * {S_1}", 1)}),
    ),
}
