"""The built book, as a reader sees it in a browser (headless Chromium).

On every page: the maths is typeset by the book's own MathJax (no TeX errors), every image
loads, no traceback or error output shows, the browser console logs no error, and at a phone's
width (390 px) nothing scrolls the page sideways (wide code, maths and tables scroll inside
their own boxes). Screenshots of each page at 1280 and 390 px are kept in
``_build/screenshots/`` for a human look. Needs ``make book`` first (``make test`` does it).
In CI (``CI=true``) a missing browser or book is a failure; elsewhere the tests are skipped
with the reason.
"""

import functools
import http.server
import re
import threading
import tomllib

import pytest
from helpers import ROOT, WAIT_FOR_MATHJAX, chromium, console_errors, load_tool, unavailable

HTML = ROOT / "_build" / "html"
SHOTS = ROOT / "_build" / "screenshots"
SKIPPED_PAGES = {"genindex.html", "search.html", "index.html", "py-modindex.html"}

pytestmark = pytest.mark.browser


def _pages():
    if not HTML.is_dir():
        return []
    return sorted(p.relative_to(HTML).as_posix() for p in HTML.rglob("*.html")
                  if not p.relative_to(HTML).parts[0].startswith(("_", "."))
                  and p.name not in SKIPPED_PAGES)



@pytest.fixture(scope="module")
def site():
    """Serve _build/html on a loopback port (file:// would block MathJax's fonts)."""
    if not (HTML / "intro.html").is_file():
        unavailable("the book is not built: run `make book` first")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(HTML))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    yield driver
    driver.quit()


PAGE_REPORT = """
const text = document.body.innerText;
return {
  math: document.querySelectorAll('.math').length,
  typeset: document.querySelectorAll('mjx-container').length,
  tex_errors: document.querySelectorAll('mjx-merror').length,
  broken_images: Array.from(document.images)
      .filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src),
  images: document.images.length,
  error_outputs: document.querySelectorAll('.output.error, .output.traceback, .output.stderr').length,
  traceback: text.includes('Traceback (most recent call last)'),
  height: document.documentElement.scrollHeight,
  mathjax_src: Array.from(document.scripts).map(s => s.src).filter(s => s.includes('mathjax')),
  favicon: Array.from(document.querySelectorAll('link[rel~="icon"]')).map(l => l.href),
  launch: document.querySelectorAll('.dropdown-launch-buttons, [aria-label*="Launch"]').length,
  footer: document.body.innerText,
  alts: Array.from(document.querySelectorAll('.bd-article figure img')).map(i => i.alt),
  zoomable: Array.from(document.querySelectorAll('.bd-article figure img'))
      .filter(i => i.closest('a.attnspec-zoom, a.reference')).length,
};
"""

#: elements wider than the viewport that are not inside a box that scrolls (or clips) them
OVERFLOW_REPORT = """
const width = document.documentElement.clientWidth;
const boxed = el => {
  for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
    const o = getComputedStyle(a).overflowX;
    if (o === 'auto' || o === 'scroll' || o === 'hidden') return true;
  }
  return false;
};
const offenders = [];
for (const el of document.querySelectorAll('.bd-main *')) {
  const r = el.getBoundingClientRect();
  if (r.width && r.right > width + 1 && !boxed(el)) {
    offenders.push(el.tagName + '.' + el.className + ': ' + Math.round(r.right));
  }
}
return {scroll: document.documentElement.scrollWidth, width: width,
        offenders: offenders.slice(0, 5)};
"""

CAPTION_CONTRAST = """
const lum = c => { const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map(Number).map(v => {
  v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
let bg = document.body;
const back = getComputedStyle(bg).backgroundColor;
return Array.from(document.querySelectorAll('figcaption, .caption-text')).map(el => {
  const a = lum(getComputedStyle(el).color), b = lum(back);
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
});
"""


def test_the_book_was_built_from_the_current_library():
    """The site under test was built after the last change to lib/ or the pins."""
    if not (HTML / "intro.html").is_file():
        unavailable("the book is not built: run `make book` first")
    assert (HTML / ".inputs-hash").read_text() == load_tool("build_book").inputs_hash()


@pytest.mark.parametrize("page", _pages() or ["intro.html"])
def test_page_renders(page, site, browser):
    """Maths typeset by the local MathJax, images loaded, no error output; screenshot kept."""
    browser.set_window_size(1280, 1000)
    browser.get_log("browser")                      # drop what earlier pages logged
    browser.get(f"{site}/{page}")
    mathjax_ok = browser.execute_async_script(WAIT_FOR_MATHJAX)
    report = browser.execute_script(PAGE_REPORT)
    contrast = browser.execute_script(CAPTION_CONTRAST)
    SHOTS.mkdir(parents=True, exist_ok=True)
    name = page.replace("/", "__").removesuffix(".html")
    browser.set_window_size(1280, min(report["height"] + 100, 12000))
    browser.save_screenshot(str(SHOTS / f"{name}.png"))
    browser.set_window_size(390, 844)               # a phone
    browser.execute_async_script(WAIT_FOR_MATHJAX)
    browser.execute_async_script("setTimeout(arguments[0], 500)")   # attnspec.js on resize
    phone = browser.execute_script(OVERFLOW_REPORT)
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(390, min(height + 100, 16000))
    browser.save_screenshot(str(SHOTS / f"{name}__390.png"))
    errors = console_errors(browser)

    assert all(src.startswith(site) for src in report["mathjax_src"]), \
        "MathJax must be served by the book itself (offline)"
    if report["math"]:
        assert report["mathjax_src"], "a page with maths must load MathJax"
        assert mathjax_ok, "MathJax did not finish typesetting"
        assert report["typeset"] >= report["math"], report
    assert report["tex_errors"] == 0
    assert report["broken_images"] == []
    assert report["error_outputs"] == 0 and not report["traceback"]
    assert phone["scroll"] <= phone["width"], phone      # no sideways scroll on a phone
    assert report["favicon"], "a favicon link"
    assert all(alt and not re.search(r"\.(png|svg|jpe?g)$|^[0-9a-f]{16,}", alt)
               for alt in report["alts"]), report["alts"]
    assert report["zoomable"] == len(report["alts"]), "every figure opens full size on click"
    assert all(ratio >= 4.5 for ratio in contrast), contrast   # WCAG AA for captions
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert f"attnspec {version}" in report["footer"] and "CC BY 4.0" in report["footer"]
    executable = (ROOT / page.replace(".html", ".ipynb")).exists()
    assert bool(report["launch"]) == executable, "launch buttons on executable pages only"
    assert errors == [], errors


def test_every_chapter_page_has_a_figure(site, browser):
    """Each executed chapter shows at least one figure image."""
    for page in [p for p in _pages() if p.startswith("chapters/") and
                 (ROOT / p.replace(".html", ".ipynb")).exists()]:
        browser.get(f"{site}/{page}")
        assert browser.execute_script("return document.images.length") > 0, page


def test_downloaded_notebooks_carry_their_figures():
    """The download button serves each chapter executed, figures included."""
    if not (HTML / "intro.html").is_file():
        unavailable("the book is not built: run `make book` first")
    import nbformat

    for path in sorted((ROOT / "chapters").glob("*.ipynb")):
        served = nbformat.read(HTML / "_sources" / "chapters" / path.name, as_version=4)
        images = [o for c in served.cells if c.cell_type == "code" for o in c.outputs
                  if {"image/png", "image/svg+xml"} & set(o.get("data", {}))]
        assert images, path.name
