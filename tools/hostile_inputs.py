"""Drive the public API and the command line with hostile inputs and count the outcomes.

Usage: ``.venv/bin/python tools/hostile_inputs.py [--quick] [--no-cli]``

Every case is a call with valid extremes or invalid input. Each outcome is one of:

- **refused**: a ``ValueError``/``TypeError`` whose message names a parameter of the call (the
  CLI: exit status 2 with a one-line message, no traceback);
- **correct**: a finite result that passes the case's own check (row sums, mass, moments...);
- **silent**: a result with inf/NaN or one that fails its check, without an error;
- **foreign**: any other exception, an error that names no parameter, a traceback.

The contract (issue 11) is that ``silent`` and ``foreign`` stay at zero;
``tests/test_hostile_inputs.py`` runs the quick catalogue and asserts it.
"""

from __future__ import annotations

import argparse
import itertools
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np

import attnspec

ROOT = Path(__file__).resolve().parent.parent
NAN, INF = float("nan"), float("inf")

BETAS = [1e-300, 1e-6, 1e-3, 0.5, 1.0, 8.75, 10.0, 26.0, 26.5, 50.0, 0.0, -1.0, NAN, INF,
         "1", None, True, 1j]
SIZES = [2, 3, 17, 0, 1, -5, 2.0, 3.5, "8", None, True, 10**7]
CS = [0.01, 0.1, 1.0, 4.0, 100.0, 0.0, -1.0, 1e300, NAN, "c", None]


def _finite(value):
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, (tuple, list)):
        return all(_finite(v) for v in value)
    try:
        return bool(np.all(np.isfinite(np.asarray(value, dtype=float))))
    except (TypeError, ValueError):
        return True   # not numeric (e.g. a law object): judged by its check


def classify(call, names, check=None):
    """One outcome for ``call``: 'refused', 'correct', 'silent' or 'foreign'."""
    try:
        result = call()
    except (ValueError, TypeError) as exc:
        return "refused" if any(name in str(exc) for name in names) else "foreign"
    except Exception:   # noqa: BLE001 - anything else is what we count as foreign
        return "foreign"
    if not _finite(result):
        return "silent"
    if check is not None:
        try:
            ok = check(result)
        except Exception:   # noqa: BLE001 - a check that cannot even run on the result
            ok = False
        if not ok:
            return "silent"
    return "correct"


def _nan_as_documented(values, expected):
    """Replace the documented NaNs by 0 after checking they are exactly where expected."""
    values = np.asarray(values, dtype=float)
    if expected is None:
        return values
    if not np.array_equal(np.isnan(values), np.broadcast_to(expected, values.shape)):
        return np.full(values.shape, np.nan)   # a NaN where none is documented: silent
    return np.where(np.isnan(values), 0.0, values)


def _stochastic(A):
    return np.allclose(A.sum(axis=1), 1.0, atol=1e-12) and (A >= 0).all()


def _law_is_right(law):
    """Mass 1 and mean s by quadrature of the pdf over the support pieces; ppf∘cdf = id."""
    from scipy.integrate import quad

    pieces = law.intervals() if hasattr(law, "intervals") else [law.support()]
    mass = mean = 0.0
    for a, b in pieces:
        mass += quad(law.pdf, a, b, limit=400, epsabs=0, epsrel=1e-10)[0]
        mean += quad(lambda t: t * law.pdf(t), a, b, limit=400, epsabs=0, epsrel=1e-10)[0]
    x = law.ppf(0.5)
    return (abs(mass - 1) < 1e-6 and abs(mean / law.moment(1) - 1) < 1e-6
            and abs(law.cdf(x) - 0.5) < 1e-9)


def library_cases(quick=False):
    """(label, call, names, check) for the library's public functions."""
    sizes = SIZES[:6] + SIZES[7:11] if quick else SIZES
    betas = BETAS[::2] if quick else BETAS
    out = []
    for ell, d_qk, beta in itertools.product(sizes[:8], sizes[:4], betas):
        out.append((f"softmax_attention({ell!r}, {d_qk!r}, {beta!r})",
                    lambda e=ell, d=d_qk, b=beta: attnspec.softmax_attention(e, d, b, rng=0),
                    ["ell", "d_qk", "beta"], _stochastic))
    for ell, beta in itertools.product(sizes, betas):
        out.append((f"linear_equivalent({ell!r}, 8, {beta!r})",
                    lambda e=ell, b=beta: attnspec.linear_equivalent(e, 8, b, rng=0),
                    ["ell", "d_qk", "beta"], None))
        out.append((f"mp_surrogate({ell!r}, {beta!r})",
                    lambda e=ell, b=beta: attnspec.mp_surrogate(e, b, rng=0),
                    ["ell", "beta"], None))
        out.append((f"iid_score_attention({ell!r}, {beta!r})",
                    lambda e=ell, b=beta: attnspec.iid_score_attention(e, b, rng=0),
                    ["ell", "beta"], _stochastic))
    for beta in betas:
        out.append((f"stepwise_chain(6, 6, {beta!r})",
                    lambda b=beta: attnspec.stepwise_chain(6, 6, b, rng=0),
                    ["beta"], None))
        out.append((f"noise_variance({beta!r})", lambda b=beta: attnspec.noise_variance(b),
                    ["beta"], lambda v: v >= 0))
        for tie in ("none", "kv", "shared_pattern", "bogus"):
            out.append((f"multihead_output(8, 16, 2, {beta!r}, tie={tie!r}, equivalent=True)",
                        lambda b=beta, t=tie: attnspec.multihead_output(
                            8, 16, 2, b, tie=t, rng=0, equivalent=True),
                        ["beta", "tie"], None))
            out.append((f"multihead_moments(64, 128, 4, {beta!r}, tie={tie!r})",
                        lambda b=beta, t=tie: attnspec.multihead_moments(
                            64, 128, 4, b, tie=t, order=4),
                        ["beta", "tie", "order"], None))
    for beta, c in itertools.product(betas, CS[::2] if quick else CS):
        out.append((f"AttentionLaw({beta!r}, {c!r})",
                    lambda b=beta, cc=c: attnspec.AttentionLaw(b, cc),
                    ["beta", "c"], _law_is_right))
    for ratio, scale in itertools.product([0.01, 1.0, 100.0, 0.0, NAN],
                                          [1.0, 1e300, 1e-300, -1.0, INF]):
        out.append((f"MarchenkoPastur({ratio!r}, {scale!r})",
                    lambda r=ratio, s=scale: attnspec.MarchenkoPastur(r, s),
                    ["ratio", "scale"], lambda law: np.isfinite(law.support()).all()))
    law = attnspec.AttentionLaw(1.0, 1.0)
    for method, arg in itertools.product(["pdf", "cdf", "ppf"],
                                         [None, "x", 1j, [0.5, NAN], 0.5, -1.0, 2.0]):
        # scipy's conventions, documented by the laws: NaN in gives NaN out, and ppf of q
        # outside [0, 1] is NaN; those NaNs are the right answer, not silent failures
        nan_expected = (np.isnan(np.asarray(arg, dtype=float))
                        | ((method == "ppf") & (np.abs(np.asarray(arg, dtype=float) - 0.5) > 0.5))
                        if isinstance(arg, (list, float)) else None)
        out.append((f"AttentionLaw(1, 1).{method}({arg!r})",
                    lambda m=method, a=arg, e=nan_expected: _nan_as_documented(
                        getattr(law, m)(a), e), ["x", "q"], None))
    for size in [-1, 0, 3, 2.5, "3", None]:
        out.append((f"AttentionLaw(1, 1).rvs(size={size!r})",
                    lambda s=size: law.rvs(size=s, rng=0), ["size"], None))
    rng = np.random.default_rng(0)
    matrices = [rng.standard_normal((5, 7)) * f for f in (1.0, 1e150, 1e-150, 1e160, 1e-200)]
    matrices += [np.zeros((5, 0)), np.full((3, 3), NAN), "M", None, np.ones((2, 2), complex)]
    for M, drop in itertools.product(matrices, [0, 2, 9, -1, 1.5]):
        out.append(("squared_singular_values(M, drop_top)",
                    lambda m=M, d=drop: attnspec.squared_singular_values(m, drop_top=d),
                    ["M", "drop_top"], lambda v: (np.diff(v) <= 0).all()))
    sample = np.linspace(0.1, 2.0, 50)
    others = [lambda x: np.clip(x / 2, 0, 1), lambda x: np.full_like(x, NAN),
              lambda x: 2.0 + 0 * x, attnspec.MarchenkoPastur(1.0, 1.0), sample + 0.1,
              np.array([1 + 1j]), "abc"]
    for other in others:
        out.append(("ks_distance(sample, other)",
                    lambda o=other: attnspec.ks_distance(sample, o), ["sample", "other"],
                    lambda v: 0 <= v <= 1))
    out += issue24_cases()
    return out


def issue24_cases():
    """The silent or foreign answers the hostile run of issue 24 found; a refusal counts only
    when its message gives the right reason (the words listed)."""
    big = 10**400
    return [
        ("AttentionLaw(10**400, 1)", lambda: attnspec.AttentionLaw(big, 1), ["beta = an integer"],
         None),
        ("threshold_scales(10**400)", lambda: attnspec.experiments.thresholds.threshold_scales(big), ["ell must"], None),
        ("row_sum_fluctuation(1.0, 10, 10**400)",
         lambda: attnspec.experiments.row_sums.row_sum_fluctuation(1.0, 10, big), ["d_qk = an integer"], None),
        ("threshold_scales(np.array([1000+1j]))",
         lambda: attnspec.experiments.thresholds.threshold_scales(np.array([1000 + 1j])), ["ell must"], None),
        ("threshold_scales(np.datetime64('2020-01-01'))",
         lambda: attnspec.experiments.thresholds.threshold_scales(np.datetime64("2020-01-01")), ["ell must"], None),
        ("AttentionLaw(4e-7, 1.00001)", lambda: attnspec.AttentionLaw(4e-7, 1.00001),
         ["c must be <= 1 or >="], None),
        ("AttentionLaw(1e-5, 0.5).moment(40)", lambda: attnspec.AttentionLaw(1e-5, 0.5).moment(40),
         ["underflows"], None),
        ("AttentionLaw(19.5, 1).var()", lambda: attnspec.AttentionLaw(19.5, 1.0).var(),
         ["the variance of AttentionLaw(beta=19.5"], None),
        ("multihead_moments(400, 800, 4, 1.0, order=200)",
         lambda: attnspec.multihead_moments(400, 800, 4, 1.0, order=200), ["order must be <="],
         None),
    ]


CLI = [
    ["law", "--beta", "1", "--c", "1"], ["law", "--beta", "10"], ["law", "--beta", "26"],
    ["law", "--beta", "1e-6"], ["law", "--beta", "30"], ["law", "--beta", "0"],
    ["law", "--beta", "nan"], ["law", "--c", "100", "--beta", "0.03"],
    ["law", "--c", "-1"], ["law", "--table", "100000000"], ["law", "--moments", "1000"],
    ["law", "--table", "5"], ["law", "--moments", "20"], ["law", "--beta", "x"],
    ["rerun", "03", "ell=-5"], ["rerun", "03", "bogus=1"], ["rerun", "03", "ell=200",
                                                             "ell=300"],
    ["rerun", "99"], ["rerun", "03", "betas=[0.5,1e-300]"], ["rerun", "03", "ell"],
    ["chapters"],
]
#: Command lines that must be refused (issue 24: read as 3, as 10, the last one kept)
CLI_REFUSED = [["law", "--beta", "٣"], ["law", "--beta", "1_0"],
               ["law", "--beta", "1", "--beta", "2"], ["rerun", "03", "ell=1_000"]]


def cli_outcome(argv):
    """The outcome of one ``attnspec`` command line (a rerun is only checked, never run)."""
    done = subprocess.run([sys.executable, "-m", "attnspec", *argv], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    if "Traceback" in done.stderr:
        return "foreign"
    if done.returncode == 2 and len(done.stderr.strip().splitlines()) >= 1:
        return "refused"
    if done.returncode == 0:
        bad = any(word in done.stdout.lower().split() for word in ("nan", "inf", "-inf"))
        return "silent" if bad else "correct"
    return "foreign"


def run(quick=False, cli=True):
    """Counter of outcomes over the catalogue, and the labels of silent/foreign cases."""
    counts, bad = Counter(), []
    with np.errstate(all="ignore"):
        for label, call, names, check in library_cases(quick):
            outcome = classify(call, names, check)
            counts[outcome] += 1
            if outcome in ("silent", "foreign"):
                bad.append(f"{outcome}: {label}")
    if cli:
        for argv in CLI + CLI_REFUSED:
            outcome = cli_outcome(argv)
            if argv in CLI_REFUSED and outcome == "correct":
                outcome = "silent"
            counts[outcome] += 1
            if outcome in ("silent", "foreign"):
                bad.append(f"{outcome}: attnspec {' '.join(argv)}")
    return counts, bad


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smaller catalogue")
    parser.add_argument("--no-cli", action="store_true", help="library calls only")
    args = parser.parse_args(argv)
    counts, bad = run(args.quick, not args.no_cli)
    total = sum(counts.values())
    print(f"tried {total}: " + ", ".join(f"{k} {counts[k]}" for k in
                                          ("refused", "correct", "silent", "foreign")))
    for line in bad:
        print("  " + line)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
