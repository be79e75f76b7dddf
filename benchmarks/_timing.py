"""Timing helper shared by the benchmarks: ratios within one run, medians of repeats."""

import time

import numpy as np


def median_time(func, repeats=11):
    """Median wall time of ``func()`` in seconds, after one warm-up call."""
    func()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return float(np.median(times))
