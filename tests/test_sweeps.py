"""Tests of attnspec.sweep: seeding, executors (serial, threads, processes, dask), cache, errors."""

import concurrent.futures as cf
import functools
import json
import os
import re

import numpy as np
import pytest

import attnspec
from attnspec.sweeps import SweepError, SweepRecord, grid_points


# module-level functions: picklable for process and dask executors

def draw(beta, ell, rng):
    """A result of every cacheable kind, from the point's own stream."""
    values = rng.standard_normal(ell)
    return {"beta": beta, "mean": float(values.mean()), "values": beta * values,
            "count": np.int64(ell), "pair": (ell, "x"), "ints": np.arange(3, dtype=np.int32)}


def first_normal(x, rng):
    return float(rng.standard_normal()) + x


def fails_at_two(x, rng):
    if x == 2:
        raise RuntimeError("boom at two")
    return x


def returns_object(x, rng):
    return object()


GRID = {"beta": [0.5, 1.0], "ell": [3, 5, 4]}


def _same(records, others):
    assert [r.point for r in records] == [r.point for r in others]
    for a, b in zip(records, others):
        assert a.result.keys() == b.result.keys()
        for key in a.result:
            np.testing.assert_array_equal(a.result[key], b.result[key])


def test_grid_order_is_cartesian_last_name_fastest():
    """A dict grid expands like nested loops in the dict's order; records keep grid order."""
    records = attnspec.sweep(draw, GRID, executor="serial", seed=1, progress=False)
    assert [r.point for r in records] == [
        {"beta": 0.5, "ell": 3}, {"beta": 0.5, "ell": 5}, {"beta": 0.5, "ell": 4},
        {"beta": 1.0, "ell": 3}, {"beta": 1.0, "ell": 5}, {"beta": 1.0, "ell": 4}]
    assert [r.index for r in records] == list(range(6))
    assert all(isinstance(r, SweepRecord) and not r.cached for r in records)
    assert [r.result["values"].size for r in records] == [3, 5, 4, 3, 5, 4]


def test_explicit_list_of_points():
    """A list of dicts is swept in the given order."""
    points = [{"x": 3.0}, {"x": 1.0}]
    records = attnspec.sweep(first_normal, points, executor="serial", progress=False)
    assert [r.point for r in records] == points


def test_point_streams_are_spawned_children():
    """Point i uses default_rng(SeedSequence(seed).spawn(n)[i])."""
    records = attnspec.sweep(first_normal, {"x": [0.0, 0.0, 0.0]}, executor="serial", seed=7,
                             progress=False)
    children = np.random.SeedSequence(7).spawn(3)
    expected = [float(np.random.default_rng(c).standard_normal()) for c in children]
    assert [r.result for r in records] == expected
    assert len(set(expected)) == 3


def test_appending_points_keeps_earlier_streams():
    """Child i does not depend on n, so a longer grid repeats the earlier points exactly."""
    short = attnspec.sweep(first_normal, {"x": [0.0, 1.0]}, executor="serial", progress=False)
    longer = attnspec.sweep(first_normal, {"x": [0.0, 1.0, 2.0]}, executor="serial",
                            progress=False)
    assert [r.result for r in short] == [r.result for r in longer[:2]]


def test_seed_changes_results():
    """Different seeds give different draws."""
    a = attnspec.sweep(first_normal, {"x": [0.0]}, executor="serial", seed=0, progress=False)
    b = attnspec.sweep(first_normal, {"x": [0.0]}, executor="serial", seed=1, progress=False)
    assert a[0].result != b[0].result


@pytest.mark.parametrize("executor", ["threads", "processes", None], ids=["threads",
                                                                          "processes", "default"])
def test_same_seed_same_results_across_named_executors(executor):
    """Threads and processes (the default) reproduce the serial results exactly."""
    serial = attnspec.sweep(draw, GRID, executor="serial", seed=3, progress=False)
    other = attnspec.sweep(draw, GRID, executor=executor, seed=3, progress=False)
    _same(serial, other)


def test_user_executor_is_used_and_left_open():
    """A given Executor is used as is and not shut down."""
    serial = attnspec.sweep(draw, GRID, executor="serial", seed=3, progress=False)
    with cf.ThreadPoolExecutor(max_workers=3) as pool:
        records = attnspec.sweep(draw, GRID, executor=pool, seed=3, progress=False)
        assert pool.submit(lambda: 42).result() == 42   # still usable
    _same(serial, records)


def test_dask_client_same_results():
    """A dask.distributed Client (via client.get_executor()) gives the serial results."""
    distributed = pytest.importorskip("distributed")
    serial = attnspec.sweep(draw, GRID, executor="serial", seed=3, progress=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        via_client = attnspec.sweep(draw, GRID, executor=client, seed=3, progress=False)
        via_executor = attnspec.sweep(draw, GRID, executor=client.get_executor(), seed=3,
                                      progress=False)
    _same(serial, via_client)
    _same(serial, via_executor)


def test_cache_round_trip_is_exact_and_skips_fn(tmp_path):
    """A second sweep reads every point from the cache, exactly, without calling fn."""
    first = attnspec.sweep(draw, GRID, executor="processes", seed=5, cache_dir=tmp_path,
                           progress=False)
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 6 and not list(tmp_path.glob("*.tmp"))
    second = attnspec.sweep(draw, GRID, executor="serial", seed=5, cache_dir=tmp_path,
                            progress=False)
    assert all(r.cached for r in second) and not any(r.cached for r in first)
    _same(first, second)
    for a, b in zip(first, second):
        assert a.result["values"].dtype == b.result["values"].dtype
        assert type(b.result["count"]) is np.int64 and b.result["pair"] == (a.point["ell"], "x")
        assert b.result["ints"].dtype == np.int32


_CALLS = []


def counted_normal(x, rng):
    """first_normal that records its calls (serial sweeps run in this process)."""
    _CALLS.append(x)
    return x + rng.standard_normal()


def test_cache_hit_does_not_call_fn(tmp_path):
    """With every point cached, fn is never called."""
    _CALLS.clear()
    attnspec.sweep(counted_normal, {"x": [1.0, 2.0]}, executor="serial", seed=0,
                   cache_dir=tmp_path, progress=False)
    assert _CALLS == [1.0, 2.0]
    records = attnspec.sweep(counted_normal, {"x": [1.0, 2.0]}, executor="serial", seed=0,
                             cache_dir=tmp_path, progress=False)
    assert all(r.cached for r in records) and _CALLS == [1.0, 2.0]
    assert all(isinstance(r.result, float) for r in records)


def test_cache_stores_parameters_and_keys_on_seed_point_and_index(tmp_path):
    """Each file holds fn, point, seed and index; another seed or point is a miss."""
    attnspec.sweep(first_normal, {"x": [1.0]}, executor="serial", seed=0, cache_dir=tmp_path,
                   progress=False)
    (path,) = tmp_path.glob("*.json")
    stored = json.loads(path.read_text())
    assert stored["fn"] == "test_sweeps.first_normal" or stored["fn"].endswith(".first_normal")
    assert stored["point"] == {"x": 1.0} and stored["seed"] == 0 and stored["index"] == 0
    other_seed = attnspec.sweep(first_normal, {"x": [1.0]}, executor="serial", seed=1,
                                cache_dir=tmp_path, progress=False)
    other_point = attnspec.sweep(first_normal, {"x": [1.5]}, executor="serial", seed=0,
                                 cache_dir=tmp_path, progress=False)
    moved = attnspec.sweep(first_normal, [{"x": 2.5}, {"x": 1.0}], executor="serial", seed=0,
                           cache_dir=tmp_path, progress=False)
    assert not other_seed[0].cached and not other_point[0].cached
    assert [r.cached for r in moved] == [False, False]   # index 1: another stream
    assert len(list(tmp_path.glob("*.json"))) == 5


def test_partial_arguments_are_part_of_the_key(tmp_path):
    """Two partials of one function with different bound values do not share cache files."""
    a = attnspec.sweep(functools.partial(draw, ell=3), {"beta": [1.0]}, executor="serial",
                       cache_dir=tmp_path, progress=False)
    b = attnspec.sweep(functools.partial(draw, ell=4), {"beta": [1.0]}, executor="serial",
                       cache_dir=tmp_path, progress=False)
    assert not b[0].cached and b[0].result["values"].size == 4 != a[0].result["values"].size


def test_interrupted_sweep_keeps_finished_points_only(tmp_path):
    """An exception in fn propagates with a note; finished points are cached, nothing partial."""
    with pytest.raises(RuntimeError, match="boom at two") as info:
        attnspec.sweep(fails_at_two, {"x": [1, 2, 3]}, executor="serial", cache_dir=tmp_path,
                       progress=False)
    assert any("sweep point 1" in note for note in getattr(info.value, "__notes__", []))
    assert len(list(tmp_path.glob("*.json"))) == 1
    assert not list(tmp_path.glob("*.tmp"))


def test_corrupt_cache_file_is_recomputed(tmp_path):
    """A truncated cache file is ignored with a warning and rewritten."""
    first = attnspec.sweep(first_normal, {"x": [1.0]}, executor="serial", cache_dir=tmp_path,
                           progress=False)
    (path,) = tmp_path.glob("*.json")
    path.write_text(path.read_text()[:10])
    with pytest.warns(UserWarning, match=f"discarding sweep cache file {re.escape(str(path))}"):
        again = attnspec.sweep(first_normal, {"x": [1.0]}, executor="serial",
                               cache_dir=tmp_path, progress=False)
    assert not again[0].cached and again[0].result == first[0].result
    assert json.loads(path.read_text())["result"] == first[0].result


def _one_entry(tmp_path, fn=draw, grid=None):
    """Run a one-point sweep with a cache and return (record, path of its cache file)."""
    grid = grid or {"beta": [0.5], "ell": [4]}
    (record,) = attnspec.sweep(fn, grid, executor="serial", cache_dir=tmp_path, progress=False)
    (path,) = tmp_path.glob("*.json")
    return record, path


def _rewrite(path, edit):
    document = json.loads(path.read_text())
    path.write_text(json.dumps(edit(document)))


@pytest.mark.parametrize("damage", [
    lambda doc: [1, 2],
    lambda doc: None,
    lambda doc: {**doc, "result": {**doc["result"],
                                   "values": {**doc["result"]["values"], "shape": [3, 5]}}},
    lambda doc: {**doc, "result": {**doc["result"],
                                   "values": {**doc["result"]["values"], "dtype": "<c16"}}},
    lambda doc: {**doc, "result": {**doc["result"], "mean": 123.0}},
    lambda doc: {k: v for k, v in doc.items() if k != "sha256"},
], ids=["json-list", "json-null", "bad-shape", "bad-dtype", "tampered-value", "no-checksum"])
def test_malformed_cache_entry_is_reported_discarded_and_recomputed(tmp_path, damage):
    """Any malformed entry is named by path in a warning, deleted, recomputed: never returned."""
    first, path = _one_entry(tmp_path)
    _rewrite(path, damage)
    with pytest.warns(UserWarning, match=f"discarding sweep cache file {re.escape(str(path))}"):
        (again,) = attnspec.sweep(draw, {"beta": [0.5], "ell": [4]}, executor="serial",
                                  cache_dir=tmp_path, progress=False)
    assert not again.cached and again.result["mean"] == first.result["mean"]
    np.testing.assert_array_equal(again.result["values"], first.result["values"])
    (third,) = attnspec.sweep(draw, {"beta": [0.5], "ell": [4]}, executor="serial",
                              cache_dir=tmp_path, progress=False)
    assert third.cached   # the rewritten entry is valid again


def test_cache_entries_carry_a_checksum_of_their_result(tmp_path):
    """The stored sha256 is the SHA-256 of the result's canonical JSON (checked independently)."""
    import hashlib
    _, path = _one_entry(tmp_path)
    document = json.loads(path.read_text())
    text = json.dumps(document["result"], sort_keys=True, separators=(",", ":"))
    assert document["sha256"] == hashlib.sha256(text.encode()).hexdigest()


def test_cache_dir_in_the_way_is_refused_before_any_point(tmp_path):
    """A file where cache_dir should be: SweepError naming cache_dir, and fn is never called."""
    blocker = tmp_path / "cache"
    blocker.write_text("not a folder")
    calls = []

    def counted(x, rng):
        calls.append(x)
        return x

    with pytest.raises(SweepError, match=re.escape(f"cache_dir={str(blocker)!r}")):
        attnspec.sweep(counted, {"x": [1]}, executor="serial", cache_dir=blocker,
                       progress=False)
    assert calls == []


def test_unwritable_cache_dir_is_refused_before_any_point(tmp_path, monkeypatch):
    """A folder that refuses writes (simulated: tests run as root): SweepError naming cache_dir."""
    import tempfile

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with pytest.raises(SweepError, match=re.escape(f"cache_dir={str(tmp_path)!r} (Permission")):
        attnspec.sweep(first_normal, {"x": [1]}, executor="serial", cache_dir=tmp_path,
                       progress=False)


def test_missing_cache_dir_is_created(tmp_path):
    """A cache_dir that does not exist yet is created (with its parents)."""
    folder = tmp_path / "a" / "b"
    attnspec.sweep(first_normal, {"x": [1]}, executor="serial", cache_dir=folder,
                   progress=False)
    assert len(list(folder.glob("*.json"))) == 1


def test_uncacheable_result_is_a_named_error(tmp_path):
    """A result that JSON cannot hold exactly raises SweepError naming the type."""
    with pytest.raises(SweepError, match=re.escape("cannot cache result of type object")):
        attnspec.sweep(returns_object, {"x": [1]}, executor="serial", cache_dir=tmp_path,
                       progress=False)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("fn, grid, kwargs, message", [
    (42, {"x": [1]}, {}, "fn must be callable; got fn=42 (int)"),
    (first_normal, {}, {}, "grid must not be empty; got grid={}"),
    (first_normal, [], {}, "grid must not be empty; got grid=[]"),
    (first_normal, {"x": []}, {}, "grid['x'] must not be empty"),
    (first_normal, {"x": 1.0}, {}, "grid['x'] must be a list of values"),
    (first_normal, "x", {}, "grid must be a dict of lists or a list of dicts"),
    (first_normal, [1, 2], {}, "grid must be a dict of lists or a list of dicts; got grid[0]=1"),
    (first_normal, {"rng": [1]}, {}, "grid must not contain 'rng'"),
    (first_normal, {"x": [1]}, {"executor": "gpu"}, "executor must be one of 'serial'"),
    (first_normal, {"x": [1]}, {"executor": 4}, "got executor=4 (int)"),
    (first_normal, {"x": [1]}, {"seed": -1}, "seed must be a non-negative integer; got seed=-1"),
    (first_normal, {"x": [1]}, {"seed": 1.5}, "seed must be a non-negative integer"),
    (first_normal, {"x": [1]}, {"cache_dir": 3}, "cache_dir must be None or a path"),
], ids=["fn", "empty-dict", "empty-list", "empty-values", "scalar-values", "string-grid",
        "list-of-non-dicts", "rng-reserved", "executor-name", "executor-type", "seed-negative",
        "seed-float", "cache-dir"])
def test_bad_input_raises_named_value_error(fn, grid, kwargs, message):
    """Bad input raises SweepError, a ValueError, whose message names the argument."""
    options = dict(executor="serial", progress=False) | kwargs
    with pytest.raises(SweepError, match=re.escape(message)):
        attnspec.sweep(fn, grid, **options)
    assert issubclass(SweepError, ValueError)


def test_grid_points_accepts_numpy_values():
    """numpy arrays as grid values become Python scalars."""
    points = grid_points({"beta": np.array([0.5, 1.0])})
    assert points == [{"beta": 0.5}, {"beta": 1.0}]
    assert all(type(p["beta"]) is float for p in points)


def test_progress_bar_off_when_not_interactive(capsys):
    """Under pytest (no tty) progress=True prints nothing."""
    attnspec.sweep(first_normal, {"x": [1.0, 2.0]}, executor="serial", progress=True)
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""


def test_nothing_to_compute_starts_no_pool(tmp_path, monkeypatch):
    """With every point cached, no executor is created."""
    attnspec.sweep(first_normal, {"x": [1.0]}, executor="serial", cache_dir=tmp_path,
                   progress=False)

    def refuse(*args, **kwargs):
        raise AssertionError("a process pool was started")

    monkeypatch.setattr(cf, "ProcessPoolExecutor", refuse)
    records = attnspec.sweep(first_normal, {"x": [1.0]}, cache_dir=tmp_path, progress=False)
    assert records[0].cached
    assert os.cpu_count() >= 1


def test_unpicklable_fn_with_processes_is_a_named_error():
    """A lambda cannot go to worker processes: SweepError says so before any work."""
    with pytest.raises(SweepError, match=re.escape("fn must be picklable to run in processes")):
        attnspec.sweep(lambda x, rng: x, {"x": [1]}, executor="processes", progress=False)
    with cf.ProcessPoolExecutor(max_workers=1) as pool:
        with pytest.raises(SweepError, match="must be picklable"):
            attnspec.sweep(lambda x, rng: x, {"x": [1]}, executor=pool, progress=False)
    # threads and serial take any callable
    assert attnspec.sweep(lambda x, rng: x, {"x": [1]}, executor="threads",
                          progress=False)[0].result == 1


def test_unknown_executor_is_refused_even_when_everything_is_cached(tmp_path):
    """The executor is checked before the cache is read."""
    attnspec.sweep(first_normal, {"x": [1.0]}, executor="serial", cache_dir=tmp_path,
                   progress=False)
    with pytest.raises(SweepError, match=re.escape("got executor='gpu'")):
        attnspec.sweep(first_normal, {"x": [1.0]}, executor="gpu", cache_dir=tmp_path,
                       progress=False)
