"""Speed and accuracy of the multi-head law (MATH.md §6; chapter A1).

Run:  PYTHONPATH=lib python benchmarks/bench_multihead_laws.py

Targets (exit status 1 if one is missed):
- speed: 400 density points of the H = 8 law take < 10% of one ℓ = 1000 ``numpy.linalg.eigvalsh``
  measured in the same run (medians of repeats; the ratio, not the wall time, is the target);
- accuracy: the density solver (Newton on the backward map z(p), η-ladder) agrees to 1e-8 with
  (i) a second method at x + iη, η = 0.02·m₁: for untied heads the polynomial method (all
  roots of the cleared-denominator polynomial by companion-matrix eigenvalues, the root chosen
  by the Nevanlinna conditions alone), for the kv tie a forward fixed point (Silverstein–Bai
  with quadrature of the MP integral, Belinschi–Bercovici form for the heads); and (ii) the same
  equations solved with a long, fine ladder on the real axis (density relative to its maximum).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from attnspec.freeprob.chains import cauchy_forward, cauchy_polynomial
from attnspec.laws.multihead import MultiHeadLaw
from attnspec.sampling.multihead import multihead_output
from _timing import median_time  # benchmarks/_timing.py (run as a script)

REPEATS = 15
SPEED_TARGET = 0.10
ACCURACY_TARGET = 1e-8
CASES = [dict(ell=1000, d=2000, heads=8, beta=1.0, tie="none"),
         dict(ell=1000, d=2000, heads=8, beta=1.0, tie="kv"),
         dict(ell=1000, d=1000, heads=8, beta=1.0, tie="none")]



def main():
    Y = multihead_output(1000, 2000, 8, 1.0, equivalent=True, rng=0)
    gram = Y @ Y.T
    t_eig = median_time(lambda: np.linalg.eigvalsh(gram), repeats=REPEATS)
    print(f"reference: numpy.linalg.eigvalsh, ℓ = 1000: {1e3 * t_eig:.2f} ms (median of {REPEATS})")
    header = (f"{'case':<34} {'build ms':>9} {'400 pts ms':>11} {'ratio':>7} "
              f"{'err 2nd':>11} {'err ladder':>11}  verdict")
    print(header)
    print("-" * len(header))
    failed = False
    for case in CASES:
        start = time.perf_counter()
        law = MultiHeadLaw(**case)
        t_build = time.perf_counter() - start
        a, b = law.support()
        x = np.linspace(a, b, 402)[1:-1]
        t_pdf = median_time(lambda: law.pdf(x), repeats=REPEATS)
        ratio = t_pdf / t_eig
        # (i) a second method at x + iη
        xs = np.linspace(a, 1.05 * b, 25)
        eta = 0.02 * law.mean()
        second = cauchy_forward if case["tie"] == "kv" else cauchy_polynomial
        G_fp = second(law._chain, xs + 1j * eta)
        G_nt, _ = law._chain.cauchy_on_axis(xs, law._scale, eta=eta)
        err_fp = float(np.max(np.abs(G_fp - G_nt) / np.abs(G_fp)))
        # (ii) long, fine ladder on the real axis
        G_ref = law._chain._ladder(x, law._scale, 0.0, top=100.0, ratio=1.5, iters=4, final=8)[0]
        rho_ref = -G_ref.imag / np.pi
        err_ladder = float(np.max(np.abs(law.pdf(x) - rho_ref)) / np.max(rho_ref))
        ok = ratio < SPEED_TARGET and err_fp < ACCURACY_TARGET and err_ladder < ACCURACY_TARGET
        failed |= not ok
        name = f"{case['tie']}, H={case['heads']}, ℓ/d={case['ell'] / case['d']:g}"
        print(f"{name:<34} {1e3 * t_build:9.1f} {1e3 * t_pdf:11.2f} {ratio:7.3f} "
              f"{err_fp:11.1e} {err_ladder:11.1e}  {'ok' if ok else 'MISSED'}")
    print(f"targets: ratio < {SPEED_TARGET}, errors < {ACCURACY_TARGET:g}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
