"""Interactive figures of the online book, every position computed when the chapter executes.

An :class:`Explorable` is a figure with sliders or selectors (:class:`Control`). When the chapter
runs, the library computes one :class:`Frame` for every combination of control positions; the
page only shows the precomputed frame of the current position (drawn by Vega-Lite, vendored by
``make`` like MathJax, from ``_assets/explorables.js``). No number is computed again in the
browser, and the site stays static, offline and fast. The same cell output carries a static
figure of the default position (matplotlib), shown in print, in the PDF, in notebooks and
wherever JavaScript does not run.

A new interactive figure is a function ``frame(**positions) -> Frame`` and a few lines::

    beta = Control("beta", "β", [0.5, 1, 2])
    axes = Panel("squared singular value", "density")
    series = [Series("law", "line", "ν∞(β, 1)")]    # drawn by frame(beta)
    explorable = Explorable("exp-03-law", [beta], [axes], series, frame, alt="...")
    explorable          # the cell's output
"""

from __future__ import annotations

import base64
import html
import io
import itertools
import json
import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Control", "Panel", "Series", "Frame", "Explorable", "page_values", "MAX_DATA_BYTES"]

#: Largest data an explorable may embed in its page (bytes of JSON). With the shared scripts
#: (Vega and Vega-Lite, about 0.78 MB, loaded once per page) a page stays under 1.5 MB.
MAX_DATA_BYTES = 650_000

#: Significant digits of the numbers sent to the page, so the plotted values equal the
#: library's to a relative 5e-9.
DIGITS = 9

KINDS = ("line", "hist", "point", "rule", "area")


def _check_name(what, name):
    if not isinstance(name, str) or not name.replace("-", "_").isidentifier():
        raise ValueError(f"{what} must be an identifier-like string (letters, digits, _ or -); "
                         f"got {what}={name!r}")
    return name


@dataclass(frozen=True)
class Control:
    """A slider (numbers) or a selector (strings) over precomputed positions.

    ``values`` are the positions, in order; ``default`` is one of them (the middle one if
    omitted); ``label`` is shown beside the control (``"β"``); ``format`` formats a number.
    """

    name: str
    label: str
    values: tuple
    default: object = None
    format: str = "{:g}"

    def __post_init__(self):
        _check_name("Control name", self.name)
        values = tuple(self.values)
        if not values:
            raise ValueError(f"Control {self.name!r}: values must not be empty")
        numeric = all(isinstance(v, (int, float, np.integer, np.floating))
                      and not isinstance(v, bool) for v in values)
        if numeric:
            values = tuple(float(v) if isinstance(v, (float, np.floating)) else int(v)
                           for v in values)
            if not all(math.isfinite(v) for v in values):
                raise ValueError(f"Control {self.name!r}: values must be finite; got {values}")
        elif not all(isinstance(v, str) for v in values):
            raise ValueError(f"Control {self.name!r}: values must be all numbers or all "
                             f"strings; got {values!r}")
        if len(set(values)) != len(values):
            raise ValueError(f"Control {self.name!r}: values repeat; got {values}")
        default = values[len(values) // 2] if self.default is None else self.default
        if default not in values:
            raise ValueError(f"Control {self.name!r}: default={default!r} is not one of its "
                             f"values {values}")
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "default", default)

    @property
    def is_slider(self):
        return not isinstance(self.values[0], str)

    def text(self, value):
        """A position as shown on the page."""
        return self.format.format(value) if self.is_slider else str(value)


@dataclass(frozen=True)
class Panel:
    """One plot of an explorable (panels are stacked): axis titles and scales."""

    x_title: str
    y_title: str
    x_scale: str = "linear"
    y_scale: str = "linear"
    height: int = 260

    def __post_init__(self):
        for axis in ("x_scale", "y_scale"):
            if getattr(self, axis) not in ("linear", "log"):
                raise ValueError(f"Panel {axis} must be 'linear' or 'log'; "
                                 f"got {getattr(self, axis)!r}")


def _numbers(name, values):
    """A 1-d float array as a JSON-ready list: DIGITS significant digits, None for NaN/±inf."""
    array = np.asarray(values, dtype=float).ravel()
    return [float(f"{v:.{DIGITS}g}") if math.isfinite(v) else None for v in array.tolist()]


def page_values(values):
    """``values`` as the page will hold them (DIGITS significant digits): evaluate a law at
    these, so that the plotted curve is the library's value at the plotted point."""
    return np.array(_numbers("values", values), dtype=float)


@dataclass
class Frame:
    """What one position of the controls shows: series per panel, readouts, a command.

    Build it with the methods, each returning the frame (so calls chain)::

        Frame().line("law", x, y).hist("sample", edges, heights).readout("right edge", "4.1")
    """

    series: dict = field(default_factory=dict)
    readouts: list = field(default_factory=list)
    domains: dict = field(default_factory=dict)
    command: str = ""

    def _add(self, name, kind, x, y=None, labels=None):
        if name in self.series:
            raise ValueError(f"series {name!r} is given twice in one frame")
        entry = {"x": _numbers(name, x)}
        if y is not None:
            entry["y"] = _numbers(name, y)
            expected = len(entry["x"]) - 1 if kind == "hist" else len(entry["x"])
            if len(entry["y"]) != expected:
                raise ValueError(f"series {name!r}: {len(entry['x'])} x values and "
                                 f"{len(entry['y'])} y values (a histogram has one value "
                                 "fewer than edges)")
        if labels is not None:
            entry["labels"] = [str(v) for v in labels]
        self.series[name] = entry
        return self

    def line(self, name, x, y):
        """A curve through the points (x, y) (a law's density)."""
        return self._add(name, "line", x, y)

    def area(self, name, x, y):
        """A filled curve from 0 to y."""
        return self._add(name, "area", x, y)

    def hist(self, name, edges, heights):
        """A histogram: bar k spans edges[k]..edges[k+1] with height heights[k]."""
        return self._add(name, "hist", edges, heights)

    def point(self, name, x, y, labels=None):
        """Markers at (x, y) (outliers, one draw's values), with optional text labels."""
        return self._add(name, "point", x, y, labels=labels)

    def rule(self, name, x, labels=None):
        """Vertical lines at x, with optional labels (an edge, threshold scales)."""
        return self._add(name, "rule", x, labels=labels)

    def readout(self, label, text):
        """A number printed beside the plot: ``label = text``."""
        self.readouts.append([str(label), str(text)])
        return self

    def domain(self, panel, x=None, y=None):
        """The axis ranges of panel ``panel`` (0 is the top one) for this frame."""
        self.domains[str(panel)] = {"x": _numbers("x", x) if x is not None else None,
                                    "y": _numbers("y", y) if y is not None else None}
        return self

    def with_command(self, command):
        """The command that reproduces this frame's numbers (shown as code)."""
        self.command = str(command)
        return self


@dataclass(frozen=True)
class Series:
    """A named series: its kind, panel, colour and legend label."""

    name: str
    kind: str
    label: str
    color: str = "#111111"
    panel: int = 0
    dash: tuple = ()

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"Series {self.name!r}: kind must be one of {KINDS}; "
                             f"got kind={self.kind!r}")


class Explorable:
    """An interactive figure: controls, panels, series, and one frame per position.

    Parameters
    ----------
    name : str
        The figure's id on the page (``exp-03-law``: chapter number first, like figure names).
    controls : sequence of Control
    panels : sequence of Panel
    series : sequence of Series
    frame : callable
        ``frame(**positions)`` returns the :class:`Frame` of one combination of positions
        (called once per combination, in order, when the explorable is built).
    alt : str
        Alt text of the static figure (what it shows, for a screen reader).
    """

    def __init__(self, name, controls, panels, series, frame, *, alt):
        self.name = _check_name("name", name)
        self.controls = tuple(controls)
        self.panels = tuple(panels)
        self.series = tuple(series)
        if not self.controls:
            raise ValueError("an explorable needs at least one control")
        names = [c.name for c in self.controls]
        if len(set(names)) != len(names):
            raise ValueError(f"control names repeat: {names}")
        if not self.panels:
            raise ValueError("an explorable needs at least one panel")
        for s in self.series:
            if not 0 <= s.panel < len(self.panels):
                raise ValueError(f"Series {s.name!r}: panel={s.panel} but there are "
                                 f"{len(self.panels)} panels")
        if not isinstance(alt, str) or not alt.strip():
            raise ValueError("alt must be a non-empty description of the figure")
        self.alt = alt
        self.frames = {}
        known = {s.name for s in self.series}
        for index in itertools.product(*(range(len(c.values)) for c in self.controls)):
            positions = {c.name: c.values[i] for c, i in zip(self.controls, index)}
            result = frame(**positions)
            if not isinstance(result, Frame):
                raise TypeError(f"frame({positions}) returned {type(result).__name__}, "
                                "not a Frame")
            unknown = set(result.series) - known
            if unknown:
                raise ValueError(f"frame({positions}) has series {sorted(unknown)} that are "
                                 f"not declared (declared: {sorted(known)})")
            self.frames[",".join(map(str, index))] = result
        self.data = self._data()
        size = len(self.data)
        if size > MAX_DATA_BYTES:
            raise ValueError(f"explorable {name!r} embeds {size} bytes of data, more than "
                             f"MAX_DATA_BYTES = {MAX_DATA_BYTES}: use fewer positions or points")

    @property
    def default_key(self):
        return ",".join(str(c.values.index(c.default)) for c in self.controls)

    def _data(self):
        spec = {
            "id": self.name,
            "controls": [{"name": c.name, "label": c.label, "slider": c.is_slider,
                          "values": list(c.values),
                          "texts": [c.text(v) for v in c.values],
                          "default": c.values.index(c.default)} for c in self.controls],
            "panels": [vars(p) for p in self.panels],
            "series": [{**vars(s), "dash": list(s.dash)} for s in self.series],
            "frames": {key: {"series": f.series, "readouts": f.readouts,
                             "domains": f.domains, "command": f.command}
                       for key, f in self.frames.items()},
        }
        return json.dumps(spec, separators=(",", ":"), ensure_ascii=False, allow_nan=False)

    # ---- the static figure --------------------------------------------------------------
    def static_figure(self, key=None):
        """A matplotlib figure of one frame (the default position unless ``key`` is given),
        drawn under the book's figure policy (:mod:`attnspec.plotting`)."""
        import matplotlib.pyplot as plt

        from attnspec.plotting import book_style, legend_below, subplots

        frame = self.frames[key or self.default_key]
        with plt.rc_context(book_style()):
            heights = [p.height for p in self.panels]
            fig, axes = subplots(len(self.panels), 1, squeeze=False,
                                 height=sum(heights) / 90 + 0.8,
                                 gridspec_kw={"height_ratios": heights})
            axes = axes[:, 0]
            for s in self.series:
                if s.name in frame.series:
                    _draw(axes[s.panel], s, frame.series[s.name])
            for i, (ax, panel) in enumerate(zip(axes, self.panels)):
                ax.set_xscale(panel.x_scale)
                ax.set_yscale(panel.y_scale)
                ax.set_xlabel(panel.x_title)
                ax.set_ylabel(panel.y_title)
                domain = frame.domains.get(str(i), {})
                if domain.get("x"):
                    ax.set_xlim(*domain["x"])
                if domain.get("y"):
                    ax.set_ylim(*domain["y"])
            legend_below(fig)
            positions = ", ".join(f"{c.label} = {c.text(c.default)}" for c in self.controls)
            axes[0].set_title(positions, loc="left")
        return fig

    def _static_png(self):
        import matplotlib.pyplot as plt

        fig = self.static_figure()
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=200)
        plt.close(fig)
        return buffer.getvalue()

    # ---- the cell output ------------------------------------------------------------------
    def to_html(self, png=None):
        """The page side: a container the book's script fills, with the static figure inside."""
        png = self._static_png() if png is None else png
        data = self.data.replace("</", "<\\/")
        source = base64.b64encode(png).decode()
        return (f'<div class="attnspec-explorable" id="{self.name}">'
                f'<script type="application/json" class="attnspec-explorable-data">{data}'
                f'</script><img class="attnspec-explorable-static" alt="{html.escape(self.alt)}"'
                f' src="data:image/png;base64,{source}"></div>')

    def _repr_mimebundle_(self, include=None, exclude=None):
        png = self._static_png()
        return {"text/html": self.to_html(png), "image/png": base64.b64encode(png).decode(),
                "text/plain": repr(self)}

    def __repr__(self):
        controls = ", ".join(f"{c.name}: {len(c.values)}" for c in self.controls)
        return f"Explorable({self.name!r}, {len(self.frames)} frames; {controls})"


def _draw(ax, series, data):
    """Draw one series of a frame with matplotlib (the static figure)."""
    x = np.array([np.nan if v is None else v for v in data["x"]], dtype=float)
    y = (np.array([np.nan if v is None else v for v in data["y"]], dtype=float)
         if "y" in data else None)
    style = dict(color=series.color, label=series.label)
    if series.dash:
        style["ls"] = (0, tuple(d / 2 for d in series.dash))
    if series.kind == "line":
        ax.plot(x, y, lw=2, **style)
    elif series.kind == "area":
        ax.fill_between(x, 0, y, alpha=0.35, lw=0, **style)
    elif series.kind == "hist":
        ax.stairs(y, x, fill=True, alpha=0.35, **style)
    elif series.kind == "point":
        ax.plot(x, y, "o", ms=5, **style)
    else:
        for k, value in enumerate(x):
            ax.axvline(value, lw=1.2, **{**style, "label": style["label"] if k == 0 else None})
