"""Benchmark of the samplers: time and peak memory of a draw plus its spectrum, as ratios.

Run ``python benchmarks/bench_samplers.py`` (with ``lib`` on ``PYTHONPATH`` or attnspec
installed). Prints a table and exits with status 1 if a target is missed:

- one single-head draw plus spectrum at ℓ = d_qk = 1000 (``softmax_attention`` →
  ``centered`` → ``squared_singular_values``) costs at most 3× one ``numpy.linalg.eigvalsh``
  of an ℓ×ℓ symmetric matrix, both timed in this run, interleaved, median of 7 repeats;
- its peak traced memory (tracemalloc; numpy reports its buffers to it) is at most
  6 ℓ×ℓ float64 arrays (Q, K, the scaled Q and S/A during the draw; A, √ℓA^⊥ and the Gram
  matrix for the spectrum);
- ℓ = 4000 runs (one draw; time and memory reported, same memory bound).

Wall-clock times depend on the machine and its load; the ratios are what is checked.
Total runtime about 20–60 s on 2 cores.
"""

from __future__ import annotations

import statistics
import sys
import time
import tracemalloc

import numpy as np

import attnspec

RATIO_TARGET = 3.0
MEMORY_TARGET_ARRAYS = 6
REPEATS = 7


def single_head_spectrum(ell, seed):
    """One draw of √ℓ A^⊥ at c = 1 and its squared singular values."""
    A = attnspec.softmax_attention(ell, ell, 1.0, rng=seed)
    return attnspec.squared_singular_values(attnspec.centered(A))


def timed(function):
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def peak_memory(function):
    """Peak traced memory (bytes) while running ``function``."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main():
    rows, failures = [], []
    ell = 1000
    array_bytes = ell * ell * 8
    symmetric = np.random.default_rng(0).standard_normal((ell, ell))
    symmetric = symmetric @ symmetric.T
    single_head_spectrum(ell, 0)                     # warm up (imports, BLAS threads)
    eig_times, draw_times = [], []
    for seed in range(REPEATS):                      # interleaved: load hits both alike
        eig_times.append(timed(lambda: np.linalg.eigvalsh(symmetric)))
        draw_times.append(timed(lambda: single_head_spectrum(ell, seed)))
    eig, draw = statistics.median(eig_times), statistics.median(draw_times)
    ratio = draw / eig
    rows.append(("eigvalsh, l=1000 (unit)", f"{eig * 1e3:.1f} ms", "", ""))
    rows.append(("draw + spectrum, l=1000", f"{draw * 1e3:.1f} ms", f"{ratio:.2f} x eigvalsh",
                 f"<= {RATIO_TARGET:.0f} x"))
    if ratio > RATIO_TARGET:
        failures.append(f"time ratio {ratio:.2f} > {RATIO_TARGET}")

    peak = peak_memory(lambda: single_head_spectrum(ell, 99))
    rows.append(("peak memory, l=1000", f"{peak / 2**20:.0f} MiB",
                 f"{peak / array_bytes:.2f} l x l arrays", f"<= {MEMORY_TARGET_ARRAYS}"))
    if peak > MEMORY_TARGET_ARRAYS * array_bytes:
        failures.append(f"peak memory {peak / array_bytes:.2f} arrays > {MEMORY_TARGET_ARRAYS}")

    big = 4000
    big_bytes = big * big * 8
    start = time.perf_counter()
    big_peak = peak_memory(lambda: single_head_spectrum(big, 7))
    big_time = time.perf_counter() - start
    rows.append(("draw + spectrum, l=4000", f"{big_time:.1f} s",
                 f"{big_peak / 2**20:.0f} MiB = {big_peak / big_bytes:.2f} arrays",
                 f"<= {MEMORY_TARGET_ARRAYS}"))
    if big_peak > MEMORY_TARGET_ARRAYS * big_bytes:
        failures.append(f"l=4000 peak memory {big_peak / big_bytes:.2f} arrays")

    # informational rows (no target)
    def multihead(equivalent):
        Y = attnspec.multihead_output(500, 1000, 4, 1.0, equivalent=equivalent, rng=1)
        attnspec.squared_singular_values(Y)
    for equivalent, label in ((False, "softmax"), (True, "Gaussian equivalent")):
        seconds = statistics.median(timed(lambda: multihead(equivalent)) for _ in range(3))
        rows.append((f"multi-head {label}, l=500, d=1000, H=4", f"{seconds * 1e3:.0f} ms",
                     f"{seconds / eig:.2f} x eigvalsh(1000)", "-"))
    seconds = timed(lambda: attnspec.stepwise_chain(1000, 1000, 1.0, rng=2))
    rows.append(("stepwise chain (6 matrices), l=1000", f"{seconds * 1e3:.0f} ms",
                 f"{seconds / eig:.2f} x eigvalsh", "-"))

    widths = [max(len(row[i]) for row in rows + [("case", "time/size", "ratio", "target")])
              for i in range(4)]
    header = ("case", "time/size", "ratio", "target")
    for row in [header, tuple("-" * w for w in widths)] + rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)))
    if failures:
        print("FAILED: " + "; ".join(failures))
        return 1
    print("all targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
