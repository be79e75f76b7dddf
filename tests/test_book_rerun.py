"""Tests of attnspec.book.rerun and `attnspec rerun`: checked before a kernel starts, nothing
half-written."""

import pytest

from attnspec.book import cli


def test_cli_rerun_refuses_before_starting_a_kernel(monkeypatch, capsys):
    """attnspec rerun with a bad value exits 2 with the message, and papermill is never called."""
    import papermill

    def fail(*args, **kwargs):
        raise AssertionError("papermill must not run")

    monkeypatch.setattr(papermill, "execute_notebook", fail)
    status = cli.main(["rerun", "01", "beta=-1"])
    err = capsys.readouterr().err
    assert status == 2
    assert "beta must be a finite number >= 0.01 and <= 5; got beta=-1.0" in err
    assert "Its parameters are:" in err


def test_cli_rerun_refuses_an_unknown_chapter(capsys):
    """An unknown chapter lists the chapters that exist."""
    assert cli.main(["rerun", "99_nope"]) == 2
    assert "01_attention_as_a_random_matrix" in capsys.readouterr().err


def test_output_name_is_safe_and_sorted():
    """Rerun outputs are named by chapter and sorted parameters, with safe characters only."""
    from attnspec.book.rerun import output_name

    assert output_name("03_x", {"ell": 500, "beta": 1.5}) == "03_x__beta=1.5__ell=500.ipynb"
    assert output_name("03_x", {"betas": [0.5, 1.0]}) == "03_x__betas=0.5,1.0.ipynb"


def test_cli_accepts_parameters_after_options(monkeypatch, capsys):
    """`attnspec rerun 01 --quick beta=-2` reads beta (and refuses it) like `01 beta=-2 --quick`."""
    assert cli.main(["rerun", "01", "--quick", "beta=-2"]) == 2
    assert "got beta=-2.0" in capsys.readouterr().err


def test_cli_reports_a_failing_chapter_without_a_traceback(monkeypatch, capsys):
    """A chapter that raises gives exit status 1 and papermill's message, nothing written."""
    import papermill
    from papermill.exceptions import PapermillExecutionError

    def fail(*args, **kwargs):
        raise PapermillExecutionError(3, 1, "boom", "RuntimeError", "boom", [])

    monkeypatch.setattr(papermill, "execute_notebook", fail)
    assert cli.main(["rerun", "01", "--quick"]) == 1
    assert "the chapter failed; nothing was written" in capsys.readouterr().err


def test_a_stop_signal_leaves_asyncio_callbacks(monkeypatch):
    """The stop-signal handler's exception gets out of papermill's event loop also when the
    signal lands in a callback, where asyncio logs and drops every exception but
    KeyboardInterrupt and SystemExit (as it drops a plain exception, below)."""
    import asyncio
    import signal as signals

    from attnspec.book import rerun

    monkeypatch.setattr(rerun, "_stop_child_processes", lambda: None)
    previous = signals.getsignal(signals.SIGTERM)
    try:
        def plain_failure():
            raise RuntimeError("dropped by asyncio")

        async def background(handler):
            asyncio.get_running_loop().call_soon(handler)
            await asyncio.sleep(0.05)

        loop = asyncio.new_event_loop()
        loop.set_exception_handler(lambda loop, context: None)
        try:
            loop.run_until_complete(background(plain_failure))       # dropped: no error
            with pytest.raises(KeyboardInterrupt) as caught:
                loop.run_until_complete(
                    background(lambda: rerun._raise_interrupted(signals.SIGTERM, None)))
        finally:
            loop.close()
        assert caught.value.signum == signals.SIGTERM
    finally:
        signals.signal(signals.SIGTERM, previous)


def _make(*args):
    import subprocess

    from helpers import ROOT

    # -o setup: the environment is the test's own; never reinstall it from a test
    return subprocess.run(["make", "--no-print-directory", "-o", "setup", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_make_rerun_shows_no_shell_evaluation_of_params():
    """`make -n rerun` prints a command in which PARAMS is not pasted: the value goes through
    the environment, so no `;`, `$(...)` or backquote in it reaches the shell."""
    shown = _make("-n", "rerun", "CHAPTER=03", "PARAMS=ell=1;touch X $(touch Y) `touch Z`")
    assert shown.returncode == 0, shown.stderr
    command = [line for line in shown.stdout.splitlines() if "attnspec rerun" in line]
    assert command == ['.venv/bin/attnspec rerun "$ATTNSPEC_CHAPTER" --params '
                       '"$ATTNSPEC_PARAMS"'], shown.stdout
    assert "touch" not in shown.stdout


def test_make_rerun_passes_params_as_data(tmp_path):
    """A real `make rerun` with a shell command in PARAMS refuses the value (exit 2, before
    any kernel) and runs nothing; a list with a space after its comma stays one value."""
    from helpers import ROOT

    marker = f"h25-marker-{tmp_path.name}"
    done = _make("rerun", "CHAPTER=3", f"PARAMS=ell=1;touch {marker} betas=[0.5, 1]")
    assert done.returncode == 2
    assert not (ROOT / marker).exists()
    assert f"parameters must look like name=value; got '{marker}'" in done.stderr
    refused = _make("rerun", "CHAPTER=3", "PARAMS=betas=[0.5, 9] ell=20")
    assert refused.returncode == 2 and "betas[1] must be" in refused.stderr, refused.stderr


def test_cli_params_text_is_split_and_checked(capsys):
    """`--params` (what make rerun passes) keeps a list with spaces whole, honours --quick,
    and a misspelt name gets a did-you-mean, before a kernel starts."""
    assert cli.main(["rerun", "3", "--params", "betaz=[0.5, 1] --quick"]) == 2
    err = capsys.readouterr().err
    assert "betaz (did you mean betas?)" in err
    with pytest.raises(SystemExit):
        cli.main(["rerun", "3", "--params", "ell=200 --output-dir /tmp"])
    assert "--params may hold name=value pairs and --quick; got '--output-dir'" in \
        capsys.readouterr().err
