"""A session's reveal.js deck in headless Chromium, from file://, after its folder is moved.

The deck of session 3 is built from the executed chapter (``make book`` first; ``make test``
does it), copied to another folder, and opened there: reveal.js starts, every section is a
slide, the maths is typeset by the vendored MathJax without TeX errors, every image loads, the
console logs no error, and every script, stylesheet, image and font it loads is a ``file://``
address inside the moved folder or inline data (no network).
"""

import shutil

import pytest
from helpers import ROOT, WAIT_FOR_MATHJAX, chromium, console_errors, load_tool, unavailable

pytestmark = pytest.mark.browser

DECK_REPORT = r"""
return {
  ready: Reveal.isReady(),
  slides: Reveal.getTotalSlides(),
  sections: document.querySelectorAll('.slides > section').length,
  typeset: document.querySelectorAll('mjx-container').length,
  tex_errors: document.querySelectorAll('mjx-merror').length,
  images: document.images.length,
  broken_images: Array.from(document.images)
      .filter(i => !(i.complete && i.naturalWidth > 0)).length,
  // every address the page loads from: scripts, stylesheets, images, and the fonts that the
  // stylesheets (MathJax's included) name
  resources: [...Array.from(document.scripts).map(s => s.src).filter(Boolean),
              ...Array.from(document.querySelectorAll('link[href]')).map(l => l.href),
              ...Array.from(document.images).map(i => i.src),
              ...Array.from(document.styleSheets).flatMap(sheet => {
                  try { return Array.from(sheet.cssRules).map(r => r.cssText); }
                  catch (e) { return ['unreadable stylesheet ' + sheet.href]; } })
                 .flatMap(text => Array.from(text.matchAll(/url\("?([^")]+)/g), m => m[1]))],
};
"""


@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    yield driver
    driver.quit()


def test_a_deck_renders_offline_from_a_moved_folder(tmp_path, browser):
    slides = load_tool("build_slides")
    if not (slides.EXECUTED / "03_single_head_theorem.ipynb").is_file():
        unavailable("the book is not built (make book)")
    built = slides.build(tmp_path / "built", only=["session-03"])
    moved = tmp_path / "elsewhere" / "decks"
    shutil.move(built, moved)
    browser.get_log("browser")
    browser.get((moved / "session-03.html").as_uri())
    assert browser.execute_async_script(WAIT_FOR_MATHJAX) is True
    report = browser.execute_script(DECK_REPORT)
    assert report["ready"] and report["slides"] == report["sections"] >= 8
    assert report["typeset"] > 10 and report["tex_errors"] == 0
    assert report["images"] >= 6 and report["broken_images"] == 0
    assert console_errors(browser) == []
    assert len(report["resources"]) > 10
    assert all(r.startswith(("file://", "data:")) for r in report["resources"]), \
        [r for r in report["resources"] if not r.startswith(("file://", "data:"))]
    assert not any(str(ROOT) in r for r in report["resources"])   # nothing from the checkout
