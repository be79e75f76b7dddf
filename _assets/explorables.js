// attnspec book: the interactive figures (attnspec.book.explorables). Every number shown comes
// from the data the chapter computed when the book was built, embedded in the page; this script
// only picks the frame of the current slider positions and hands it to Vega-Lite (vendored in
// _static/vega/, loaded only on pages that have an interactive figure). Without JavaScript,
// and in print, the static figure inside the same box shows instead.
(function () {
  "use strict";
  const registry = (window.attnspecExplorables = {});
  const script = document.currentScript && document.currentScript.src;
  const STATIC = script ? script.slice(0, script.lastIndexOf("/") + 1) : "_static/";
  let vegaLoaded = null;

  function load(src) {
    return new Promise((resolve, reject) => {
      const tag = document.createElement("script");
      tag.src = src;
      tag.onload = resolve;
      tag.onerror = () => reject(new Error("could not load " + src));
      document.head.appendChild(tag);
    });
  }

  function loadVega() {
    vegaLoaded = vegaLoaded || load(STATIC + "vega/vega.min.js")
      .then(() => load(STATIC + "vega/vega-lite.min.js"));
    return vegaLoaded;
  }

  // The rows Vega-Lite draws for one frame: one row per point, bar, rule or label.
  function rows(spec, key) {
    const frame = spec.frames[key];
    const out = [];
    spec.series.forEach((s) => {
      const d = frame.series[s.name];
      if (!d) return;
      const base = { series: s.label, name: s.name, panel: s.panel, kind: s.kind };
      d.x.forEach((x, i) => {
        if (s.kind === "hist") {
          if (i < d.y.length) out.push({ ...base, x: x, x2: d.x[i + 1], y: d.y[i] });
        } else {
          out.push({ ...base, x: x, y: d.y ? d.y[i] : null, order: i,
                     label: d.labels ? d.labels[i] : "" });
        }
      });
    });
    return out;
  }

  function layer(p, kind, mark, encoding) {
    return { transform: [{ filter: `datum.panel == ${p} && datum.kind == '${kind}'` }],
             mark: { clip: true, ...mark }, encoding: encoding };
  }

  function panelSpec(spec, p, width) {
    const panel = spec.panels[p];
    const series = spec.series.filter((s) => s.panel === p);
    const domainOf = (axis) => spec.frames[spec.defaultKey].domains[p] &&
      spec.frames[spec.defaultKey].domains[p][axis]
      ? [{ expr: `${axis}0_${p}` }, { expr: `${axis}1_${p}` }] : undefined;
    const scale = (type, domain) => (type === "log" ? { type: type, domain: domain }
      : { type: type, domain: domain, zero: false, nice: false });
    const x = { field: "x", type: "quantitative", title: panel.x_title,
                scale: scale(panel.x_scale, domainOf("x")) };
    const y = { field: "y", type: "quantitative", title: panel.y_title,
                scale: scale(panel.y_scale, domainOf("y")) };
    // colour and dash share one legend (same field, same domain, same legend settings)
    const legend = { orient: "bottom", direction: "horizontal", columns: 2,
                     symbolType: "stroke", labelLimit: width };
    const domain = series.map((s) => s.label);
    const color = { field: "series", type: "nominal", title: null, legend: legend,
                    scale: { domain: domain, range: series.map((s) => s.color) } };
    const dash = { field: "series", type: "nominal", title: null, legend: legend,
                   scale: { domain: domain,
                            range: series.map((s) => (s.dash.length ? s.dash : [1, 0])) } };
    const layers = [];
    const kinds = new Set(series.map((s) => s.kind));
    if (kinds.has("hist")) {
      layers.push(layer(p, "hist", { type: "rect", opacity: 0.4 },
        { x: x, x2: { field: "x2" }, y: y, y2: { datum: 0 }, color: color }));
    }
    if (kinds.has("area")) {
      layers.push(layer(p, "area", { type: "area", opacity: 0.35 },
        { x: x, y: y, order: { field: "order" }, color: color }));
    }
    if (kinds.has("line")) {
      layers.push(layer(p, "line", { type: "line", strokeWidth: 2 },
        { x: x, y: y, order: { field: "order" }, color: color, strokeDash: dash,
          detail: { field: "series" } }));
    }
    if (kinds.has("point")) {
      layers.push(layer(p, "point", { type: "point", filled: true, size: 45 },
        { x: x, y: y, color: color }));
      layers.push(layer(p, "point", { type: "text", align: "left", dx: 6, fontSize: 12 },
        { x: x, y: y, text: { field: "label" } }));
    }
    if (kinds.has("rule")) {
      layers.push(layer(p, "rule", { type: "rule", strokeWidth: 1.5 },
        { x: x, color: color, strokeDash: dash }));
    }
    return { width: width, height: panel.height, layer: layers };
  }

  function vegaLiteSpec(spec, width) {
    const params = [];
    const domains = spec.frames[spec.defaultKey].domains;
    Object.keys(domains).forEach((p) => ["x", "y"].forEach((axis) => {
      if (domains[p][axis]) {
        params.push({ name: `${axis}0_${p}`, value: domains[p][axis][0] });
        params.push({ name: `${axis}1_${p}`, value: domains[p][axis][1] });
      }
    }));
    return {
      $schema: "https://vega.github.io/schema/vega-lite/v6.json",
      data: { name: "rows" },
      params: params,
      vconcat: spec.panels.map((_, p) => panelSpec(spec, p, width)),
      resolve: { scale: { color: "independent", strokeDash: "independent",
                          x: "independent", y: "independent" } },
      config: { font: "system-ui, sans-serif",
                axis: { labelFontSize: 12, titleFontSize: 13, labelOverlap: "greedy" },
                legend: { labelFontSize: 12 }, view: { stroke: null } },
    };
  }

  function controls(box, spec, onChange) {
    const form = document.createElement("div");
    form.className = "attnspec-explorable-controls";
    spec.controls.forEach((c, k) => {
      const label = document.createElement("label");
      const name = document.createElement("span");
      name.className = "attnspec-explorable-label";
      name.textContent = c.label + " = ";
      const shown = document.createElement("output");
      shown.textContent = c.texts[c.default];
      let input;
      if (c.slider) {
        input = document.createElement("input");
        Object.assign(input, { type: "range", min: 0, max: c.values.length - 1, step: 1,
                               value: c.default });
        input.setAttribute("aria-valuetext", c.texts[c.default]);
      } else {
        input = document.createElement("select");
        c.texts.forEach((t, i) => input.add(new Option(t, i, i === c.default, i === c.default)));
      }
      input.dataset.control = c.name;
      input.addEventListener("input", () => {
        const i = Number(input.value);
        shown.textContent = c.texts[i];
        input.setAttribute("aria-valuetext", c.texts[i]);
        onChange(k, i);
      });
      name.appendChild(shown);
      label.append(name, input);
      form.appendChild(label);
    });
    box.insertBefore(form, box.firstChild);
  }

  function readout(box, frame) {
    const list = box.querySelector(".attnspec-explorable-readout");
    list.replaceChildren(...frame.readouts.map(([label, text]) => {
      const item = document.createElement("span");
      item.append(label + " = ");
      const value = document.createElement("b");
      value.textContent = text;
      item.appendChild(value);
      return item;
    }));
    const command = box.querySelector(".attnspec-explorable-command");
    command.hidden = !frame.command;
    command.querySelector("code").textContent = frame.command;
  }

  async function render(box) {
    const spec = JSON.parse(box.querySelector(".attnspec-explorable-data").textContent);
    const position = spec.controls.map((c) => c.default);
    spec.defaultKey = position.join(",");
    const plot = document.createElement("div");
    plot.className = "attnspec-explorable-plot";
    const out = document.createElement("p");
    out.className = "attnspec-explorable-readout";
    out.setAttribute("aria-live", "polite");
    const command = document.createElement("p");
    command.className = "attnspec-explorable-command";
    command.append("Reproduce: ", document.createElement("code"));
    box.append(plot, out, command);
    let view = null;
    let width = 0;
    const key = () => position.join(",");
    const show = () => {
      const frame = spec.frames[key()];
      Object.entries(frame.domains).forEach(([p, d]) => ["x", "y"].forEach((axis) => {
        if (d[axis]) {
          view.signal(`${axis}0_${p}`, d[axis][0]);
          view.signal(`${axis}1_${p}`, d[axis][1]);
        }
      }));
      view.change("rows", vega.changeset().remove(() => true).insert(rows(spec, key())));
      readout(box, frame);
      return view.runAsync();
    };
    const build = async () => {
      width = Math.max(200, Math.min(plot.clientWidth || box.clientWidth, 760) - 150);
      if (view) view.finalize();
      const compiled = vegaLite.compile(vegaLiteSpec(spec, width)).spec;
      view = new vega.View(vega.parse(compiled), { renderer: "svg", container: plot,
                                                   hover: false });
      await show();
      box.classList.add("attnspec-explorable-ready");
    };
    controls(box, spec, (k, i) => { position[k] = i; show(); });
    await build();
    let pending = null;
    window.addEventListener("resize", () => {
      clearTimeout(pending);
      pending = setTimeout(() => {
        const wanted = Math.max(200, Math.min(plot.clientWidth, 760) - 150);
        if (Math.abs(wanted - width) > 20) build();
      }, 200);
    });
    registry[box.id] = {
      spec: spec,
      position: () => position.slice(),
      frame: () => spec.frames[key()],
      view: () => view,
      plotted: (name) => view.data("rows").filter((r) => r.name === name),
    };
  }

  function start() {
    const boxes = document.querySelectorAll(".attnspec-explorable");
    if (!boxes.length) return;
    loadVega().then(() => Promise.all([...boxes].map((box) => render(box).catch((error) => {
      box.classList.add("attnspec-explorable-failed");
      console.error(`interactive figure ${box.id}: ${error.message}`);
    })))).catch((error) => console.error(error.message));
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
