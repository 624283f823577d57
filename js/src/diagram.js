// A declarative parser config's state machine as SVG, laid out by dagre.
// Python sends `machines` (one graph per StreamingParserEngine: nodes = states,
// edges = transitions on terminals) and `lit` ({role: {state, before, edges}}):
// the state after the selected (or last) row and the transition it took.
import dagre from "@dagrejs/dagre";

const SVG = "http://www.w3.org/2000/svg";
const FONT = 12; // px, monospace: labels are measured as chars * CHAR
const CHAR = FONT * 0.62;
const START = "\u0000start";

function node(tag, attrs, parent) {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, v);
  if (parent) parent.appendChild(n);
  return n;
}

function text(parent, x, y, lines, cls) {
  const t = node("text", { x, y, class: cls, "text-anchor": "middle" }, parent);
  lines.forEach((line, i) => {
    const s = node("tspan", { x, dy: i === 0 ? 0 : "1.25em", class: line.cls || "" }, t);
    s.textContent = line.text;
  });
  return t;
}

function edgeLines(e) {
  // one short line each (terminal, its literal, every event), so labels stay narrow
  const lines = [{ text: e.on, cls: "wb-sd-name" }];
  if (e.literal) lines.push({ text: JSON.stringify(e.literal) });
  for (const ev of e.events) lines.push({ text: "\u21d2 " + ev, cls: "wb-sd-events" });
  return lines;
}

function nodeLines(n) {
  const lines = [{ text: n.id, cls: "wb-sd-name" }];
  if (n.content_event) lines.push({ text: "text \u2192 " + n.content_event, cls: "wb-sd-events" });
  return lines;
}

const width = (lines) => Math.max(...lines.map((l) => l.text.length)) * CHAR;

function path(points) {
  // A smooth line through dagre's points: quadratic curves between midpoints.
  let d = `M${points[0].x},${points[0].y}`;
  for (let i = 1; i < points.length - 1; i++) {
    const p = points[i], q = points[i + 1];
    d += ` Q${p.x},${p.y} ${(p.x + q.x) / 2},${(p.y + q.y) / 2}`;
  }
  const last = points[points.length - 1];
  return d + ` L${last.x},${last.y}`;
}

let ids = 0;

const FIT = { width: 800, height: 640 }; // the box a diagram should fit without shrinking much

function layout(m, rankdir) {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir, nodesep: 20, ranksep: 40, edgesep: 10, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of m.nodes) {
    const lines = nodeLines(n);
    g.setNode(n.id, { width: width(lines) + 24, height: lines.length * FONT * 1.25 + 16, lines });
  }
  g.setNode(START, { width: 12, height: 12 });
  g.setEdge(START, m.initial, { width: 0, height: 0, index: -1 }, "start");
  m.edges.forEach((e, i) => {
    const lines = edgeLines(e);
    g.setEdge(e.from, e.to, {
      width: width(lines) + 8, height: lines.length * FONT * 1.25 + 4, labelpos: "c", lines, index: i,
    }, String(i));
  });
  dagre.layout(g);
  const size = g.graph();
  g.fit = Math.min(1, FIT.width / size.width, FIT.height / size.height);
  return g;
}

function drawMachine(m) {
  // left to right reads best for small machines; top down keeps big ones from getting wide
  const [lr, tb] = [layout(m, "LR"), layout(m, "TB")];
  const g = tb.fit > lr.fit ? tb : lr;
  const { width: w, height: h } = g.graph();
  const id = `wb-sd-${++ids}`;
  const svg = node("svg", {
    class: "wb-sd-svg", viewBox: `0 0 ${w} ${h}`, width: w, height: h, role: "img",
    "aria-label": `state machine of ${m.name}`,
  });
  const defs = node("defs", {}, svg);
  for (const kind of ["", "-lit"]) {
    const mk = node("marker", {
      id: id + kind, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7,
      orient: "auto-start-reverse",
    }, defs);
    node("path", { d: "M0,0 L10,5 L0,10 z", class: "wb-sd-arrow" + kind }, mk);
  }
  const edges = node("g", {}, svg);
  for (const e of g.edges()) {
    const label = g.edge(e);
    const grp = node("g", { class: "wb-sd-edge", "data-edge": label.index, "data-from": e.v, "data-to": e.w }, edges);
    node("path", { d: path(label.points), "marker-end": `url(#${id})`, "data-marker": id }, grp);
    if (label.lines) {
      node("rect", {
        x: label.x - label.width / 2, y: label.y - label.height / 2, width: label.width,
        height: label.height, rx: 3, class: "wb-sd-label-bg",
      }, grp);
      text(grp, label.x, label.y - label.height / 2 + FONT + 1, label.lines, "wb-sd-label");
    }
  }
  const nodes = node("g", {}, svg);
  for (const v of g.nodes()) {
    const n = g.node(v);
    if (v === START) {
      node("circle", { cx: n.x, cy: n.y, r: 5, class: "wb-sd-start" }, nodes);
      continue;
    }
    const grp = node("g", { class: "wb-sd-node", "data-state": v }, nodes);
    node("rect", { x: n.x - n.width / 2, y: n.y - n.height / 2, width: n.width, height: n.height, rx: 7 }, grp);
    text(grp, n.x, n.y - n.height / 2 + 8 + FONT, n.lines, "wb-sd-text");
  }
  return svg;
}

function fit(box, svg) {
  // shrink to the box's width, down to 60%; beyond that the box scrolls
  const [w, h] = [Number(svg.getAttribute("width")), Number(svg.getAttribute("height"))];
  const resize = () => {
    const avail = box.clientWidth - 2;
    if (avail <= 0) return;
    const s = Math.max(0.6, Math.min(1, avail / w));
    svg.setAttribute("width", w * s);
    svg.setAttribute("height", h * s);
  };
  const observer = new ResizeObserver(resize);
  observer.observe(box);
  return observer;
}

function render({ model, el }) {
  el.classList.add("wb-state-diagram");
  const light = () => {
    const lit = model.get("lit") || {};
    for (const block of el.querySelectorAll(".wb-sd-machine")) {
      const l = lit[block.dataset.role] || {};
      for (const n of block.querySelectorAll(".wb-sd-node")) {
        const on = n.dataset.state === l.state;
        n.classList.toggle("wb-sd-lit", on);
        n.classList.toggle("wb-sd-before", !on && n.dataset.state === l.before);
        n.setAttribute("data-lit", String(on));
      }
      const taken = new Set((l.edges || []).map(String));
      for (const e of block.querySelectorAll(".wb-sd-edge")) {
        const on = taken.has(e.dataset.edge);
        e.classList.toggle("wb-sd-lit", on);
        e.querySelector("path").setAttribute("marker-end", `url(#${e.querySelector("path").dataset.marker}${on ? "-lit" : ""})`);
      }
      const now = block.querySelector(".wb-sd-now");
      now.textContent = l.state ? `now: ${l.state}${l.step ? ` (after step ${l.step})` : ""}` : "not started: Step to light the current state";
    }
  };
  let observers = [];
  const draw = () => {
    observers.forEach((o) => o.disconnect());
    observers = [];
    el.replaceChildren();
    const message = model.get("message");
    if (message) {
      const p = document.createElement("div");
      p.className = "wb-sd-message";
      p.textContent = message;
      el.appendChild(p);
    }
    for (const m of model.get("machines") || []) {
      const block = document.createElement("div");
      block.className = "wb-sd-machine";
      block.dataset.role = m.role;
      const head = document.createElement("div");
      head.className = "wb-sd-head";
      const title = document.createElement("b");
      title.textContent = `${m.role}: ${m.name}`;
      const facts = document.createElement("span");
      facts.textContent = ` \u00b7 ${m.nodes.length} states, ${m.edges.length} transitions \u00b7 `;
      const now = document.createElement("span");
      now.className = "wb-sd-now";
      head.append(title, facts, now);
      const scroll = document.createElement("div");
      scroll.className = "wb-sd-scroll";
      const svg = drawMachine(m);
      scroll.appendChild(svg);
      observers.push(fit(scroll, svg));
      block.append(head, scroll);
      el.appendChild(block);
    }
    if ((model.get("machines") || []).length) {
      const legend = document.createElement("div");
      legend.className = "wb-sd-legend";
      legend.innerHTML = '<span class="wb-sd-key wb-sd-key-lit"></span> the state after the selected row (else the last)'
        + ' \u00b7 <span class="wb-sd-key wb-sd-key-before"></span> the state before it'
        + ' \u00b7 <b>bold arrow</b>: the transition it took \u00b7 \u25cf start';
      el.appendChild(legend);
    }
    light();
  };
  model.on("change:machines", draw);
  model.on("change:message", draw);
  model.on("change:lit", light);
  draw();
  return () => {
    observers.forEach((o) => o.disconnect());
    model.off("change:machines", draw);
    model.off("change:message", draw);
    model.off("change:lit", light);
  };
}

export default { render };
