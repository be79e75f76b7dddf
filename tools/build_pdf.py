"""The whole book as one PDF (``make pdf``): the built HTML pages printed by headless Chromium.

Why this route: the book's maths is typeset by MathJax and its directives (proofs, exercises,
glued figures and tables) are rendered by the HTML theme; printing the same HTML keeps them as
the reader sees them online, with no TeX installation. Jupyter Book's LaTeX route would need a
full TeX Live and re-implements every directive; its single-page HTML builder cannot render
sphinx-proof's nodes.

Steps:

1. the pages of ``_build/html`` (built by ``make book``), in the order of ``_toc.yml``, are
   served on a loopback port (MathJax's fonts do not load from ``file://``) and opened one by
   one in headless Chromium; MathJax is awaited and solution dropdowns are opened;
2. Chrome's ``Page.printToPDF`` prints each page with the book's print stylesheet
   (``_assets/attnspec.css``: no sidebars, buttons or scrollbars; long code lines wrap instead
   of being cut; figures and code blocks are not split across pages);
3. poppler's ``pdfunite`` joins the pages into ``_build/pdf/attnspec.pdf``, also copied to
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_book import exit_status  # noqa: E402  (the one way of reporting a refusal)

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


def toc_pages(root=ROOT):
    """The book's pages in reading order (``_toc.yml``), as paths relative to the site."""
    import yaml

    toc = yaml.safe_load((Path(root) / "_toc.yml").read_text())
    pages = [toc["root"]]

    def walk(entries):
        for entry in entries:
            if "file" in entry:
                pages.append(entry["file"])
            for key in ("parts", "chapters", "sections"):
                walk(entry.get(key) or [])

    walk(toc.get("parts") or toc.get("chapters") or [])
    return [f"{Path(page).with_suffix('')}.html" for page in pages]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _serve(folder):
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


PRINT = {
    "printBackground": True, "paperWidth": 8.27, "paperHeight": 11.69,   # A4, inches
    "marginTop": 0.6, "marginBottom": 0.6, "marginLeft": 0.6, "marginRight": 0.6,
}


def _is_empty(pdf, page):
    """True if ``page`` of ``pdf`` has no ink at all (rendered at 10 dpi, greyscale)."""
    png = subprocess.run(["pdftoppm", "-r", "10", "-gray", "-f", str(page), "-l", str(page),
                          str(pdf)], check=True, capture_output=True).stdout
    header_end = png.index(b"255\n") + 4            # PGM: P5 width height 255, then pixels
    return min(png[header_end:]) > 245


def drop_empty_last_pages(part):
    """The single pages of ``part`` to keep: a trailing page without ink (the browser's print
    can spill an empty page after a page's end) is dropped."""
    pattern = str(part.with_suffix("")) + "-%04d.pdf"
    subprocess.run(["pdfseparate", str(part), pattern], check=True)
    pages = sorted(part.parent.glob(part.stem + "-*.pdf"))
    while len(pages) > 1 and _is_empty(pages[-1], 1):
        pages.pop()
    return [str(p) for p in pages]


def print_pages(html, pages, target, chrome):
    """Print each page of the site at ``html`` and join them into ``target``."""
    import tempfile

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    if not shutil.which("pdfunite"):
        raise RuntimeError("poppler's pdfunite is needed (apt-get install poppler-utils)")
    server = _serve(html)
    options = webdriver.ChromeOptions()
    options.binary_location = chrome
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--no-first-run", "--window-size=1100,1400"]:
        options.add_argument(flag)
    driver_path = shutil.which("chromedriver")
    driver = webdriver.Chrome(service=Service(driver_path) if driver_path else Service(),
                              options=options)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    with tempfile.TemporaryDirectory() as scratch:
        parts = []
        try:
            driver.set_page_load_timeout(120)
            driver.set_script_timeout(120)
            for number, page in enumerate(pages):
                driver.get(f"{base}/{page}")
                if driver.execute_async_script(WAIT_FOR_MATHJAX) is False:
                    raise RuntimeError(f"MathJax failed to typeset {page}")
                driver.execute_script(PREPARE_FOR_PRINT)
                pdf = driver.execute_cdp_cmd("Page.printToPDF", PRINT)
                part = Path(scratch) / f"{number:03d}.pdf"
                part.write_bytes(base64.b64decode(pdf["data"]))
                parts += drop_empty_last_pages(part)
        finally:
            driver.quit()
            server.shutdown()
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".partial.pdf")
        subprocess.run(["pdfunite", *parts, str(partial)], check=True)
        partial.replace(target)
    return target


def build(root=ROOT, chrome=None):
    chrome = find_chrome(chrome)
    if not chrome:
        raise RuntimeError("headless Chromium is needed (apt-get install chromium "
                           "chromium-driver), or pass --chrome PATH")
    site = Path(root) / "_build" / "html"
    pages = toc_pages(root)
    missing = [page for page in pages if not (site / page).is_file()]
    if missing:
        raise RuntimeError(f"the HTML book is missing {missing[:3]}: run `make book` first")
    target = print_pages(site, pages, Path(root) / "_build" / "pdf" / "attnspec.pdf", chrome)
    shutil.copy2(target, site / target.name)
    return target


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chrome", default=None, help="Chromium or Chrome executable")
    args = parser.parse_args(argv)
    return exit_status("build_pdf", RuntimeError, lambda: print(build(ROOT, args.chrome)))


if __name__ == "__main__":
    sys.exit(main())
