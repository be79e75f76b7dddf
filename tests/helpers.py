"""Shared by the test files: the repository root and loading the scripts in tools/."""

import importlib.util
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI", "").lower() == "true"


def unavailable(reason):
    """Skip a test whose tool (a built book, Chromium, poppler) is missing; in CI, fail."""
    import pytest

    if IN_CI:
        pytest.fail(f"{reason} (required in CI)")
    pytest.skip(reason)


def _book_macros():
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    return config["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"]


#: what a viewer without MyST (JupyterLab, Colab, VS Code, nbconvert) would show raw in a
#: handout notebook or a problem sheet: a role, a directive, a target ``(label)=``, a label of
#: the book (``fig-03-grid``, ``sec-08-tokens``, an equation's ``ch06-moments``) or a glue key
#: (``ch06-ex-s``), and the book's own TeX macros (``\E``…), which only the book's MathJax knows
RAW_MYST = re.compile(
    r"\{[a-z][\w:-]*\}`"                                             # {role}`...`
    r"|^\s*(`{3,}|:{3,}|~{3,})\s*\{"                                  # ```{directive}
    r"|^\s*\([\w:.-]+\)=\s*$"                                        # (target)=
    r"|\b(?:fig|sec|ex|thm|prop|def|rem|lem|tbl|eq)-\d{2}-[\w-]+"      # fig-03-grid
    r"|\bch\d{2}-[a-z][\w-]*"                                          # ch06-moments
    r"|\\(?:" + "|".join(map(re.escape, _book_macros())) + r")(?![A-Za-z])", re.M)


def raw_myst(text):
    """The raw MyST tokens (``RAW_MYST``) found in ``text``, in order."""
    return [match[0] for match in RAW_MYST.finditer(text)]


def load_tool(name):
    """Import ``tools/<name>.py`` (scripts, not a package) as module ``_tools_<name>``."""
    key = f"_tools_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, ROOT / "tools" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


def read_nb(path):
    """A notebook, as nbformat version 4."""
    import nbformat

    return nbformat.read(path, as_version=4)


def tagged(nb, tag):
    """The cells of ``nb`` that carry ``tag``."""
    return [c for c in nb.cells if tag in c.metadata.get("tags", [])]


def parameter_defaults(nb):
    """``{name: value}`` of the notebook's one ``parameters`` cell (plain assignments only)."""
    import ast

    (cell,) = tagged(nb, "parameters")
    values = {}
    for node in ast.parse(cell.source).body:
        assert isinstance(node, ast.Assign), "parameters cell holds plain assignments only"
        (target,) = node.targets
        values[target.id] = ast.literal_eval(node.value)
    return values


#: JavaScript for ``execute_async_script``: wait for the page to load and MathJax to finish;
#: returns true (typeset), false (MathJax failed) or null (no MathJax on the page).
WAIT_FOR_MATHJAX = """
const done = arguments[arguments.length - 1];
const ready = () => (window.MathJax && MathJax.startup && MathJax.startup.promise)
    ? MathJax.startup.promise.then(() => done(true), () => done(false)) : done(null);
if (document.readyState === 'complete') { ready(); } else { window.addEventListener('load', ready); }
"""


def chromium():
    """A headless Chromium (Selenium) that keeps the console log; the caller quits it.

    Skips (fails in CI) when Chromium or its driver is missing."""
    import shutil

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not (browser and driver_path):
        unavailable("headless Chromium is not installed (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--no-first-run", "--disable-background-networking", "--disable-sync",
                 "--disable-component-update", "--window-size=1280,1000"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(60)
    return driver


def console_errors(browser):
    """The SEVERE messages the browser's console logged since the last call."""
    return [entry["message"] for entry in browser.get_log("browser")
            if entry["level"] == "SEVERE"]
