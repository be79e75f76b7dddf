"""Speed of AttentionLaw over its whole domain, as ratios to one ℓ = 1000 eigvalsh.

Run ``PYTHONPATH=lib python benchmarks/bench_laws.py`` (``--chapters``: only the chapters'
cases, for a quick look). Target (issue 10): every AttentionLaw call costs at most 2 % of
one ``numpy.linalg.eigvalsh`` of an ℓ = 1000 symmetric matrix, "first cdf and ppf
included, build counted". So, for each (β, c), on a FRESH law each repeat:

- ``build``: ``AttentionLaw(β, c)`` (edges, the CDF series of every support piece and the
  self-check of mass and moments);
- ``cdf1``: its first ``cdf`` on 400 points;
- ``ppf1``: its first ``ppf`` on 400 points (this includes the per-piece inverse tables
  that ``ppf`` builds on first use);

and on a warm law ``pdf``, ``cdf`` and ``ppf`` on 400 points. Points: x evenly spaced on
[0, 1.05·(right edge)], q evenly spaced on [0, 1].

Grid: β ∈ {1e-72 (``BETA_MIN_REPRESENTABLE``), 1e-20, 1e-7, 1e-6, 1e-4, 1e-2, 0.03, 0.1,
0.25, 0.5, 1, 2, 3, 5, 8.75, 26 (``BETA_MAX``)} × c ∈ {0.01, 0.1, 0.5, 0.99, 1, 1.01, 1.05,
1.6, 2, 4, 10, 100}: both ends of the documented domain, every form (``"small-beta"``,
``"exact"``, ``"marchenko-pastur"``) and its switch points, c on both sides of 1 (where
small β is hardest; 1.05 and 1.6 where the density has a near-cusp close to 0), and the
chapters' cases (1, 1), (0.25, 2), (2, 4), (1, 4), (0.03, 100). The
table gives medians over repeats per case; the summary the worst ratio per operation over
the grid. Exit status 1 if any ratio misses the target (printed ``MISSED``).

Times are CPU times (``time.process_time``) with single-threaded BLAS; the eigvalsh
reference is re-measured before each row of the grid, so that each ratio compares two
times taken under the same load. Compare ratios from a quiet machine.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")   # before numpy: the reference runs on one
os.environ.setdefault("OMP_NUM_THREADS", "1")        # thread, as the law does

import sys  # noqa: E402

import numpy as np  # noqa: E402

from attnspec.laws.attention import BETA_MIN_REPRESENTABLE, AttentionLaw  # noqa: E402
from _timing import cpu_clock, median_time, timed  # noqa: E402  (benchmarks/_timing.py)

TARGET = 0.02            # fraction of one ℓ = 1000 eigvalsh
FRESH_REPEATS = 7        # fresh laws per case (build, first cdf, first ppf)
WARM_REPEATS = 7         # warm calls per case (after one warm-up)
REFERENCE_REPEATS = 5
POINTS = 400

BETAS = [BETA_MIN_REPRESENTABLE, 1e-20, 1e-7, 1e-6, 1e-4, 1e-2, 0.03, 0.1, 0.25, 0.5, 1.0,
         2.0, 3.0, 5.0, 8.75, 26.0]
CS = [0.01, 0.1, 0.5, 0.99, 1.0, 1.01, 1.05, 1.6, 2.0, 4.0, 10.0, 100.0]
CHAPTERS = [(1.0, 1.0), (0.25, 2.0), (2.0, 4.0), (1.0, 4.0), (0.03, 100.0)]
OPERATIONS = ["build", "cdf1", "ppf1", "pdf", "cdf", "ppf"]


def reference_time(gram):
    """CPU time of one eigvalsh of the ℓ = 1000 matrix (median of repeats)."""
    return median_time(lambda: np.linalg.eigvalsh(gram), repeats=REFERENCE_REPEATS,
                       clock=cpu_clock)


def time_case(beta, c):
    """Median CPU seconds of each operation of ``OPERATIONS`` at (β, c), and the law."""
    q = np.linspace(0.0, 1.0, POINTS)
    fresh = []
    for _ in range(FRESH_REPEATS):
        law, t_build = timed(lambda: AttentionLaw(beta, c))
        x = np.linspace(0.0, 1.05 * law.support()[1], POINTS)
        _, t_cdf = timed(lambda: law.cdf(x))
        _, t_ppf = timed(lambda: law.ppf(q))
        fresh.append((t_build, t_cdf, t_ppf))
    times = dict(zip(OPERATIONS[:3], np.median(fresh, axis=0)))
    for name in ("pdf", "cdf", "ppf"):
        method, points = getattr(law, name), (q if name == "ppf" else x)
        times[name] = median_time(lambda: method(points), repeats=WARM_REPEATS,
                                  clock=cpu_clock)
    return times, law


def main(argv):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1000, 1000))
    gram = a @ a.T / 1000
    rows = ([(b, CHAPTERS) for b in sorted({b for b, _ in CHAPTERS})]
            if "--chapters" in argv else [(b, [(b, c) for c in CS]) for b in BETAS])
    print(f"target: every operation <= {TARGET:.0%} of one eigvalsh (l = 1000, CPU time); "
          "ratios in %, medians")
    header = " ".join(f"{op:>6s}" for op in OPERATIONS)
    print(f"{'beta':>8s} {'c':>6s} {'form':>6s} {'ref ms':>7s} {header}  status")
    worst = {op: (0.0, None) for op in OPERATIONS}
    missed = 0
    for beta, cases in rows:
        reference = reference_time(gram)
        for b, c in cases:
            if b != beta:
                continue
            times, law = time_case(b, c)
            ratios = {op: t / reference for op, t in times.items()}
            for op, r in ratios.items():
                if r > worst[op][0]:
                    worst[op] = (r, (b, c))
            bad = [op for op, r in ratios.items() if r > TARGET]
            missed += bool(bad)
            cells = " ".join(f"{100 * ratios[op]:6.2f}" for op in OPERATIONS)
            status = "ok" if not bad else "MISSED " + ",".join(bad)
            print(f"{b:8.3g} {c:6g} {law.form[:6]:>6s} {reference * 1e3:7.1f} {cells}  "
                  f"{status}", flush=True)
    print("\nworst ratio per operation over the grid:")
    for op in OPERATIONS:
        r, (b, c) = worst[op]
        status = "ok" if r <= TARGET else "MISSED"
        print(f"  {op:6s} {r:7.2%} at beta={b:g}, c={c:g}  {status}")
    print(f"{missed} case(s) missed the target" if missed else "every case met the target")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
