"""The sweep cache against ``joblib.Memory``: speed ratios and integrity, measured in one run.

Run ``PYTHONPATH=lib python benchmarks/bench_sweep_cache.py``. Issue 10 asked for
``joblib.Memory`` as the sweep cache "unless measured to be worse for this book"; this script is
that measurement. Both caches store the same 40 sweep points (a dict of floats and a small
array, the shape of a chapter's sweep result) in a fresh folder, serially, and then:

- speed: compute-and-store all points, then read them all back (median of repeats, wall
  time; the ratio attnspec / joblib is reported, target ≤ ``SPEED_TARGET``);
- an edited entry (one stored number changed, the way a hand or a tool edits a file): is the
  edited value returned, or reported and recomputed? (the book's requirement, issue 11);
- a truncated entry: recomputed, and reported by path?
- an entry replaced by a pickle that runs code when loaded: does reading the cache run it?

Exits 1 if ``attnspec.sweep``'s cache misses a requirement (an edited or hostile entry
accepted, a damaged one not reported) or is slower than the target. joblib's answers are
printed, not asserted: they are the reason the book keeps its own cache.
"""

from __future__ import annotations

import pickle
import sys
import tempfile
import warnings
from pathlib import Path

import joblib
import numpy as np

from attnspec.sweeps import sweep
from _timing import median_time  # benchmarks/_timing.py (run as a script)

POINTS = 40
REPEATS = 7
SPEED_TARGET = 1.5  # attnspec time / joblib time, store and read alike


def sweep_point(beta, index, rng=None):
    """A stand-in for a chapter's sweep point: a few floats and a short array. Seeded by
    ``index`` (``rng`` is unused) so that both caches store the same values."""
    rng = np.random.default_rng(index)
    sample = rng.standard_normal(64) * beta
    return {"ks": float(np.abs(sample).max()), "mean": float(sample.mean()),
            "moments": np.array([np.mean(sample ** k) for k in range(1, 9)])}


GRID = [{"beta": 0.5 + 0.05 * i, "index": i} for i in range(POINTS)]


def attnspec_run(folder):
    return [r.result for r in sweep(sweep_point, GRID, "serial", seed=0, cache_dir=folder,
                                    progress=False)]


def joblib_run(memory):
    cached = memory.cache(sweep_point, ignore=["rng"])
    return [cached(**point) for point in GRID]


class _RunsCode:
    """Unpickling this writes a marker file: what a hostile or careless cache entry can do."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (Path.write_text, (Path(self.marker), "code ran while loading the cache"))


def _silently(func):
    """Call ``func``; return its value, the warnings raised and what it wrote to stderr."""
    with warnings.catch_warnings(record=True) as caught, tempfile.TemporaryFile("w+") as err:
        warnings.simplefilter("always")
        saved, sys.stderr = sys.stderr, err
        try:
            value = func()
        finally:
            sys.stderr = saved
        err.seek(0)
        return value, [str(w.message) for w in caught], err.read()


def integrity(root):
    """Edited, truncated and hostile entries, for both caches. Returns rows of findings."""
    rows = []
    truth = attnspec_run(root / "truth")[0]["ks"]
    for kind in ("edited", "truncated", "hostile"):
        a_dir, j_dir = root / f"a-{kind}", root / f"j-{kind}"
        attnspec_run(a_dir)
        memory = joblib.Memory(j_dir, verbose=0)
        joblib_run(memory)
        a_file = next(p for p in sorted(a_dir.glob("*.json"))
                      if '"index": 0,' in p.read_text())
        j_file = next(p for p in j_dir.rglob("output.pkl") if joblib.load(p)["ks"] == truth)
        marker = root / f"marker-{kind}"
        if kind == "edited":
            a_file.write_text(a_file.read_text().replace(repr(truth), repr(truth + 0.125), 1))
            value = joblib.load(j_file)
            value["ks"] = truth + 0.125
            joblib.dump(value, j_file)
        elif kind == "truncated":
            for f in (a_file, j_file):
                f.write_bytes(f.read_bytes()[: len(f.read_bytes()) // 2])
        else:
            hostile = pickle.dumps(_RunsCode(marker))
            a_file.write_bytes(hostile)
            j_file.write_bytes(hostile)
        for name, run, path in (("attnspec", lambda: attnspec_run(a_dir), a_file),
                                ("joblib.Memory", lambda: joblib_run(memory), j_file)):
            marker.unlink(missing_ok=True)
            results, warned, stderr = _silently(run)
            messages = "\n".join(warned) + stderr
            first = results[0]
            returned = first["ks"] if isinstance(first, dict) else first
            rows.append(dict(case=kind, cache=name, right=returned == truth,
                             reported=bool(messages.strip()),
                             named=str(path) in messages or str(path.parent) in messages,
                             ran_code=marker.exists()))
    return rows


def main():
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        counter = iter(range(10 ** 6))

        def fresh(prefix):
            return root / f"{prefix}{next(counter)}"

        store_a = median_time(lambda: attnspec_run(fresh("sa")), repeats=REPEATS)
        store_j = median_time(lambda: joblib_run(joblib.Memory(fresh("sj"), verbose=0)),
                              repeats=REPEATS)
        warm_a, warm_j = fresh("wa"), joblib.Memory(fresh("wj"), verbose=0)
        attnspec_run(warm_a)
        joblib_run(warm_j)
        read_a = median_time(lambda: attnspec_run(warm_a), repeats=REPEATS)
        read_j = median_time(lambda: joblib_run(warm_j), repeats=REPEATS)
        assert [r["ks"] for r in attnspec_run(warm_a)] == [r["ks"] for r in joblib_run(warm_j)]
        rows = integrity(root)

    failed = False
    print(f"speed, {POINTS} points (median of {REPEATS}, wall time), target: attnspec / "
          f"joblib <= {SPEED_TARGET:g}")
    for what, a, j in (("compute and store", store_a, store_j), ("read back", read_a, read_j)):
        ok = a / j <= SPEED_TARGET
        failed |= not ok
        print(f"  {what:18s} attnspec {a * 1e3:8.2f} ms   joblib {j * 1e3:8.2f} ms   ratio "
              f"{a / j:5.2f}  {'ok' if ok else 'MISSED'}")
    print("\ndamaged entries (the value of point 0 is read back):")
    print(f"  {'entry':10s} {'cache':14s} {'right value':>12s} {'reported':>9s} "
          f"{'path named':>11s} {'ran code':>9s}")
    for row in rows:
        yes = {True: "yes", False: "no"}
        print(f"  {row['case']:10s} {row['cache']:14s} {yes[row['right']]:>12s} "
              f"{yes[row['reported']]:>9s} {yes[row['named']]:>11s} {yes[row['ran_code']]:>9s}")
        if row["cache"] == "attnspec":
            failed |= not (row["right"] and row["reported"] and row["named"]
                           and not row["ran_code"])
    print("\nattnspec's cache meets the book's requirements" if not failed else
          "\nattnspec's cache MISSED a requirement")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
