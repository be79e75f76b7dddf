"""The whole book as one PDF (``make pdf``): single-page HTML printed by headless Chromium.

Why this route: the book's maths is typeset by MathJax and its directives (proofs, exercises,
glued figures and tables) are rendered by the HTML theme; printing the same HTML keeps them as
the reader sees them online, with no TeX installation. Jupyter Book's LaTeX route would need a
full TeX Live and re-implements every directive.

Steps:

1. ``jupyter-book build --builder singlehtml`` reuses the execution cache of ``make book``
   (run it first; a chapter without a current cached run is executed here);
2. the page is served on a loopback port (MathJax's fonts do not load from ``file://``),
   opened in headless Chromium, MathJax is awaited, solution dropdowns are opened;
3. Chrome's ``Page.printToPDF`` prints it with the book's print stylesheet
   (``_assets/attnspec.css``: no sidebars, buttons or scrollbars; long code lines wrap instead
   of being cut; figures and code blocks are not split across pages).

The PDF goes to ``_build/pdf/attnspec.pdf`` and, when the HTML book exists, also to
``_build/html/attnspec.pdf`` (published with the site).
"""

from __future__ import annotations

import argparse
import base64
import functools
import http.server
import shutil
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "_build"

WAIT_FOR_MATHJAX = """
const done = arguments[arguments.length - 1];
const ready = () => (window.MathJax && MathJax.startup && MathJax.startup.promise)
    ? MathJax.startup.promise.then(() => done(true), () => done(false)) : done(null);
if (document.readyState === 'complete') { ready(); } else { window.addEventListener('load', ready); }
"""

PREPARE_FOR_PRINT = """
document.querySelectorAll('details.dropdown, details.admonition').forEach(d => d.open = true);
document.querySelectorAll('img').forEach(img => img.loading = 'eager');
return document.images.length;
"""


def find_chrome(explicit=None):
    """The Chromium/Chrome executable (``--chrome`` wins), or None."""
    if explicit:
        return explicit if Path(explicit).is_file() else shutil.which(explicit)
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def build_singlehtml(root=ROOT):
    """Build the one-page HTML edition; return its index.html."""
    jb = Path(sys.executable).with_name("jupyter-book")
    run = subprocess.run([str(jb), "build", str(root), "--builder", "singlehtml"], cwd=root)
    index = Path(root) / "_build" / "singlehtml" / "index.html"
    if run.returncode != 0 or not index.is_file():
        raise RuntimeError("the single-page HTML build failed (see the messages above)")
    return index


def _serve(folder):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def print_to_pdf(index, target, chrome):
    """Print ``index`` (served over HTTP) to ``target`` with headless Chrome."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    server = _serve(index.parent)
    options = webdriver.ChromeOptions()
    options.binary_location = chrome
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--no-first-run", "--window-size=1100,1400"]:
        options.add_argument(flag)
    driver_path = shutil.which("chromedriver")
    service = Service(driver_path) if driver_path else Service()
    driver = webdriver.Chrome(service=service, options=options)
    try:
        driver.set_page_load_timeout(300)
        driver.set_script_timeout(300)
        driver.get(f"http://127.0.0.1:{server.server_address[1]}/{index.name}")
        if driver.execute_async_script(WAIT_FOR_MATHJAX) is False:
            raise RuntimeError("MathJax failed to typeset the book")
        driver.execute_script(PREPARE_FOR_PRINT)
        pdf = driver.execute_cdp_cmd("Page.printToPDF", {
            "printBackground": True, "paperWidth": 8.27, "paperHeight": 11.69,   # A4
            "marginTop": 0.6, "marginBottom": 0.6, "marginLeft": 0.6, "marginRight": 0.6,
            "displayHeaderFooter": True,
            "headerTemplate": "<span></span>",
            "footerTemplate": ('<div style="font-size:8px;width:100%;text-align:center;">'
                               '<span class="pageNumber"></span></div>'),
        })
    finally:
        driver.quit()
        server.shutdown()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    partial.write_bytes(base64.b64decode(pdf["data"]))
    partial.replace(target)
    return target


def build(root=ROOT, chrome=None):
    chrome = find_chrome(chrome)
    if not chrome:
        raise RuntimeError("headless Chromium is needed (apt-get install chromium "
                           "chromium-driver), or pass --chrome PATH")
    index = build_singlehtml(root)
    target = print_to_pdf(index, Path(root) / "_build" / "pdf" / "attnspec.pdf", chrome)
    site = Path(root) / "_build" / "html"
    if site.is_dir():
        shutil.copy2(target, site / target.name)
    return target


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chrome", default=None, help="Chromium or Chrome executable")
    args = parser.parse_args(argv)
    try:
        print(build(ROOT, args.chrome))
    except RuntimeError as exc:
        print(f"build_pdf: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
