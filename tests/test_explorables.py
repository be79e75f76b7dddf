"""The interactive figures: their data (attnspec.book.explorables, explorable_figures) against the
library, and the built pages in headless Chromium (browser tests, after ``make book``)."""

import json
import re

import numpy as np
import pytest

from helpers import ROOT, unavailable

import attnspec
from attnspec.book import explorable_figures as figures
from attnspec.book.explorables import (MAX_DATA_BYTES, Control, Explorable, Frame, Panel,
                                       Series)


def _tiny(**kw):
    def frame(a, b="x"):
        return Frame().line("curve", [0.0, 1.0, 2.0], [a, a + 1, np.nan]).readout("a", a)

    defaults = dict(name="exp-test", controls=[Control("a", "a", (1, 2, 3))],
                    panels=[Panel("x", "y")], series=[Series("curve", "line", "curve")],
                    frame=frame, alt="a test figure")
    defaults.update(kw)
    return Explorable(**defaults)


@pytest.mark.parametrize("values, message", [
    ((), "must not be empty"), ((1.0, np.nan), "must be finite"), ((1, "a"), "all numbers or"),
    ((1, 1), "values repeat"), ((True, False), "all numbers or all strings")])
def test_a_control_refuses_malformed_positions(values, message):
    with pytest.raises(ValueError, match=message):
        Control("beta", "β", values)


def test_a_control_refuses_a_default_that_is_not_a_position():
    with pytest.raises(ValueError, match=r"default=5 is not one of its values"):
        Control("beta", "β", (1, 2), default=5)
    assert Control("beta", "β", (1, 2, 3)).default == 2          # the middle one


def test_names_scales_and_kinds_are_checked():
    with pytest.raises(ValueError, match="Control name"):
        Control("not a name", "x", (1,))
    with pytest.raises(ValueError, match="x_scale must be"):
        Panel("x", "y", x_scale="symlog")
    with pytest.raises(ValueError, match="kind must be one of"):
        Series("s", "bar", "s")


def test_a_frame_checks_its_series():
    with pytest.raises(ValueError, match="one value fewer than edges"):
        Frame().hist("h", [0, 1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="given twice"):
        Frame().line("a", [0], [1]).line("a", [0], [1])
    frame = Frame().line("a", [0, 1, 2], [np.inf, np.nan, 1 / 3])
    assert frame.series["a"]["y"] == [None, None, 0.333333333]   # JSON has no inf or NaN


def test_an_explorable_refuses_what_it_cannot_draw():
    with pytest.raises(ValueError, match="not declared"):
        _tiny(series=[Series("other", "line", "other")])
    with pytest.raises(TypeError, match="not a Frame"):
        _tiny(frame=lambda a: None)
    with pytest.raises(ValueError, match="alt must be"):
        _tiny(alt=" ")
    with pytest.raises(ValueError, match="panel=1 but there are 1 panels"):
        _tiny(series=[Series("curve", "line", "curve", panel=1)])
    big = np.arange(MAX_DATA_BYTES // 5, dtype=float) + 0.123456789
    with pytest.raises(ValueError, match="more than MAX_DATA_BYTES"):
        _tiny(frame=lambda a: Frame().line("curve", big, big))


def test_one_frame_per_position_and_the_page_data():
    explorable = _tiny(controls=[Control("a", "a", (1, 2, 3)), Control("b", "b", ("x", "y"))])
    assert sorted(explorable.frames) == ["0,0", "0,1", "1,0", "1,1", "2,0", "2,1"]
    data = json.loads(explorable.data)
    assert data["controls"][1]["slider"] is False and data["controls"][0]["default"] == 1
    html = explorable.to_html(png=b"png")
    assert "</script><img" in html and html.count("</script>") == 1   # "</" inside is escaped
    assert 'alt="a test figure"' in html


def test_the_chapter_3_figure_against_the_closed_forms():
    """m₂ = 2s² + cβ⁴ and m₁ = s (A4 §3) are printed for every position; the curve is the
    law's density, the histogram's mass is the share of eigenvalues in range."""
    explorable = figures.single_head_law((0.5, 1.5), (0.5, 2.0), ell=60, seed=3, points=30)
    for (i, beta), (j, c) in [(a, b) for a in enumerate((0.5, 1.5)) for b in enumerate((0.5, 2.0))]:
        frame = explorable.frames[f"{i},{j}"]
        s = np.expm1(beta ** 2)
        readouts = dict(frame.readouts)
        assert float(readouts["m₂"]) == pytest.approx(2 * s ** 2 + c * beta ** 4, rel=1e-5)
        assert float(readouts["m₁"]) == pytest.approx(s, rel=1e-5)
        assert float(readouts["MP edge 4s"]) == pytest.approx(4 * s, rel=1e-5)
        law = attnspec.AttentionLaw(beta, c)
        x = np.array(frame.series["law"]["x"])
        np.testing.assert_allclose(frame.series["law"]["y"], law.pdf(x), rtol=1e-8)
        edges, heights = (np.array(frame.series["softmax"][k]) for k in ("x", "y"))
        assert 0.9 < np.sum(heights * np.diff(edges)) <= 1 + 1e-7   # 9 digits each
        assert frame.command == f"attnspec law --beta {beta:g} --c {c:g}"


def test_the_chapter_3_figure_says_where_the_limit_describes_its_size():
    """At ℓ = 60, √(2 log ℓ/3) = 1.65: β = 0.5 is below it, β = 2 past it, and the readout
    says which; the draw's mean over s is the mean of the drawn spectrum (the same draw)."""
    from attnspec.experiments.thresholds import threshold_scales

    scale = threshold_scales(60)["mean_shortfall"].value
    assert 0.5 < scale < 2.0
    explorable = figures.single_head_law((0.5, 2.0), (1.0,), ell=60, seed=3, points=10)
    for i, beta in enumerate((0.5, 2.0)):
        readouts = dict(explorable.frames[f"{i},0"].readouts)
        remark = readouts["ν∞ at ℓ = 60"]
        assert remark.startswith("β past" if beta > scale else "β below")
        assert f"{scale:.3g}" in remark
        sample = attnspec.squared_singular_values(attnspec.centered(
            attnspec.softmax_attention(60, 60, beta, rng=figures._rng(3, beta, 1.0))))
        mean = float(readouts["this draw's mean / s"])
        assert mean == pytest.approx(np.mean(sample) / np.expm1(beta ** 2), rel=1e-2)


def test_same_seed_same_page_and_another_seed_another_draw():
    first = figures.single_head_law((1.0,), (1.0,), ell=40, seed=1, points=10).data
    assert figures.single_head_law((1.0,), (1.0,), ell=40, seed=1, points=10).data == first
    assert figures.single_head_law((1.0,), (1.0,), ell=40, seed=2, points=10).data != first


def test_the_outlier_figure_counts_what_it_marks():
    explorable = figures.outliers_and_scales((60, 120), (1.0, 2.5), draws=2, seed=0)
    for frame in explorable.frames.values():
        counts = [int(n) for n in dict(frame.readouts)["outliers per draw"].split(", ")]
        edge = float(dict(frame.readouts)["edge z₊²"])
        marked = frame.series["outliers"]["x"]
        assert len(marked) == sum(counts) and all(x > edge * (1 - 1e-6) for x in marked)
        assert len(frame.series["scales"]["x"]) >= 4        # five scales, two coincide


def test_the_multihead_figure_draws_the_law_of_each_tie():
    explorable = figures.multihead_law(32, 64, 1.0, heads=(2, 4), ties=("none", "kv", "gqa"),
                                       draws=1, points=20)
    frame = explorable.frames["1,1"]                       # H = 4, kv
    law = attnspec.MultiHeadLaw(32, 64, 4, 1.0, "kv", d_head=16, d_value=16)
    np.testing.assert_allclose(frame.series["law"]["y"],
                               law.pdf(np.array(frame.series["law"]["x"])), rtol=1e-8)
    assert float(dict(frame.readouts)["m₁"]) == pytest.approx(law.moment(1), rel=1e-5)
    assert "groups=2" in explorable.frames["1,2"].command


def test_grouped_query_at_two_heads_is_explained_and_drawn_apart_from_multi_query():
    """At H = 2 grouped-query has G = 1 group, the model of multi-query: the same law, the
    readout says so, and its histogram is another draw (the rng is keyed on the tie's name,
    not on its length: "mqa" and "gqa" both have three letters)."""
    explorable = figures.multihead_law(32, 64, 1.0, heads=(2, 4), ties=("mqa", "gqa"),
                                       draws=1, points=20)
    mqa, gqa = explorable.frames["0,0"], explorable.frames["0,1"]
    assert mqa.series["law"] == gqa.series["law"]                  # one model, one law
    assert mqa.series["equivalent"]["y"] != gqa.series["equivalent"]["y"]
    assert dict(mqa.readouts)["tie"] == "multi-query"
    assert "G = 1 group" in dict(gqa.readouts)["tie"]
    assert "the model of multi-query" in dict(gqa.readouts)["tie"]
    assert dict(explorable.frames["1,1"].readouts)["tie"] == (
        "grouped-query, G = 2 groups of 2 heads")                     # H = 4: no remark
    assert figures._rng(0, 2, "mqa").random() != figures._rng(0, 2, "gqa").random()
    tied = figures.multihead_law(32, 64, 1.0, heads=(2,), ties=("none", "output_keys"),
                                 draws=1, points=20).frames["0,1"]
    assert "Monte Carlo only" in dict(tied.readouts)["tie"]


def test_the_static_figure_shows_the_default_position():
    explorable = figures.law_explorer((0.5, 1.0), (1.0,), points=20)
    fig = explorable.static_figure()
    assert [ax.get_ylabel() for ax in fig.axes] == ["density", "CDF"]
    assert "β = 1" in fig.axes[0].get_title(loc="left")


# ---- the built pages in Chromium ---------------------------------------------------------

HTML = ROOT / "_build" / "html"
EXPECTED = {"exp-03-law", "exp-05-outliers", "exp-06-heads", "exp-07-ties", "exp-explorer"}


@pytest.fixture(scope="module")
def built_explorables():
    """``{page: [ids]}`` of every built page with an interactive figure."""
    if not (HTML / "intro.html").is_file():
        unavailable("the book is not built: run `make book` first")
    pages = {}
    for path in sorted(HTML.rglob("*.html")):
        ids = re.findall(r'class="attnspec-explorable" id="([\w-]+)"', path.read_text())
        if ids:
            pages[path] = ids
    assert EXPECTED <= {box for ids in pages.values() for box in ids}
    return pages


@pytest.fixture(scope="module", params=[1280, 390], ids=["1280px", "390px-touch"])
def explorable_browser(request):
    """Headless Chromium with every host unresolvable (no network), at a laptop's width or a
    phone's (with touch)."""
    import shutil

    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver_path):
        unavailable("headless Chromium is not installed (apt-get install chromium "
                    "chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--no-first-run", "--disable-background-networking", "--disable-sync",
                 "--disable-component-update", "--host-resolver-rules=MAP * ~NOTFOUND",
                 f"--window-size={request.param},900"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    if request.param < 500:
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled",
                               {"enabled": True, "maxTouchPoints": 1})
    driver.width = request.param
    yield driver
    driver.quit()


def _library_values(command, x):
    """The library's density at x for the law a frame's command names."""
    law = re.fullmatch(r"attnspec law --beta (\S+) --c (\S+)(?: --table \d+)?", command)
    if law:
        return attnspec.AttentionLaw(float(law[1]), float(law[2])).pdf(x)
    multi = re.fullmatch(r"attnspec\.MultiHeadLaw\((.*)\)", command)
    args, kwargs = [], {}
    for part in multi[1].split(", "):
        key, sep, value = part.partition("=")
        if sep:
            kwargs[key] = int(value)
        else:
            args.append(eval(key, {}))                     # numbers and quoted tie names
    return attnspec.MultiHeadLaw(*args, **kwargs).pdf(x)


@pytest.mark.browser
def test_explorables_in_the_browser(built_explorables, explorable_browser):
    """Every slider and selector of every interactive figure changes the plotted density, which
    equals the library's at the same parameters; from file:// with no network request and no
    console error; keyboard and touch move the sliders; the redraw lands in one frame."""
    driver = explorable_browser
    for page, ids in built_explorables.items():
        driver.get(page.as_uri())
        driver.set_script_timeout(120)
        ready = driver.execute_async_script(
            "const ids = arguments[0], done = arguments[arguments.length - 1];"
            "const t0 = Date.now(); (function wait() {"
            " if (ids.every((id) => window.attnspecExplorables && attnspecExplorables[id]))"
            "   return done(true);"
            " if (Date.now() - t0 > 100000) return done(false); setTimeout(wait, 100); })();",
            ids)
        assert ready, f"{page.name}: the interactive figures did not draw"
        for box in ids:
            _check_explorable(driver, page, box)
        urls = driver.execute_script(
            "return performance.getEntriesByType('resource').map((e) => e.name)")
        assert [u for u in urls if not u.startswith("file://")] == [], page.name
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == [], page.name


def _plotted(driver, box, name):
    rows = driver.execute_script(
        "return attnspecExplorables[arguments[0]].plotted(arguments[1])"
        ".map((r) => [r.x, r.y]);", box, name)
    return np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float)


def _densities(driver, box):
    """Every density drawn in the top panel (the law's curve and the histogram), as text."""
    return driver.execute_script(
        "return JSON.stringify(attnspecExplorables[arguments[0]].view().data('rows')"
        ".filter((r) => r.panel == 0 && r.kind != 'rule').map((r) => [r.name, r.x, r.y]))", box)


def _move(driver, box, control, index):
    """Set a control and wait for the redraw; True if the plot's SVG changed within the next
    animation frame."""
    return driver.execute_async_script("""
        const [box, control, index, done] = arguments;
        const input = document.querySelector(`#${box} [data-control="${control}"]`);
        const svg = () => document.querySelector(`#${box} .attnspec-explorable-plot svg`).innerHTML;
        const before = svg();
        input.value = index;
        input.dispatchEvent(new Event("input", {bubbles: true}));
        requestAnimationFrame(() => done(svg() !== before));
    """, box, control, index)


def _check_explorable(driver, page, box):
    spec = driver.execute_script("return attnspecExplorables[arguments[0]].spec", box)
    curve = "density" if box == "exp-explorer" else "law"
    for k, control in enumerate(spec["controls"]):
        count = len(control["values"])
        for index in sorted({0, count // 2, count - 1} - {control["default"]}) or [0]:
            before = _densities(driver, box)
            changed = _move(driver, box, control["name"], index)
            assert changed, f"{box}: moving {control['name']} did not redraw within a frame"
            assert _densities(driver, box) != before, f"{box}: {control['name']} changed nothing"
            after = _plotted(driver, box, curve)
            frame = driver.execute_script("return attnspecExplorables[arguments[0]].frame()", box)
            x, y = after[:, 0], after[:, 1]
            expected = _library_values(frame["command"], x)
            finite = np.isfinite(y)
            np.testing.assert_allclose(y[finite], expected[finite], rtol=1e-6, atol=1e-12,
                                       err_msg=f"{box} at {frame['command']}")
        _move(driver, box, control["name"], control["default"])
    first = spec["controls"][0]
    if first["slider"]:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys

        slider = driver.find_element(By.CSS_SELECTOR, f'#{box} [data-control="{first["name"]}"]')
        start = driver.execute_script("return attnspecExplorables[arguments[0]].position()", box)
        slider.send_keys(Keys.ARROW_LEFT if start[0] else Keys.ARROW_RIGHT)
        moved = driver.execute_script("return attnspecExplorables[arguments[0]].position()", box)
        assert moved[0] != start[0], f"{box}: the keyboard did not move {first['name']}"
        _move(driver, box, first["name"], first["default"])
        if driver.width < 500:
            _touch_drag(driver, box, first)
    width = driver.execute_script(
        "return document.querySelector(`#${arguments[0]} svg`).getBoundingClientRect().right",
        box)
    assert width <= driver.execute_script("return window.innerWidth"), f"{box} is too wide"
    smallest = driver.execute_script(
        "return Math.min(...Array.from(document.querySelectorAll("
        "`#${arguments[0]} .attnspec-explorable-plot svg text`))"
        ".filter((t) => t.textContent.trim()).map((t) => parseFloat(getComputedStyle(t).fontSize)))",
        box)
    assert smallest >= 9, f"{box}: text of {smallest} px (the figure policy asks 9)"


def _touch_drag(driver, box, control):
    """Drag a slider with a finger (Chromium's touch events) from one end to the other."""
    left, top, length, height = driver.execute_script(
        "const s = document.querySelector(`#${arguments[0]} [data-control='${arguments[1]}']`);"
        "s.scrollIntoView({block: 'center'}); const r = s.getBoundingClientRect();"
        "return [r.left, r.top, r.width, r.height];", box, control["name"])
    _move(driver, box, control["name"], 0)
    y = top + height / 2
    for kind, x in [("touchStart", left + 3)] + [("touchMove", left + f * length)
                                                  for f in (0.25, 0.5, 0.75, 0.99)]:
        driver.execute_cdp_cmd("Input.dispatchTouchEvent",
                               {"type": kind, "touchPoints": [{"x": x, "y": y}]})
    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    position = driver.execute_script("return attnspecExplorables[arguments[0]].position()", box)
    index = [c["name"] for c in driver.execute_script(
        "return attnspecExplorables[arguments[0]].spec.controls", box)].index(control["name"])
    assert position[index] == len(control["values"]) - 1, f"{box}: a finger did not move it"
    _move(driver, box, control["name"], control["default"])


@pytest.mark.book
def test_each_interactive_figure_adds_at_most_1_5_mb_to_its_page(built_explorables):
    """Page weight: the figure's own markup (data and static image) plus the shared scripts it
    loads (Vega and Vega-Lite, from _static, once per page) stay under 1.5 MB."""
    shared = sum(p.stat().st_size for p in (HTML / "_static" / "vega").glob("*.js"))
    shared += (HTML / "_static" / "explorables.js").stat().st_size
    assert shared > 500_000                            # the scripts are there
    for page, ids in built_explorables.items():
        text = page.read_text()
        for box in ids:
            start = text.index(f'class="attnspec-explorable" id="{box}"')
            own = len(text[start:text.index("</div>", start)].encode())
            assert own + shared <= 1_500_000, f"{page.name} {box}: {own} + {shared} bytes"


def test_the_book_figures_refuse_malformed_sizes_by_name_before_any_work():
    from attnspec._validation import ParameterError

    with pytest.raises(ParameterError, match="ell must be an integer; got ell='x'"):
        figures.single_head_law((1.0,), (1.0,), ell="x")
    with pytest.raises(ParameterError, match="draws must be an integer >= 1; got draws=0"):
        figures.outliers_and_scales((60,), (1.0,), draws=0)
    with pytest.raises(ParameterError, match="draws must be an integer; got draws=1.5"):
        figures.multihead_law(32, 64, 1.0, draws=1.5)


def test_the_explorer_says_when_a_moment_is_beyond_the_float_range():
    """At β = 26 (the end of the law's domain) s is finite but m₂ ~ 1e587 is not."""
    frame = figures.law_explorer((26.0,), (1.0,), points=10).frames["0,0"]
    readouts = dict(frame.readouts)
    assert float(readouts["m₁"]) == pytest.approx(np.expm1(26.0 ** 2), rel=1e-5)
    assert readouts["m₂"] == readouts["m₄"] == "beyond float64"
