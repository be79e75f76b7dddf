"""Timing helpers shared by the benchmarks: ratios within one run, medians of repeats."""

import time

import numpy as np

#: CPU time of this process: steadier than wall time on a shared machine (single-threaded
#: BLAS: run with OPENBLAS_NUM_THREADS=1, as ``make bench`` does).
cpu_clock = time.process_time


def median_time(func, repeats=11, clock=time.perf_counter):
    """Median time of ``func()`` in seconds by ``clock`` (wall time by default; pass
    ``time.process_time`` for CPU time, steadier on a shared machine), after one warm-up."""
    func()
    times = []
    for _ in range(repeats):
        start = clock()
        func()
        times.append(clock() - start)
    return float(np.median(times))


def timed(func, clock=cpu_clock):
    """``(value, seconds)`` of one call ``func()`` (no warm-up: for first calls)."""
    start = clock()
    value = func()
    return value, clock() - start
