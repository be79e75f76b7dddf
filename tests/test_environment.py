"""The toolchain is pinned exactly, once: requirements.txt and environment.yml agree."""

import re
import yaml
from helpers import ROOT


def _requirement_pins():
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _environment_pins():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_block = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    return [p for p in pip_block if not p.startswith("-e")]


def test_every_requirement_is_an_exact_pin():
    """Each line of requirements.txt is name==version (no ranges, no loose names)."""
    loose = [p for p in _requirement_pins() if not re.fullmatch(r"[A-Za-z0-9_.\-\[\]]+==[^=<>~!]+", p)]
    assert loose == []


def test_environment_yml_lists_the_same_pins():
    """environment.yml (conda, Binder) pins exactly what requirements.txt pins."""
    assert sorted(_environment_pins(), key=str.lower) == sorted(_requirement_pins(), key=str.lower)


def test_environment_yml_installs_the_library():
    """Binder users get the library too (an editable install of the checkout)."""
    text = (ROOT / "environment.yml").read_text()
    assert "- -e ." in text


def test_the_book_toolchain_is_jupyter_book_1():
    """Jupyter Book is pinned to the 1.x release that reads _config.yml/_toc.yml, with Sphinx 7.4."""
    pins = dict(p.split("==") for p in _requirement_pins())
    lower = {k.lower(): v for k, v in pins.items()}
    assert lower["jupyter-book"] == "1.0.4.post1"
    assert lower["sphinx"].startswith("7.4.")
    for name in ["sphinx-proof", "sphinx-exercise", "sphinxcontrib-bibtex", "myst-nb",
                 "papermill", "nbval", "numpy", "scipy", "matplotlib", "selenium"]:
        assert name in lower, name


def test_installed_versions_match_the_pins():
    """The environment running the tests is the pinned one (catches a stale .venv)."""
    from importlib.metadata import PackageNotFoundError, version

    wrong = []
    for pin in _requirement_pins():
        name, wanted = pin.split("==")
        try:
            got = version(name)
        except PackageNotFoundError:
            got = None
        if got != wanted:
            wrong.append(f"{name}: pinned {wanted}, installed {got}")
    assert wrong == []


def test_every_dependency_of_the_library_is_pinned():
    """Each requirement of pyproject.toml (core and every extra) has its exact pin in
    requirements.txt, so the checkout runs what a `pip install attnspec[...]` brings."""
    import tomllib

    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        wanted += extra
    pinned = {p.split("==")[0].lower().replace("_", "-") for p in _requirement_pins()}
    names = {Requirement(r).name.lower().replace("_", "-") for r in wanted}
    assert names - {project["name"]} <= pinned, sorted(names - pinned)


def test_the_core_brings_tqdm_and_the_pretrained_extra_its_readers():
    """`sweep(progress=True)` works in a plain install; `[pretrained]` reads MiniLM."""
    import tomllib

    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = {Requirement(r).name for r in project["dependencies"]}
    pretrained = {Requirement(r).name for r in project["optional-dependencies"]["pretrained"]}
    assert {"numpy", "scipy", "matplotlib", "tqdm", "platformdirs"} <= core
    assert pretrained == {"safetensors", "tokenizers"}
