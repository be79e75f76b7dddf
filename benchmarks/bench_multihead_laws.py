"""Speed and accuracy of the multi-head law (MATH.md §6; chapter A1).

Run:  PYTHONPATH=lib python benchmarks/bench_multihead_laws.py

Targets (exit status 1 if one is missed):
- speed: building ``MultiHeadLaw`` (which also builds and checks its CDF series) plus its density
  on 400 points, at H = 8, ℓ = 1000, for every tie, takes ≤ 10% of one ℓ = 1000
  ``numpy.linalg.eigvalsh`` measured in the same run (medians of repeats; the ratio, not the
  wall time, is the target).  Both are CPU times (``time.process_time``, single-threaded
  BLAS), and the reference is re-measured next to every case, so that the ratio holds on a
  shared, loaded machine;
- accuracy: the density agrees to 1e-8 with (i) a second method at x + iη, η = 0.05·m₁: for
  untied heads the polynomial method (all roots of the cleared-denominator polynomial by
  companion-matrix eigenvalues, the root chosen by the Nevanlinna conditions alone), for the kv
  tie a forward fixed point (Silverstein–Bai with quadrature of the MP integral,
  Belinschi–Bercovici form for the heads), both in ``tests/multihead_oracles.py``; and (ii) the
  same equations solved on the real axis with a long, fine η-ladder and no starting points
  (density relative to its maximum).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")   # before numpy: the reference runs on one
os.environ.setdefault("OMP_NUM_THREADS", "1")        # thread, as the law does

import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from attnspec.laws.multihead import MultiHeadLaw  # noqa: E402
from attnspec.sampling.multihead import TIES, multihead_output  # noqa: E402
from _timing import median_time  # noqa: E402  (benchmarks/_timing.py, run as a script)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from multihead_oracles import cauchy_forward, cauchy_polynomial  # noqa: E402

REPEATS = 15
BUILD_REPEATS = 7
SPEED_TARGET = 0.10
ACCURACY_TARGET = 1e-8
CASES = ([dict(ell=1000, d=2000, heads=8, beta=1.0, tie=tie) for tie in TIES]
         + [dict(ell=1000, d=1000, heads=8, beta=1.0, tie=tie)
            for tie in ("none", "kv", "shared_pattern")])


def build_and_density(case):
    law = MultiHeadLaw(**case, groups=4 if case["tie"] == "gqa" else None)
    a, b = law.support()
    law.pdf(np.linspace(a, b, 402)[1:-1])
    return law


def main():
    Y = multihead_output(1000, 2000, 8, 1.0, equivalent=True, rng=0)
    gram = Y @ Y.T
    cpu = time.process_time
    print("reference: numpy.linalg.eigvalsh at ℓ = 1000, re-measured before each case "
          f"(CPU time, median of {REPEATS})")
    header = (f"{'case':<34} {'eigvalsh ms':>12} {'build+400 ms':>13} {'ratio':>7} "
              f"{'err 2nd':>11} {'err ladder':>11}  verdict")
    print(header)
    print("-" * len(header))
    failed = False
    for case in CASES:
        t_eig = median_time(lambda: np.linalg.eigvalsh(gram), repeats=REPEATS, clock=cpu)
        t_law = median_time(lambda: build_and_density(case), repeats=BUILD_REPEATS, clock=cpu)
        ratio = t_law / t_eig
        law = build_and_density(case)
        chain, unit = law._chain, law._chain.unit
        a, b = law.support()
        # (i) a second method at x + iη (chain units: x/s)
        xs = np.linspace(a, 1.05 * b, 25) / unit
        eta = 0.05 * law.mean() / unit
        second = cauchy_forward if chain.kind == "kv" else cauchy_polynomial
        G_fp = second(chain, xs + 1j * eta)
        G_nt, _ = chain.cauchy_on_axis(xs, law._scale, eta=eta)
        err_fp = float(np.max(np.abs(G_fp - G_nt) / np.abs(G_fp)))
        # (ii) long, fine ladder on the real axis, no starting points
        x = np.linspace(a, b, 402)[1:-1]
        G_ref = chain._ladder(x / unit, law._scale, 0.0, top=100.0, ratio=1.5, iters=4,
                              final=8)[0]
        rho_ref = -G_ref.imag / np.pi / unit
        err_ladder = float(np.max(np.abs(law.pdf(x) - rho_ref)) / np.max(rho_ref))
        ok = ratio <= SPEED_TARGET and err_fp < ACCURACY_TARGET and err_ladder < ACCURACY_TARGET
        failed |= not ok
        name = f"{case['tie']}, H={case['heads']}, ℓ/d={case['ell'] / case['d']:g}"
        print(f"{name:<34} {1e3 * t_eig:12.1f} {1e3 * t_law:13.1f} {ratio:7.3f} {err_fp:11.1e} "
              f"{err_ladder:11.1e}  {'ok' if ok else 'MISSED'}")
    print(f"targets: ratio ≤ {SPEED_TARGET}, errors < {ACCURACY_TARGET:g}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
