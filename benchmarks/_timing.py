"""Timing helper shared by the benchmarks: ratios within one run, medians of repeats."""

import time

import numpy as np


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
