"""Seeded parameter sweeps over any executor, with an on-disk cache of every point.

:func:`sweep` runs ``fn(**point, rng=generator)`` for every point of a grid. Each point gets its
own random stream, child ``i`` of ``numpy.random.SeedSequence(seed).spawn(n)``, so the results
depend on the seed and the grid only: not on the executor (serial, threads, processes, a dask
cluster), the number of workers or the order in which points finish.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import hashlib
import inspect
import itertools
import json
import math
import numbers
import os
import pickle
import re
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["sweep", "grid_points", "SweepRecord", "SweepError", "EXECUTORS"]

#: Executors that :func:`sweep` builds itself when given their name.
EXECUTORS = ("serial", "threads", "processes")

_CACHE_FORMAT = 2  # bump when the layout of a cache file changes


class SweepError(ValueError):
    """Invalid input to :func:`sweep` (a bad function, grid, seed, executor or cache)."""


@dataclass(frozen=True)
class SweepRecord:
    """One point of a sweep and what ``fn`` returned there.

    Attributes
    ----------
    point : dict
        The keyword arguments ``fn`` was called with (without ``rng``).
    result : object
        The return value of ``fn`` (read back from the cache on a cache hit).
    index : int
        Position of the point in the grid; its random stream is child ``index`` of
        ``SeedSequence(seed).spawn(n)``.
    cached : bool
        True if the result came from the cache and ``fn`` was not called.
    """

    point: dict
    result: object
    index: int
    cached: bool = False


# ---------------------------------------------------------------------------------------------
# input checks


def grid_points(grid):
    """Expand a grid into the list of its points, in sweep order.

    Parameters
    ----------
    grid : dict of list or list of dict
        A dict mapping each parameter name to a non-empty list of values (the Cartesian
        product is taken, the *last* name varying fastest, like nested ``for`` loops in the
        order of the dict), or an explicit non-empty list of dicts.

    Returns
    -------
    list of dict
        The points, each a new dict of keyword arguments.

    Raises
    ------
    SweepError
        If the grid is empty, not a dict or list of dicts, has a value that is not a list,
        or uses a name that is not a Python identifier or is ``rng`` (reserved).

    Examples
    --------
    >>> grid_points({"beta": [0.5, 1.0], "ell": [100, 200]})
    [{'beta': 0.5, 'ell': 100}, {'beta': 0.5, 'ell': 200}, {'beta': 1.0, 'ell': 100}, {'beta': 1.0, 'ell': 200}]
    """
    if isinstance(grid, dict):
        if not grid:
            raise SweepError("grid must not be empty; got grid={}")
        names = list(grid)
        columns = []
        for name in names:
            values = grid[name]
            if isinstance(values, (str, bytes, dict)) or not isinstance(
                    values, (list, tuple, range, np.ndarray)):
                raise SweepError(f"grid[{name!r}] must be a list of values; got "
                                 f"grid[{name!r}]={values!r} (for one value write [{values!r}])")
            values = list(values.tolist() if isinstance(values, np.ndarray) else values)
            if not values:
                raise SweepError(f"grid[{name!r}] must not be empty; got grid[{name!r}]=[]")
            columns.append(values)
        points = [dict(zip(names, combo)) for combo in itertools.product(*columns)]
    elif isinstance(grid, (list, tuple)):
        if not grid:
            raise SweepError("grid must not be empty; got grid=[]")
        for i, point in enumerate(grid):
            if not isinstance(point, dict):
                raise SweepError(f"grid must be a dict of lists or a list of dicts; got "
                                 f"grid[{i}]={point!r} ({type(point).__name__})")
        points = [dict(point) for point in grid]
    else:
        raise SweepError("grid must be a dict of lists or a list of dicts; got "
                         f"grid={grid!r} ({type(grid).__name__})")
    for point in points:
        for name in point:
            if not isinstance(name, str) or not name.isidentifier():
                raise SweepError(f"grid parameter names must be Python identifiers; got {name!r}")
            if name == "rng":
                raise SweepError("grid must not contain 'rng': sweep passes each point its own "
                                 "rng (child i of SeedSequence(seed).spawn(n))")
    return points


def _check_seed(seed):
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise SweepError(f"seed must be a non-negative integer; got seed={seed!r}")
    return int(seed)


def _check_executor(executor):
    """Refuse an executor of unknown kind early (even when every point is cached)."""
    if executor is None or isinstance(executor, cf.Executor):
        return executor
    if isinstance(executor, str) and executor in EXECUTORS:
        return executor
    if not isinstance(executor, str) and callable(getattr(executor, "get_executor", None)):
        return executor  # a dask.distributed Client
    raise SweepError(f"executor must be one of {', '.join(map(repr, EXECUTORS))}, a "
                     "concurrent.futures.Executor or a dask.distributed Client; got "
                     f"executor={executor!r} ({type(executor).__name__})")


def _check_picklable(fn, pool):
    """Processes receive fn by pickle: say so clearly instead of failing in a worker."""
    if not isinstance(pool, cf.ProcessPoolExecutor):
        return
    try:
        pickle.dumps(fn)
    except Exception as exc:  # PicklingError, AttributeError, TypeError, ...
        raise SweepError(f"fn must be picklable to run in processes; got fn={fn!r} ({exc}). "
                         "Define it at module level in an importable module, or use "
                         "executor='threads' or 'serial'") from None


def _resolve_executor(executor, pending):
    """Return (executor or None for serial, whether sweep owns it and must shut it down)."""
    if executor is None:
        executor = "processes"
    if isinstance(executor, str):
        if executor == "serial":
            return None, False
        workers = max(1, min(os.cpu_count() or 1, pending))
        if executor == "threads":
            return cf.ThreadPoolExecutor(max_workers=workers), True
        return cf.ProcessPoolExecutor(max_workers=workers), True
    if isinstance(executor, cf.Executor):
        return executor, False
    inner = executor.get_executor()   # a dask.distributed Client
    if isinstance(inner, cf.Executor):
        return inner, False
    raise SweepError(f"executor must be one of {', '.join(map(repr, EXECUTORS))}, a "
                     "concurrent.futures.Executor or a dask.distributed Client; got "
                     f"executor={executor!r} ({type(executor).__name__})")


# ---------------------------------------------------------------------------------------------
# identity of a point, for the cache


def _fn_name(fn):
    """``module.qualname`` of fn (of the wrapped function for a functools.partial)."""
    if isinstance(fn, functools.partial):
        return _fn_name(fn.func)
    target = fn if hasattr(fn, "__qualname__") else type(fn)
    return f"{getattr(target, '__module__', '?')}.{target.__qualname__}"


def _fn_fingerprint(fn):
    """What identifies fn in the cache key: its qualified name, its source text if available
    (so editing fn's body invalidates its cache; edits to the functions it calls do not), and
    for a functools.partial the bound arguments."""
    parts = {"name": _fn_name(fn)}
    base = fn.func if isinstance(fn, functools.partial) else fn
    try:
        parts["source"] = hashlib.sha256(inspect.getsource(base).encode()).hexdigest()
    except (OSError, TypeError):
        parts["source"] = None
    if isinstance(fn, functools.partial):
        parts["partial"] = _canonical_json({"args": list(fn.args), "keywords": fn.keywords})
    return parts


def _plain(value):
    """JSON-able version of a point value (numpy scalars to Python, tuples to lists)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise SweepError(f"cannot cache a sweep point holding {value!r} ({type(value).__name__}): "
                     "with cache_dir, point values must be numbers, strings, None or lists of "
                     "them")


def _canonical_json(value):
    return json.dumps(_plain(value), sort_keys=True, separators=(",", ":"), allow_nan=True)


def _cache_key(fingerprint, point, seed, index):
    text = _canonical_json({"fn": fingerprint, "point": point, "seed": seed, "index": index,
                            "format": _CACHE_FORMAT})
    return hashlib.sha256(text.encode()).hexdigest()


def _cache_path(cache_dir, fn_name, key):
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", fn_name.rsplit(".", 1)[-1])[:40]
    return Path(cache_dir) / f"{stem}-{key[:24]}.json"


# ---------------------------------------------------------------------------------------------
# results to and from JSON, exactly


def _encode(value, where="result"):
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            raise SweepError(f"cannot cache {where}: arrays must be bool, int or float; got "
                             f"dtype {value.dtype}")
        return {"__ndarray__": value.tolist(), "dtype": value.dtype.str, "shape": value.shape}
    if isinstance(value, np.generic):
        if value.dtype.kind not in "biuf":
            raise SweepError(f"cannot cache {where}: unsupported numpy scalar {value!r}")
        return {"__npscalar__": value.item(), "dtype": value.dtype.str}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, tuple):
        return {"__tuple__": [_encode(v, where) for v in value]}
    if isinstance(value, list):
        return [_encode(v, where) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise SweepError(f"cannot cache {where}: dict keys must be strings; got "
                             f"{list(value)[:5]}")
        if any(k.startswith("__") and k.endswith("__") for k in value):
            raise SweepError(f"cannot cache {where}: dict keys like '__name__' are reserved")
        return {k: _encode(v, where) for k, v in value.items()}
    raise SweepError(f"cannot cache {where} of type {type(value).__name__}: with cache_dir, fn "
                     "must return numbers, strings, None, numpy arrays of numbers, or lists, "
                     "tuples and str-keyed dicts of them")


def _decode(value):
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        if "__ndarray__" in value:
            dtype = np.dtype(value["dtype"])
            if dtype.kind not in "biuf":
                raise ValueError(f"array dtype {dtype} is not bool, int or float")
            array = np.array(value["__ndarray__"], dtype=dtype)
            shape = tuple(value["shape"])
            if math.prod(shape) != array.size or any(int(n) != n or n < 0 for n in shape):
                raise ValueError(f"shape {list(shape)} does not fit {array.size} values")
            return array.reshape(shape)
        if "__npscalar__" in value:
            dtype = np.dtype(value["dtype"])
            if dtype.kind not in "biuf":
                raise ValueError(f"scalar dtype {dtype} is not bool, int or float")
            return dtype.type(value["__npscalar__"])
        if "__tuple__" in value:
            return tuple(_decode(v) for v in value["__tuple__"])
        return {k: _decode(v) for k, v in value.items()}
    return value


def _checksum(encoded_result):
    """SHA-256 of a result's canonical JSON: what a cache file's ``sha256`` field must match."""
    text = json.dumps(encoded_result, sort_keys=True, separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _discard(path, why):
    """Report a bad cache file by its path, remove it, and treat it as absent."""
    warnings.warn(f"discarding sweep cache file {path}: {why}; the point is recomputed",
                  stacklevel=4)
    Path(path).unlink(missing_ok=True)
    raise KeyError(path)


def _read_cache(path, expected):
    """The cached result at ``path``; KeyError if absent, foreign or malformed.

    A malformed file (not JSON, not a JSON object, a result whose checksum does not match,
    an array with a bad dtype or shape) is reported with its path, deleted and recomputed.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            stored = json.load(handle)
    except FileNotFoundError:
        raise KeyError(path) from None
    except (OSError, ValueError) as exc:
        _discard(path, f"unreadable ({exc})")
    if not isinstance(stored, dict) or "result" not in stored:
        _discard(path, f"not a sweep cache entry (a {type(stored).__name__})")
    if any(stored.get(k) != v for k, v in expected.items()):
        raise KeyError(path)  # a hash collision or a foreign file: recompute, leave it alone
    if stored.get("sha256") != _checksum(stored["result"]):
        _discard(path, "its checksum does not match its result (edited or damaged)")
    try:
        return _decode(stored["result"])
    except (TypeError, ValueError, KeyError) as exc:
        _discard(path, f"malformed result ({exc})")


def _write_cache(path, metadata, result):
    """Write atomically: a temporary file in the same folder, renamed into place when complete."""
    encoded = _encode(result)
    document = dict(metadata, result=encoded, sha256=_checksum(encoded))
    text = json.dumps(document, allow_nan=True, indent=1)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.stem, suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# ---------------------------------------------------------------------------------------------
# running


def _call(fn, point, seed_sequence):
    """Run one point (module level, so that process and dask executors can pickle it)."""
    return fn(**point, rng=np.random.default_rng(seed_sequence))


def _progress_bar(total, enabled, description):
    """A tqdm bar, shown only where output is interactive (``disable=None``), or None."""
    if not enabled or total == 0:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tqdm.auto warns when ipywidgets is missing
        from tqdm.auto import tqdm
    return tqdm(total=total, desc=description, unit="point", disable=None)


def _check_cache_dir(cache_dir):
    """Create ``cache_dir`` if needed and prove it writable, before any point is computed."""
    if isinstance(cache_dir, (bool, int, float)) or not isinstance(cache_dir, (str, os.PathLike)):
        raise SweepError(f"cache_dir must be None or a path; got cache_dir={cache_dir!r}")
    folder = Path(cache_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, probe = tempfile.mkstemp(dir=folder, prefix=".write-probe-")
        os.close(handle)
        os.unlink(probe)
    except OSError as exc:
        raise SweepError(f"cache_dir must be a writable folder; got cache_dir={str(cache_dir)!r} "
                         f"({exc.strerror or exc})") from None


def sweep(fn, grid, executor=None, *, seed=0, cache_dir=None, progress=True):
    """Run ``fn(**point, rng=generator)`` over a grid, seeded per point, cached on disk.

    Parameters
    ----------
    fn : callable
        Called as ``fn(**point, rng=rng)`` with ``rng`` a ``numpy.random.Generator``. With a
        process or dask executor it must be picklable: a function defined at module level
        in an importable module (e.g. in :mod:`attnspec`), not a lambda or a function typed
        into a notebook.
    grid : dict of list or list of dict
        A dict of lists (Cartesian product, last name varying fastest) or an explicit list of
        points (dicts); see :func:`grid_points`. ``rng`` is reserved.
    executor : None, str, concurrent.futures.Executor or dask.distributed.Client
        Where the points run. ``None`` (default) means ``"processes"``: a
        ``ProcessPoolExecutor`` with ``os.cpu_count()`` workers (at most one per point still
        to compute), created and shut down by ``sweep``. ``"threads"`` is the same with
        threads, ``"serial"`` runs in this process, one point after the other. Any
        ``concurrent.futures.Executor`` is used as given (not shut down); a dask
        ``Client`` is used through ``client.get_executor()``.
    seed : int
        Non-negative root seed. Point ``i`` gets ``default_rng(SeedSequence(seed).spawn(n)[i])``,
        so each point has an independent stream that depends only on ``seed`` and ``i``.
    cache_dir : None or path-like
        If given, each result is stored there as one JSON file, with the point, the seed,
        the index, the function's name and a SHA-256 checksum of the result, and read back
        instead of calling ``fn`` again. The folder is created and checked for writability
        before any point is computed.
    progress : bool
        Show a tqdm progress bar (``tqdm(disable=None)``: in a terminal or a Jupyter kernel,
        never when output goes to a log or CI). Pass ``False`` in book chapters.

    Returns
    -------
    list of SweepRecord
        One record per point, in grid order: ``record.point``, ``record.result``,
        ``record.index``, ``record.cached``.

    Raises
    ------
    SweepError
        (a ``ValueError``) if ``fn`` is not callable, the grid is empty or malformed, the
        seed is not a non-negative integer, the executor is of an unknown kind, ``cache_dir``
        is not a writable folder (checked first), or a result cannot be cached; also if
        ``fn`` cannot be pickled for a process executor. An
        exception raised by ``fn`` propagates unchanged (with a note naming the point); the
        points finished before it stay cached.

    Notes
    -----
    *Reproducibility.* ``SeedSequence(seed).spawn(n)[i]`` has spawn key ``(i,)``: it does not
    depend on ``n`` or on the executor, so serial, thread, process and dask runs return the
    same results, and appending points to a grid leaves the earlier ones (and their cache)
    unchanged. The same seed repeats only on the same numpy build, machine and number of BLAS
    threads.

    *Cache.* A point's file is named by a SHA-256 hash of ``fn``'s qualified name and source
    text, the point, the seed and the spawn index, and written atomically as the point
    finishes; an invalid file (damaged, or hand-edited so that its checksum no longer
    matches) is reported, deleted and recomputed. The checksum is stored in the same file,
    so it catches damage and careless edits, not an edit that rewrites it too. ``fn``
    returns numbers, strings, ``None``, numpy arrays of numbers, or lists, tuples and
    str-keyed dicts of them (stored exactly). What starts a new cache: appendix A3, "Parameter
    sweeps"; why not ``joblib.Memory``: appendix A2, "Sweeps and runtime".

    Examples
    --------
    >>> def noisy_square(x, rng):
    ...     return x * x + rng.standard_normal()
    >>> records = sweep(noisy_square, {"x": [1, 2, 3]}, executor="serial", seed=0,
    ...                 progress=False)
    >>> [r.point for r in records]
    [{'x': 1}, {'x': 2}, {'x': 3}]
    >>> again = sweep(noisy_square, {"x": [1, 2, 3]}, executor="threads", seed=0,
    ...               progress=False)
    >>> [r.result for r in records] == [r.result for r in again]
    True
    """
    if not callable(fn):
        raise SweepError(f"fn must be callable; got fn={fn!r} ({type(fn).__name__})")
    points = grid_points(grid)
    seed = _check_seed(seed)
    executor = _check_executor(executor)
    n = len(points)
    streams = np.random.SeedSequence(seed).spawn(n)
    results, cached, paths, metadata = _read_cached(fn, points, seed, cache_dir)
    pending = [i for i in range(n) if not cached[i]]

    def finish(i, value):
        results[i] = value
        if paths[i] is not None:
            _write_cache(paths[i], metadata[i], value)

    if pending:
        _run_missing(fn, points, streams, pending, executor, progress, finish)

    return [SweepRecord(point=points[i], result=results[i], index=i, cached=cached[i])
            for i in range(n)]


def _read_cached(fn, points, seed, cache_dir):
    """The cached results of ``points``: ``(results, cached, paths, metadata)``, one entry per
    point (``None``, False, and no path without ``cache_dir``). The folder is checked first."""
    n = len(points)
    results, cached, paths, metadata = [None] * n, [False] * n, [None] * n, [None] * n
    if cache_dir is None:
        return results, cached, paths, metadata
    _check_cache_dir(cache_dir)
    fingerprint = _fn_fingerprint(fn)
    name = fingerprint["name"]
    for i, point in enumerate(points):
        key = _cache_key(fingerprint, point, seed, i)
        paths[i] = _cache_path(cache_dir, name, key)
        metadata[i] = {"key": key, "fn": name, "point": _plain(point), "seed": seed,
                       "index": i, "format": _CACHE_FORMAT}
        try:
            results[i] = _read_cache(paths[i], {"key": key, "format": _CACHE_FORMAT})
            cached[i] = True
        except KeyError:
            pass
    return results, cached, paths, metadata


def _run_missing(fn, points, streams, pending, executor, progress, finish):
    """Run ``fn`` on the points ``pending`` (serially, or on the executor), calling
    ``finish(i, result)`` as each ends; an exception of ``fn`` propagates with a note naming
    its point, after the points finished before it."""
    pool, owned = _resolve_executor(executor, len(pending))
    try:
        _check_picklable(fn, pool)
    except SweepError:
        if owned:
            pool.shutdown()
        raise
    bar = _progress_bar(len(pending), progress, getattr(fn, "__name__", "sweep"))

    def outcome(i, get):
        try:
            value = get()
        except Exception as exc:
            exc.add_note(f"raised by sweep point {i}: {points[i]!r}")
            raise
        finish(i, value)
        if bar is not None:
            bar.update(1)

    try:
        if pool is None:
            for i in pending:
                outcome(i, lambda i=i: _call(fn, points[i], streams[i]))
        else:
            futures = {pool.submit(_call, fn, points[i], streams[i]): i for i in pending}
            try:
                for future in cf.as_completed(futures):
                    outcome(futures[future], future.result)
            finally:
                for future in futures:
                    future.cancel()
    finally:
        if bar is not None:
            bar.close()
        if owned:
            pool.shutdown(wait=True, cancel_futures=True)
