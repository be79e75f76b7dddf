"""The whole book as one PDF (``make pdf``): the built HTML pages, printed by headless Chromium
as one document with a table of contents and bookmarks.

Why this route: the book's maths is typeset by MathJax and its directives (proofs, exercises,
glued figures and tables) are rendered by the HTML theme; printing the same HTML keeps them as
the reader sees them online, with no TeX installation. Jupyter Book's LaTeX route would need a
full TeX Live and re-implements every directive; its single-page HTML builder cannot render
sphinx-proof's nodes.

Steps:

1. the article of every page of ``_build/html`` (built by ``make book``), in the order of
   ``_toc.yml``, goes into one document (:func:`book_document`): chapter titles get the
   numbers the sidebar shows them with, headings move one level down under their part's title
   (so the bookmarks nest part > chapter > section), ids are prefixed with their page and links
   between pages become links inside the document; what the web page folds away (code of
   ``hide-input`` cells, ``hide-cell`` cells) is left out; a contents page lists every chapter
   and section; raster images wider than :data:`PRINT_PPI` at the printed width are
   downsampled (SVG figures stay vectors);
2. the document is served on a loopback port (MathJax's fonts do not load from ``file://``),
   opened in headless Chromium, MathJax is awaited, and Chrome's ``Page.printToPDF`` prints it
   with the print stylesheets (``_assets/attnspec.css``, ``tools/build_pdf.css``), page numbers
   in the footer and a document outline (the PDF bookmarks) built from the headings;
3. the page on which each contents entry landed is read from the PDF's named destinations
   (pikepdf), written into the contents page, and the document printed again, until the numbers
   are stable; the result is ``_build/pdf/attnspec.pdf``, also copied to
   ``_build/html/attnspec.pdf`` (published with the site).
"""

from __future__ import annotations

import argparse
import base64
import copy
import functools
import html as htmlmod
import http.server
import io
import posixpath
import re
import shutil
import sys
import tempfile
import threading
import tomllib
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_book import exit_status  # noqa: E402  (the one way of reporting a refusal)

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "_build"
STYLE = Path(__file__).with_suffix(".css")
BOOK = "__book__.html"                  # where the one document is served
SCALED = "__scaled__"                   # where downsampled images are served

PRINT = {
    "printBackground": True, "paperWidth": 8.27, "paperHeight": 11.69,   # A4, inches
    "marginTop": 0.6, "marginBottom": 0.7, "marginLeft": 0.6, "marginRight": 0.6,
    "displayHeaderFooter": True, "headerTemplate": "<span></span>",
    "footerTemplate": '<div style="font-size:8pt;width:100%;text-align:center;color:#555">'
                      '<span class="pageNumber"></span></div>',
}
#: Resolution, in pixels per inch at the printed width, above which raster images are
#: downsampled for the PDF (figures at 200 dpi drawn at the column width stay as they are).
PRINT_PPI = 200
TEXT_WIDTH_IN = PRINT["paperWidth"] - PRINT["marginLeft"] - PRINT["marginRight"]

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

OUTLINE_ENTRIES = """
const SUP = {'0': '⁰', '1': '¹', '2': '²', '3': '³', '4': '⁴', '5': '⁵', '6': '⁶', '7': '⁷',
             '8': '⁸', '9': '⁹', '+': '⁺', '-': '⁻', '−': '⁻'};
const plain = node => {                      // MathML (MathJax's assistive copy) as plain text
    if (node.nodeType === Node.TEXT_NODE) return node.textContent;
    const parts = Array.from(node.childNodes).map(plain);
    if (node.localName === 'msqrt') return '√' + parts.join('');
    if (node.localName === 'msup' && parts.length === 2) {
        const up = [...parts[1]];
        return parts[0] + (up.every(c => c in SUP) ? up.map(c => SUP[c]).join('') : '^' + parts[1]);
    }
    if (node.localName === 'mfrac' && parts.length === 2) return parts[0] + '/' + parts[1];
    return parts.join('');
};
return Array.from(document.querySelectorAll('.pdf-toc li')).map(li => {
    const title = li.querySelector('.pdf-toc-title').cloneNode(true);
    title.querySelectorAll('mjx-container').forEach(math => {
        const mml = math.querySelector('mjx-assistive-mml math');
        math.replaceWith(mml ? plain(mml) : '');
    });
    return [li.querySelector('a').getAttribute('href').slice(1),
            title.textContent.replace(/\\s+/g, ' ').trim(), Number(li.dataset.depth)];
});
"""

FILL_PAGE_NUMBERS = """
const pages = arguments[0];
document.querySelectorAll('.pdf-toc-page').forEach(span => {
    span.textContent = pages[span.dataset.target] || '';
});
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


def toc_parts(root=ROOT):
    """The book's pages in reading order (``_toc.yml``), as ``(part caption or None, page)``
    pairs, pages as paths relative to the site (``chapters/03_x.html``)."""
    import yaml

    toc = yaml.safe_load((Path(root) / "_toc.yml").read_text())
    pages = [(None, toc["root"])]

    def walk(entries, part):
        for entry in entries:
            if "file" in entry:
                pages.append((part, entry["file"]))
            walk(entry.get("sections") or [], part)

    for part in toc.get("parts") or [{"chapters": toc.get("chapters") or []}]:
        walk(part.get("chapters") or [], part.get("caption"))
    return [(part, f"{Path(page).with_suffix('')}.html") for part, page in pages]


def toc_pages(root=ROOT):
    """The book's pages in reading order (``_toc.yml``), as paths relative to the site."""
    return [page for _, page in toc_parts(root)]


def slug(page):
    """The id prefix of a page in the one document: ``chapters/03_x.html`` -> ``chapters-03_x``."""
    return page.removesuffix(".html").replace("/", "-")


def _scaled_image(site, path, scratch):
    """The site path of ``path`` (an image under ``site``) to print: the image itself, or a
    copy in ``scratch`` downsampled to :data:`PRINT_PPI` at the text width if it is wider."""
    from PIL import Image

    source = site / path
    if source.suffix.lower() not in (".png", ".jpg", ".jpeg", ".gif") or not source.is_file():
        return path
    width = int(PRINT_PPI * TEXT_WIDTH_IN)
    with Image.open(source) as image:
        if image.width <= width:
            return path
        height = round(image.height * width / image.width)
        scaled = image.resize((width, height), Image.LANCZOS)
        name = f"{slug(path)}.png"
        scaled.save(scratch / name, optimize=True)
    return f"{SCALED}/{name}"


def _number(nav_text):
    """The chapter number the sidebar shows before a title (``"3. The ..."`` -> ``"3"``)."""
    match = re.match(r"(\d+)\.\s", nav_text)
    return match[1] if match else None


class _Page:
    """One page of the site, made into a part of the one document."""

    def __init__(self, site, page, pages, scratch):
        from bs4 import BeautifulSoup

        self.page, self.slug = page, slug(page)
        soup = BeautifulSoup((site / page).read_text(encoding="utf-8"), "html.parser")
        self.head = soup.head
        current = soup.select_one("nav.bd-docs-nav li.current.active > a")
        self.number = _number(current.get_text(" ", strip=True)) if current else None
        article = soup.select_one("article.bd-article")
        if article is None:
            raise RuntimeError(f"{page} has no <article class='bd-article'>: not a book page")
        for hidden in article.select("details.hide, script, a.headerlink, .prev-next-area"):
            hidden.decompose()
        for cell in article.select("div.cell"):
            if not cell.get_text(strip=True) and not cell.find(["img", "svg", "table"]):
                cell.decompose()                                # everything of it was hidden
        self._relink(article, site, pages, scratch)
        h1 = article.find("h1")
        if h1 is not None and self.number and not h1.find(class_="section-number"):
            number = soup.new_tag("span", attrs={"class": "section-number"})
            number.string = f"{self.number}. "
            h1.insert(0, number)
        self.title = h1
        self.sections = article.find_all("h2")
        article["class"] = ["bd-article", "pdf-page"]
        article["id"] = self.slug
        self.article = article

    def _relink(self, article, site, pages, scratch):
        """Prefix ids with the page; turn links to book pages into links inside the document,
        other relative links into site paths (images) or plain text (anything else)."""
        here = posixpath.dirname(self.page)
        for tag in article.find_all(True):
            for attr in ("id", "for", "aria-controls", "aria-labelledby"):
                if tag.get(attr):
                    tag[attr] = " ".join(f"{self.slug}--{name}" for name in tag[attr].split())
            for attr in ("href", "src"):
                url = tag.get(attr)
                if not url or urlsplit(url).scheme or url.startswith("//"):
                    continue
                path, _, fragment = url.partition("#")
                target = posixpath.normpath(posixpath.join(here, path)) if path else self.page
                if target in pages:
                    tag[attr] = f"#{slug(target)}--{fragment}" if fragment else f"#{slug(target)}"
                elif attr == "src":
                    tag[attr] = "/" + _scaled_image(site, target, scratch)
                else:
                    del tag[attr]                # genindex, downloads: no page of the PDF


def _toc_entry(soup, title, target, kind, depth):
    """One line of the contents page: ``title`` (a heading, whose maths and number are kept, or
    a string) linked to ``target``, a dotted leader and the page number (filled in after the
    first print). ``depth`` is the line's level in the PDF's bookmarks."""
    line = soup.new_tag("li", attrs={"class": f"pdf-toc-{kind}", "data-depth": str(depth)})
    link = soup.new_tag("a", href=f"#{target}")
    text = soup.new_tag("span", attrs={"class": "pdf-toc-title"})
    if isinstance(title, str):
        text.string = title
    else:
        for child in list(title.children):
            text.append(copy.copy(child))
    link.append(text)
    link.append(soup.new_tag("span", attrs={"class": "pdf-toc-fill"}))
    link.append(soup.new_tag("span", attrs={"class": "pdf-toc-page", "data-target": target}))
    line.append(link)
    return line


def book_document(site, root, scratch):
    """The one HTML document of the whole book (see the module docstring), as a string."""
    import yaml
    from bs4 import BeautifulSoup

    site, root = Path(site), Path(root)
    parts = toc_parts(root)
    pages = {page for _, page in parts}
    config = yaml.safe_load((root / "_config.yml").read_text())
    version = tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"]
    built = [(part, _Page(site, page, pages, scratch)) for part, page in parts]

    soup = BeautifulSoup("<!DOCTYPE html><html><head></head><body></body></html>",
                         "html.parser")
    head = built[0][1].head            # the landing page's: its paths are relative to the site
    for tag in head.find_all(["link", "script"]):
        for attr in ("href", "src"):
            url = tag.get(attr)
            if url and not urlsplit(url).scheme and not url.startswith("/"):
                tag[attr] = "/" + posixpath.normpath(url)
    style = soup.new_tag("style")
    style.string = STYLE.read_text(encoding="utf-8")
    head.append(style)
    soup.html.head.replace_with(head)
    body = soup.body
    body["class"] = ["pdf-book"]
    container = soup.new_tag("main", attrs={"class": "bd-main pdf-main"})
    body.append(container)

    front = BeautifulSoup(
        '<section class="pdf-front"><p class="pdf-book-title">{}</p>'
        '<p class="pdf-book-author">{} · version {}</p>'
        '<h1 id="pdf-contents">Contents</h1><ul class="pdf-toc"></ul></section>'.format(
            htmlmod.escape(config["title"]), htmlmod.escape(config["author"]), version),
        "html.parser").section
    container.append(front)
    toc = front.select_one("ul.pdf-toc")
    previous_part = None
    for part, page in built:
        if part != previous_part:
            part_id = f"pdf-part-{len(toc.select('.pdf-toc-part'))}"
            heading = soup.new_tag("p", attrs={"class": "pdf-part-title", "id": part_id})
            heading.string = part
            toc.append(_toc_entry(soup, part, part_id, "part", 0))
            container.append(heading)
            previous_part = part
        depth = 0 if part is None else 1
        if page.title is not None:
            toc.append(_toc_entry(soup, page.title, page.slug, "chapter", depth))
        for section in page.sections:
            target = section.get("id") or section.parent.get("id")
            if target:
                toc.append(_toc_entry(soup, section, target, "section", depth + 1))
        container.append(page.article)
    return str(soup)


class _Handler(http.server.SimpleHTTPRequestHandler):
    """The site's files, the one document at ``/__book__.html`` and scaled images."""

    document = b""
    scratch = None

    def do_GET(self):
        path = urlsplit(self.path).path
        if path == f"/{BOOK}":
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(self.document)))
            self.end_headers()
            self.wfile.write(self.document)
        elif path.startswith(f"/{SCALED}/"):
            data = (self.scratch / Path(path).name).read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:
            super().do_GET()

    def log_message(self, *args):
        pass


def _serve(folder, document, scratch):
    handler = functools.partial(type("Handler", (_Handler,), {
        "document": document.encode("utf-8"), "scratch": scratch}), directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def destination_pages(pdf_bytes):
    """``{named destination: page number (1-based)}`` of a PDF (Chromium names a destination
    after the id of every element that a link of the document points to)."""
    import pikepdf

    with pikepdf.open(io.BytesIO(pdf_bytes)) as pdf:
        index = {page.obj.objgen: number for number, page in enumerate(pdf.pages, 1)}
        if "/Dests" in pdf.Root:
            dests = dict(pdf.Root.Dests.items())
        elif "/Names" in pdf.Root and "/Dests" in pdf.Root.Names:
            dests = dict(pikepdf.NameTree(pdf.Root.Names.Dests).items())
        else:
            dests = {}
        return {str(name).lstrip("/"): index[
                    (dest.D if isinstance(dest, pikepdf.Dictionary) else dest)[0].objgen]
                for name, dest in dests.items()}


def with_outline(pdf_bytes, entries, pages):
    """``pdf_bytes`` with PDF bookmarks (and its objects compressed into object streams):
    "Contents" on page 1, then one bookmark per ``(target, title, depth)`` of ``entries`` (the
    contents page's lines), nested by depth, pointing at the page ``pages[target]``."""
    import pikepdf

    out = io.BytesIO()
    with pikepdf.open(io.BytesIO(pdf_bytes)) as pdf:
        with pdf.open_outline() as outline:
            outline.root.append(pikepdf.OutlineItem("Contents", 0))
            parents = {}
            for target, title, depth in entries:
                if target not in pages:
                    raise RuntimeError(f"the contents' entry {title!r} (#{target}) is on no page")
                item = pikepdf.OutlineItem(title, pages[target] - 1)
                (parents[depth - 1].children if depth else outline.root).append(item)
                parents[depth] = item
        pdf.Root.PageMode = pikepdf.Name.UseOutlines
        pdf.save(out, object_stream_mode=pikepdf.ObjectStreamMode.generate,
                 compress_streams=True, recompress_flate=True)
    return out.getvalue()


def print_book(site, document, target, chrome, scratch, max_prints=4):
    """Print ``document`` (served with the site's files) to ``target``, with the page numbers
    of the contents filled in once they are stable."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    server = _serve(site, document, scratch)
    options = webdriver.ChromeOptions()
    options.binary_location = chrome
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--no-first-run", "--window-size=1100,1400"]:
        options.add_argument(flag)
    driver_path = shutil.which("chromedriver")
    driver = webdriver.Chrome(service=Service(driver_path) if driver_path else Service(),
                              options=options)
    driver.command_executor.client_config.timeout = 1800     # printing the book takes minutes
    try:
        driver.set_page_load_timeout(300)
        driver.set_script_timeout(900)
        driver.get(f"http://127.0.0.1:{server.server_address[1]}/{BOOK}")
        if driver.execute_async_script(WAIT_FOR_MATHJAX) is False:
            raise RuntimeError("MathJax failed to typeset the book")
        driver.execute_script(PREPARE_FOR_PRINT)
        entries = driver.execute_script(OUTLINE_ENTRIES)
        pages = None
        for _ in range(max_prints):
            pdf = base64.b64decode(driver.execute_cdp_cmd("Page.printToPDF", PRINT)["data"])
            found = destination_pages(pdf)
            if found == pages:
                break
            pages = found
            driver.execute_script(FILL_PAGE_NUMBERS, pages)
        else:
            raise RuntimeError(f"the contents' page numbers changed in each of {max_prints} "
                               "prints")
    finally:
        driver.quit()
        server.shutdown()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial.pdf")
    partial.write_bytes(with_outline(pdf, entries, pages))
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
    with tempfile.TemporaryDirectory() as scratch:
        document = book_document(site, root, Path(scratch))
        target = print_book(site, document, Path(root) / "_build" / "pdf" / "attnspec.pdf",
                            chrome, Path(scratch))
    shutil.copy2(target, site / target.name)
    return target


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chrome", default=None, help="Chromium or Chrome executable")
    args = parser.parse_args(argv)
    return exit_status("build_pdf", RuntimeError, lambda: print(build(ROOT, args.chrome)))


if __name__ == "__main__":
    sys.exit(main())
