"""The layer contract of docs/ARCHITECTURE.md (import-linter) and the no-private-import rule."""

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "lib"
LINT = Path(sys.executable).with_name("lint-imports")


def run_lint(lib):
    """`lint-imports` with the repository's configuration, on the package found in ``lib``."""
    env = dict(os.environ, PYTHONPATH=str(lib))
    return subprocess.run([str(LINT), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_layer_contract_and_acyclicity_are_kept():
    """book > plotting, sweeps > experiments > laws > freeprob, sampling > spectra, hermite >
    _validation, and no import cycle inside any package."""
    done = run_lint(LIB)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 kept, 0 broken" in done.stdout


VIOLATIONS = {  # module -> offending line; each breaks the contract in its own way
    "spectra.py": "from attnspec.sampling.softmax import centered  # upward import\n",
    "sampling/ensembles.py": "from attnspec.freeprob import roots  # independent siblings\n",
    "newmodule.py": "import numpy  # a module no layer declares\n",
}


def test_the_contract_catches_violations(tmp_path):
    """The same check fails on a copy of the library with an upward import, an import between
    independent siblings and an undeclared module, and names each of them."""
    shutil.copytree(LIB / "attnspec", tmp_path / "attnspec",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for module, line in VIOLATIONS.items():
        target = tmp_path / "attnspec" / module
        target.write_text((target.read_text() if target.exists() else "") + line)
    done = run_lint(tmp_path)
    report = " ".join((done.stdout + done.stderr).split())
    assert done.returncode != 0 and "BROKEN" in report, report
    assert "attnspec.spectra -> attnspec.sampling.softmax" in report, report
    assert "attnspec.sampling.ensembles -> attnspec.freeprob.roots" in report, report
    assert "newmodule" in report, report


def test_no_private_name_is_imported_across_modules():
    """`from attnspec.x import _y` never happens inside the library (private means private)."""
    offenders = []
    for path in sorted((LIB / "attnspec").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and (node.level or "attnspec" in (node.module or "")):
                offenders += [f"{path.relative_to(LIB)}:{node.lineno} imports {alias.name}"
                              for alias in node.names
                              if alias.name.startswith("_") and alias.name != "__future__"
                              and node.module != "__future__"]
    assert not offenders, offenders
