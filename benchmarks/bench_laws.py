"""Speed of the limit laws, as ratios to one ℓ = 1000 ``numpy.linalg.eigvalsh`` (same run).

Run ``PYTHONPATH=lib python benchmarks/bench_laws.py``. Prints a table of medians over
repeats and exits 1 if a target is missed. Targets (the issue: "well under 2 %"): freezing a
law (edges) plus ``pdf`` on 400 points, and ``cdf`` on 400 points of a built law, each cost
under 2 % of the eigvalsh reference (measured on a quiet machine: 1.1-1.6 % and 0.3-0.7 %). Reported without a target: ``ppf`` (bracketed Newton) and the
one-off CDF table of a law's first ``cdf`` call. On a loaded machine the multithreaded
eigvalsh slows down more than these single-threaded operations, flattering the ratios:
compare ratios measured on a quiet machine.
"""

from __future__ import annotations

import sys

import numpy as np

from attnspec.laws.attention import AttentionLaw
from _timing import median_time  # benchmarks/_timing.py (run as a script)

TARGET = 0.02  # fraction of one ℓ = 1000 eigvalsh
REPEATS = 41



def _edges_and_pdf(beta, c, x):
    law = AttentionLaw(beta, c)  # freezing computes the edges
    return law.edges(), law.pdf(x)


def main():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1000, 1000))
    gram = a @ a.T / 1000
    reference = median_time(lambda: np.linalg.eigvalsh(gram), repeats=11)

    cases, info = [], []
    for beta, c in [(1.0, 1.0), (0.25, 2.0), (2.0, 4.0)]:
        right = AttentionLaw(beta, c).support()[1]
        x = np.linspace(0.0, 1.05 * right, 400)
        q = np.linspace(0.0, 1.0, 400)
        warm = AttentionLaw(beta, c)
        warm.cdf(x)
        cases += [
            (f"law + edges + pdf(400)  beta={beta}, c={c}",
             lambda b=beta, c_=c, x=x: _edges_and_pdf(b, c_, x)),
            (f"cdf(400), built law     beta={beta}, c={c}", lambda law=warm, x=x: law.cdf(x)),
        ]
        info.append((f"ppf(400), built law     beta={beta}, c={c}",
                     lambda law=warm, q=q: law.ppf(q)))
    # reported, not targeted: the one-off cost of the CDF table (first cdf call of a law)
    info += [(f"first cdf(400) incl. table  beta={b}, c={c}",
             lambda b=b, c=c: AttentionLaw(b, c).cdf(np.linspace(0, 1, 400)))
            for b, c in [(1.0, 1.0), (1.0, 4.0)]]

    print(f"reference: eigvalsh, l = 1000: {reference * 1e3:8.2f} ms   target: "
          f"<= {TARGET:.1%} of it")
    print(f"{'operation':48s} {'median ms':>10s} {'ratio':>8s}  status")
    failed = False
    for name, func in cases:
        t = median_time(func, repeats=REPEATS)
        ok = t <= TARGET * reference
        failed |= not ok
        print(f"{name:48s} {t * 1e3:10.3f} {t / reference:8.2%}  {'ok' if ok else 'MISSED'}")
    for name, func in info:
        t = median_time(func, repeats=11)
        print(f"{name:48s} {t * 1e3:10.3f} {t / reference:8.2%}  (info)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
