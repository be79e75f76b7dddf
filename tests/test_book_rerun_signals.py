"""Interrupting ``attnspec rerun``: nothing half-written, no child process left, one-line exit."""

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.book   # starts real kernels


def _tagged_processes(tag):
    """Every live process whose environment carries ``tag`` (the rerun and all it started)."""
    found = []
    for process in psutil.process_iter():
        try:
            if process.environ().get("ATTNSPEC_TEST_TAG") == tag and process.status() != "zombie":
                found.append(process)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return found


def _start_rerun(tmp_path, chapter, tag, *params):
    env = dict(os.environ, ATTNSPEC_TEST_TAG=tag, PYTHONUNBUFFERED="1")
    return subprocess.Popen(
        [sys.executable, "-m", "attnspec", "rerun", chapter, "--quick",
         "--output-dir", str(tmp_path), *params],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_children(tag, process, count, timeout=120):
    """Wait until the rerun has at least ``count`` descendants (kernel, sweep workers);
    False once it has exited or after ``timeout`` seconds (a loaded CI machine)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if len([p for p in _tagged_processes(tag) if p.pid != process.pid]) >= count:
            return True
        time.sleep(0.05)
    return False


#: Sweep sizes under which chapter 5's workers live for seconds, not ~0.1 s as with the
#: quick sizes (which a poll on a loaded machine can miss: "no sweep worker started")
LONG_SWEEP = ("ells=[1000,1500]", "draws=2")


CASES = [(signal.SIGTERM, "starting"), (signal.SIGTERM, "kernel"),
         (signal.SIGTERM, "sweep-workers"), (signal.SIGINT, "kernel"),
         (signal.SIGINT, "sweep-workers"), (signal.SIGHUP, "kernel")]


@pytest.mark.parametrize("signum, moment", CASES,
                         ids=[f"{signal.Signals(s).name}-{m}" for s, m in CASES])
def test_interrupted_rerun_leaves_nothing_behind(tmp_path, signum, moment):
    """Killed at any moment, the rerun exits 128+signal with one line: no partial notebook,
    no kernel or sweep worker left running, nothing holding its output open."""
    tag = uuid.uuid4().hex
    # a seed never used before: chapter 5's sweep cache cannot answer, so workers start
    seed = f"seed={uuid.uuid4().int % 2**31}"
    sizes = LONG_SWEEP if moment == "sweep-workers" else ()
    process = _start_rerun(tmp_path, "05", tag, seed, *sizes)
    if moment == "starting":
        time.sleep(1.0)
    elif moment == "kernel":
        assert _wait_for_children(tag, process, 1), "no kernel started"
        time.sleep(1.0)
    else:   # chapter 5 runs its sweep in processes: kernel + at least one worker
        assert _wait_for_children(tag, process, 2), (
            f"no sweep worker seen (exit status {process.poll()})")
    process.send_signal(signum)
    out, err = process.communicate(timeout=60)   # returns only once the pipes are closed
    if process.returncode == 0:
        pytest.fail(f"the rerun finished before the signal at moment {moment!r}")
    assert process.returncode in (128 + signum, -signum), err
    if process.returncode == 128 + signum:
        assert "Traceback" not in err, err
        last = err.strip().splitlines()[-1]
        assert last.startswith("attnspec rerun: interrupted by " + signal.Signals(signum).name)
    assert not list(tmp_path.glob("*.ipynb")), list(tmp_path.iterdir())
    time.sleep(0.5)
    assert _tagged_processes(tag) == []
