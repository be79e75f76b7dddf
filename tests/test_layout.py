"""Equations, tables and code that fit their boxes, measured on the built book in Chromium.

At a laptop's width (1280 px) and a phone's (390 px), on every page:
- a display equation overflows its box when its typeset width exceeds the box; none may at
  1280 px. On a phone ``_assets/attnspec.js`` first sets an equation up to a third too wide in
  smaller type (down to 75 %); at most ``PHONE_EQUATIONS`` may still overflow at 390 px, and
  each that does carries the scroll cue (class ``attnspec-scrolls`` and a "scroll →" note);
- a table wider than its box carries the same cue;
- a table cell breaks a word or a number when one of its words (or a "value ± error" pair)
  lies on more than one line (the client rectangles of a Range over it); none may;
- a code block cuts a line when its text is wider than its box; none may at 1280 px, and on the
  landing page none may at 390 px either (chapters' 85-character lines scroll on a phone).
Needs ``make book`` first; skipped (failed in CI) without Chromium or the built book.
"""

import pytest
from test_site import HTML, WAIT_FOR_MATHJAX, _pages, browser, site  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser

WIDTHS = (1280, 390)
PHONE_EQUATIONS = 10
LANDING = "intro.html"

#: what overflows on the page: display equations (with their TeX and whether they show the
#: cue), table cells with a split word, code blocks with a cut line
LAYOUT_REPORT = """
const article = document.querySelector('.bd-article') || document.body;
const tex = new Map();
if (window.MathJax && MathJax.startup && MathJax.startup.document) {
  for (const item of MathJax.startup.document.math) tex.set(item.typesetRoot, item.math);
}
const wider = el => el.scrollWidth > el.clientWidth + 1;
const cued = el => el.classList.contains('attnspec-scrolls') && !!el.nextElementSibling
    && el.nextElementSibling.classList.contains('attnspec-scroll-note')
    && el.nextElementSibling.offsetParent !== null
    && el.nextElementSibling.textContent.includes('scroll');
const equations = [];
for (const m of article.querySelectorAll('mjx-container[display="true"]')) {
  const box = m.closest('div.math') || m;
  if (wider(m) || wider(box)) {
    const cue = cued(m);
    equations.push({label: (box.querySelector('.eqno') || {textContent: ''}).textContent.trim(),
                    tex: (tex.get(m) || '').trim().slice(0, 80), cue: cue,
                    width: m.scrollWidth, box: m.clientWidth});
  }
}
const lines = range => new Set(Array.from(range.getClientRects())
    .filter(r => r.width > 0).map(r => Math.round(r.top))).size;
// a word: a "value ± error" pair, or a run without spaces up to a hyphen, dash or slash
// (after which a line may break)
const WORD = /[^\\s\\u00b1]+\\s*\\u00b1\\s*[^\\s\\u00b1]+|[^\\s\\u00b1\\u2010-\\u2014\\/-]+[\\u2010-\\u2014\\/-]*|[\\u2010-\\u2014\\/-]+/g;
const cells = [];
for (const cell of article.querySelectorAll('td, th')) {
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest('mjx-container')) continue;
    for (const word of node.data.matchAll(WORD)) {
      const range = document.createRange();
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      if (lines(range) > 1) cells.push(word[0]);
    }
  }
}
const tables = Array.from(article.querySelectorAll('table'))
    .filter(t => wider(t) && !cued(t)).map(t => t.innerText.slice(0, 60));
const code = [];
for (const pre of article.querySelectorAll('pre')) {
  if (pre.offsetParent !== null && wider(pre)) {
    const longest = pre.textContent.split('\\n').reduce((a, b) => b.length > a.length ? b : a, '');
    code.push(longest.slice(0, 80));
  }
}
return {equations: equations, cells: cells, tables: tables, code: code};
"""


def measure(browser, url, width):  # noqa: F811 (the fixture's name)
    """The page's LAYOUT_REPORT at ``width`` px, after MathJax and attnspec.js have run."""
    browser.set_window_size(width, 1000)
    browser.get(url)
    browser.execute_async_script(WAIT_FOR_MATHJAX)
    browser.execute_async_script("setTimeout(arguments[0], 300)")   # attnspec.js marks boxes
    return browser.execute_script(LAYOUT_REPORT)


@pytest.fixture(scope="module")
def layout(site, browser):  # noqa: F811
    """``{(page, width): report}`` for every page of the built book."""
    return {(page, width): measure(browser, f"{site}/{page}", width)
            for page in _pages() or [LANDING] for width in WIDTHS}


def _pick(layout, key, width, pages=None):
    return {page: report[key] for (page, w), report in layout.items()
            if w == width and report[key] and (pages is None or page in pages)}


def test_no_display_equation_overflows_on_a_laptop(layout):
    assert _pick(layout, "equations", 1280) == {}


def test_few_display_equations_scroll_on_a_phone_and_each_shows_it(layout):
    wide = _pick(layout, "equations", 390)
    count = sum(len(found) for found in wide.values())
    assert count <= PHONE_EQUATIONS, wide
    assert {page: [e for e in found if not e["cue"]] for page, found in wide.items()
            if not all(e["cue"] for e in found)} == {}


@pytest.mark.parametrize("width", WIDTHS)
def test_no_table_cell_breaks_a_word_or_number(layout, width):
    assert _pick(layout, "cells", width) == {}


@pytest.mark.parametrize("width", WIDTHS)
def test_every_table_wider_than_its_box_shows_that_it_scrolls(layout, width):
    assert _pick(layout, "tables", width) == {}


def test_no_code_line_is_cut(layout):
    assert _pick(layout, "code", 1280) == {}
    assert _pick(layout, "code", 390, pages={LANDING}) == {}
