// A table of records, with an optional token strip and cost chart (an anywidget ES module).
//
// Generic: Python sends the column schema as the synced `columns` trait ({name, title,
// description, kind, width, grow} each, workbench/core/rows.py) and the records as
// {kind: "reset" | "rows", start, rows} custom messages, only the new ones per Step. A
// record holds one value per column name, its row's CSS classes in `_c`, and what the
// strip and chart read (`_k` colour kind, `_sse`, `_sc` state change, `_us`, `_sp`
// special-token indexes). The table puts only the rows in view into the DOM
// (virtualised), so 100,000 rows scroll as smoothly as 26. Selection is the synced
// `selected` trait (the `key` column's value; 0: none), set by clicks and j/k/arrows.
// `features` turns on the "strip" and "cost" pictures; `legend` is [[class, label], ...].

const ROW_H = 22;
const OVERSCAN = 8;
const STRIP_LINES = 4;
const COST_H = 36;
const WS = { " ": "␣", "\n": "⏎", "\t": "⇥", "\r": "␍" };
const ESC = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };

const esc = (s) => s.replace(/[&<>"]/g, (c) => ESC[c]);
const plain = (s) => s.replace(/[ \n\t\r]/g, (c) => WS[c]);

/** A value as HTML: whitespace visible, None blank, "" as a visible "" mark. */
function shown(v) {
  if (v === undefined || v === null) return "";
  const s = String(v);
  if (s === "") return '<span class="wb-empty">""</span>';
  return esc(s).replace(/[ \n\t\r]+/g, (m) => `<span class="wb-ws">${plain(m)}</span>`);
}

/** The text a cell's tooltip and the strip's hover show. */
function textOf(v) {
  if (v === undefined || v === null) return "None";
  return plain(Array.isArray(v) ? v.join(" | ") : String(v));
}

/** One cell's HTML, drawn by its column's kind: text, tokens, label or number. */
function cellHTML(r, col) {
  const v = r[col.name];
  if (col.kind === "tokens") {
    const sp = r._sp || [];
    return (v || []).map((t, i) =>
      `<span class="wb-tok${sp.includes(i) ? " wb-tok-special" : ""}">${shown(t)}</span>`).join("");
  }
  if (col.kind === "text") return shown(v);
  return v === undefined || v === null ? "" : esc(String(v));
}

/** The rows both pictures share: records, and which record each token belongs to. */
class Store {
  constructor() { this.clear(); }
  clear() {
    this.rows = [];
    this.tokRow = []; // token index -> row index
    this.maxUs = 0;
  }
  add(rs, tokens) {
    for (const r of rs) {
      const i = this.rows.length;
      this.rows.push(r);
      const toks = tokens ? r[tokens] || [] : [];
      for (let t = 0; t < toks.length; t++) this.tokRow.push(i);
      if ((r._us || 0) > this.maxUs) this.maxUs = r._us;
    }
  }
}

// -- the table ----------------------------------------------------------------------
class Table {
  constructor(el, model, store, pick) {
    this.model = model;
    this.store = store;
    this.following = true;
    this.drawn = "";
    el.insertAdjacentHTML("beforeend", `<div class="wb-caption" aria-live="polite">no rows yet</div>
      <div class="wb-scroll" tabindex="0" role="grid" data-lm-suppress-shortcuts="true">
      <div class="wb-head" role="row" aria-rowindex="1"></div><div class="wb-body"></div></div>`);
    this.el = el;
    this.scroll = el.querySelector(".wb-scroll");
    this.head = el.querySelector(".wb-head");
    this.body = el.querySelector(".wb-body");
    this.caption = el.querySelector(".wb-caption");
    this.captionExtra = () => "";
    this.scroll.addEventListener("scroll", () => {
      const s = this.scroll;
      this.following = s.scrollTop + s.clientHeight >= s.scrollHeight - ROW_H / 2;
      this.render();
    });
    this.body.addEventListener("click", (e) => {
      const row = e.target.closest("[data-row]");
      if (row) pick(Number(row.dataset.row));
    });
    this.scroll.addEventListener("keydown", (e) => this.key(e, pick));
  }

  get cols() { return this.model.get("columns"); }
  get keyName() { return this.model.get("key"); }
  selectedIndex() {
    const sel = this.model.get("selected") || 0;
    if (!sel) return -1;
    const k = this.keyName;
    const rows = this.store.rows;
    const i = sel - 1; // keys are 1..n in order, so look there first
    if (i < rows.length && rows[i][k] === sel) return i;
    return rows.findIndex((r) => r[k] === sel);
  }

  layout() {
    const cs = this.cols;
    this.el.style.setProperty("--wb-cols", cs.map((c) =>
      (c.grow ? `minmax(${c.width}px, ${c.grow}fr)` : `${c.width}px`)).join(" "));
    this.el.style.setProperty("--wb-minw", `${cs.reduce((a, c) => a + c.width, 0)}px`);
    this.head.innerHTML = cs.map((c) => `<div class="wb-cell wb-c-${c.name}" role="columnheader" ` +
      `title="${esc(c.description || "")}">${esc(c.title)}</div>`).join("");
    this.drawn = "";
  }

  rowHTML(r, i, selected) {
    const cells = this.cols.map((c) =>
      `<div class="wb-cell wb-c-${c.name}" role="gridcell" title="${esc(textOf(r[c.name]).slice(0, 400))}">` +
      `${cellHTML(r, c)}</div>`);
    const k = this.keyName;
    return `<div class="wb-row ${r._c || ""}" role="row" data-row="${i}" data-${k}="${esc(String(r[k]))}" ` +
      `aria-selected="${selected}" aria-rowindex="${i + 2}" style="top:${i * ROW_H}px">${cells.join("")}</div>`;
  }

  render() {
    const rows = this.store.rows;
    const n = rows.length;
    const s = this.scroll;
    this.body.style.height = `${n * ROW_H}px`;
    // as tall as the rows, up to `height` (then it scrolls); never under four rows
    s.style.height = `${Math.min(this.model.get("height"), (Math.max(n, 4) + 1) * ROW_H + 4)}px`;
    const first = Math.max(0, Math.floor(s.scrollTop / ROW_H) - OVERSCAN);
    const last = Math.min(n, Math.ceil((s.scrollTop + s.clientHeight) / ROW_H) + OVERSCAN);
    const sel = this.selectedIndex();
    const key = `${first}:${last}:${n}:${sel}`;
    if (key === this.drawn) return;
    this.drawn = key;
    let html = "";
    for (let i = first; i < last; i++) html += this.rowHTML(rows[i], i, i === sel);
    this.body.innerHTML = html;
    s.setAttribute("aria-rowcount", String(n + 1));
    const selKey = this.model.get("selected");
    this.caption.textContent = n === 0 ? "no rows yet" : `${n} rows` + this.captionExtra() +
      (sel >= 0 ? ` · ${this.keyName} ${selKey} selected` : "");
  }

  appended(atBottom) {
    this.render();
    const s = this.scroll;
    if (atBottom && s.scrollTop + s.clientHeight < s.scrollHeight) {
      s.scrollTop = s.scrollHeight;
      this.render();
    }
  }

  ensureVisible(i) {
    if (i < 0) return;
    const s = this.scroll;
    const y = i * ROW_H;
    const view = s.clientHeight - ROW_H;
    if (y < s.scrollTop) s.scrollTop = y;
    else if (y + ROW_H > s.scrollTop + view) s.scrollTop = y + ROW_H - view;
  }

  key(e, pick) {
    const n = this.store.rows.length;
    const page = Math.max(1, Math.floor(this.scroll.clientHeight / ROW_H) - 2);
    const moves = { j: 1, ArrowDown: 1, k: -1, ArrowUp: -1, PageDown: page, PageUp: -page };
    const cur = this.selectedIndex();
    let next = null;
    if (e.key in moves) next = cur >= 0 ? cur + moves[e.key] : (moves[e.key] > 0 ? 0 : n - 1);
    else if (e.key === "Home") next = 0;
    else if (e.key === "End") next = n - 1;
    if (next === null || !n) return;
    e.preventDefault();
    e.stopPropagation();
    pick(Math.max(0, Math.min(n - 1, next)));
  }

  focus() { this.scroll.focus({ preventScroll: true }); }
}

// -- the pictures ---------------------------------------------------------------------
function colours(el) {
  const s = getComputedStyle(el);
  const v = (name) => s.getPropertyValue(name).trim();
  return { reasoning: v("--wb-reasoning"), content: v("--wb-content"), tool: v("--wb-tool"),
    error: v("--wb-error"), other: v("--wb-other"), fg: v("--wb-fg"), bg: v("--wb-bg"),
    sel: v("--wb-select"), font: v("--wb-font") };
}
const colourOf = (C, r) => C[r._k] || C.other;

function canvasSize(c, w, h) {
  const dpr = window.devicePixelRatio || 1;
  c.style.width = `${w}px`;
  c.style.height = `${h}px`;
  c.width = Math.max(1, Math.round(w * dpr));
  c.height = Math.max(1, Math.round(h * dpr));
  const ctx = c.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return ctx;
}

/** One cell per token (or per k tokens), coloured by phase, pale without a chunk. */
class Strip {
  constructor(canvas, store, tokens) {
    this.canvas = canvas;
    this.store = store;
    this.tokens = tokens;
    this.geom = null;
  }

  draw(C, W, sel) {
    const { rows, tokRow } = this.store;
    const n = tokRow.length;
    const canvas = this.canvas;
    if (!n || W <= 0) { canvasSize(canvas, Math.max(W, 1), 1); this.geom = null; return; }
    let k = 1;
    let cw = Math.min(44, Math.floor((W * STRIP_LINES) / n));
    if (cw < 3) { cw = 3; k = Math.ceil((3 * n) / (W * STRIP_LINES)); }
    const cells = Math.ceil(n / k);
    const perLine = Math.max(1, Math.floor(W / cw));
    const lineH = cw >= 16 ? 18 : 10;
    const ctx = canvasSize(canvas, W, Math.ceil(cells / perLine) * lineH);
    ctx.font = `10px ${C.font}`;
    ctx.textBaseline = "middle";
    for (let j = 0; j < cells; j++) {
      const t0 = j * k;
      const t1 = Math.min(n, t0 + k);
      const r = rows[tokRow[t1 - 1]];
      const x = (j % perLine) * cw;
      const y = Math.floor(j / perLine) * lineH;
      const w = cw - (cw > 4 ? 1 : 0);
      ctx.fillStyle = colourOf(C, r);
      ctx.globalAlpha = r._sse ? 0.5 : 0.12; // chunk: filled; no chunk: pale and outlined
      ctx.fillRect(x, y + 1, w, lineH - 2);
      ctx.globalAlpha = 1;
      if (!r._sse && cw > 4) { ctx.strokeStyle = ctx.fillStyle; ctx.lineWidth = 1; ctx.strokeRect(x + 0.5, y + 1.5, w - 1, lineH - 3); }
      let mark = false;
      let isSel = false;
      for (let t = t0; t < t1; t++) {
        if (rows[tokRow[t]]._sc && (t === 0 || tokRow[t - 1] !== tokRow[t])) mark = true;
        if (tokRow[t] === sel) isSel = true;
      }
      if (mark) { ctx.fillStyle = C.fg; ctx.fillRect(x, y, 2, lineH); }
      if (isSel) { ctx.strokeStyle = C.sel; ctx.lineWidth = 2; ctx.strokeRect(x + 1, y + 1, cw - 2, lineH - 2); }
      if (cw >= 16 && k === 1) {
        const idx = t0 - tokRow.indexOf(tokRow[t0]); // this token's place in its row
        ctx.save();
        ctx.beginPath();
        ctx.rect(x + 2, y, cw - 4, lineH);
        ctx.clip();
        ctx.fillStyle = C.fg;
        ctx.fillText(plain(String((r[this.tokens] || [])[idx] ?? "")), x + 3, y + lineH / 2);
        ctx.restore();
      }
    }
    this.geom = { k, cw, perLine, lineH, n };
  }

  /** The row index under the mouse, or -1. */
  at(e) {
    const g = this.geom;
    if (!g) return -1;
    const b = this.canvas.getBoundingClientRect();
    const col = Math.floor((e.clientX - b.left) / g.cw);
    const line = Math.floor((e.clientY - b.top) / g.lineH);
    if (col >= g.perLine) return -1;
    const t = (line * g.perLine + col) * g.k;
    return t < g.n ? this.store.tokRow[t] : -1;
  }
}

/** The parser's time per delta as bars, scaled to the 95th percentile. */
class CostChart {
  constructor(canvas, label, store) {
    this.canvas = canvas;
    this.label = label;
    this.store = store;
    this.geom = null;
    this.clear();
  }

  clear() { this.top = { n: 0, top: 1 }; } // the scale, recomputed as the stream grows by 2%

  draw(C, W, sel) {
    const { rows, maxUs } = this.store;
    const n = rows.length;
    const canvas = this.canvas;
    if (!n || W <= 0) { canvasSize(canvas, Math.max(W, 1), 1); this.geom = null; return; }
    const k = Math.max(1, Math.ceil(n / W));
    const bars = Math.ceil(n / k);
    const bw = Math.min(12, W / bars);
    const ctx = canvasSize(canvas, W, COST_H);
    // one slow first call must not flatten every other bar
    if (n < this.top.n || n > this.top.n * 1.02) {
      const sorted = Float64Array.from(rows, (r) => r._us || 0).sort();
      this.top = { n, top: Math.max(sorted[Math.floor(0.95 * (n - 1))] * 1.25, 1) };
    }
    const top = this.top.top;
    const scale = (COST_H - 3) / top;
    for (let j = 0; j < bars; j++) {
      let best = j * k;
      let hasSel = false;
      for (let i = j * k; i < Math.min(n, (j + 1) * k); i++) {
        if ((rows[i]._us || 0) > (rows[best]._us || 0)) best = i;
        if (i === sel) hasSel = true;
      }
      const r = rows[best];
      const h = Math.min(COST_H, Math.max(1, (r._us || 0) * scale));
      const w = Math.max(1, bw - (bw > 3 ? 1 : 0));
      ctx.globalAlpha = r._sse ? 0.9 : 0.45;
      ctx.fillStyle = hasSel ? C.sel : colourOf(C, r);
      ctx.fillRect(j * bw, COST_H - h, w, h);
      ctx.globalAlpha = 1;
      if (h === COST_H) { ctx.fillStyle = C.fg; ctx.fillRect(j * bw, 0, w, 2); } // off the scale
    }
    this.geom = { k, bw, n };
    this.label.textContent = `parser µs\n0–${top.toFixed(0)}`;
    this.label.title = `bar height: parser time per delta, 0 to ${top.toFixed(0)} µs; ` +
      `capped bars are slower (the slowest: ${maxUs.toFixed(0)} µs)`;
  }

  at(e) {
    const g = this.geom;
    if (!g) return -1;
    const i = Math.floor((e.clientX - this.canvas.getBoundingClientRect().left) / g.bw) * g.k;
    return i < g.n ? i : -1;
  }
}

// -- the widget -----------------------------------------------------------------------
function legendHTML(legend) {
  if (!legend || !legend.length) return "";
  const keys = legend.map(([cls, label]) => `<span class="wb-key ${esc(cls)}">${esc(label)}</span>`).join("");
  return `<div class="wb-legend">${keys}<span class="wb-hint"><span class="wb-ws">␣⏎⇥</span> whitespace · ` +
    `blank = None · <span class="wb-empty">""</span> = empty string · click, j/k or ↑/↓ select</span></div>`;
}

function render({ model, el }) {
  const store = new Store();
  const features = model.get("features") || [];
  const tokens = (model.get("columns").find((c) => c.kind === "tokens") || {}).name || "tokens";
  el.classList.add("wb-dt");
  el.innerHTML = legendHTML(model.get("legend"));
  let strip = null;
  let chart = null;
  let pics = null;
  if (features.includes("strip") || features.includes("cost")) {
    el.insertAdjacentHTML("beforeend", '<div class="wb-pics"></div>');
    pics = el.querySelector(".wb-pics");
    if (features.includes("strip")) {
      pics.insertAdjacentHTML("beforeend", '<span class="wb-pic-label">tokens</span><canvas class="wb-strip"></canvas>');
      strip = new Strip(pics.querySelector(".wb-strip"), store, tokens);
    }
    if (features.includes("cost")) {
      pics.insertAdjacentHTML("beforeend", '<span class="wb-pic-label wb-cost-label">parser µs</span>' +
        '<canvas class="wb-cost"></canvas>');
      chart = new CostChart(pics.querySelector(".wb-cost"), pics.querySelector(".wb-cost-label"), store);
    }
  }

  const select = (i) => {
    const rows = store.rows;
    if (i < 0 || i >= rows.length) return;
    model.set("selected", rows[i][model.get("key")]);
    model.save_changes();
  };
  const table = new Table(el, model, store, (i) => { select(i); table.focus(); });
  if (strip) table.captionExtra = () => ` · ${store.tokRow.length} tokens`;

  let queued = false;
  const drawPics = () => {
    queued = false;
    const W = Math.max(0, pics.clientWidth - 80);
    const C = colours(el);
    const sel = table.selectedIndex();
    if (strip) strip.draw(C, W, sel);
    if (chart) chart.draw(C, W, sel);
  };
  const queuePics = () => {
    if (pics && !queued) { queued = true; requestAnimationFrame(drawPics); }
  };
  const pickFrom = (pic) => (e) => {
    const i = pic.at(e);
    if (i >= 0) { select(i); table.focus(); } // so j/k go on from there
  };
  if (strip) {
    strip.canvas.addEventListener("click", pickFrom(strip));
    strip.canvas.addEventListener("mousemove", (e) => {
      const i = strip.at(e);
      const r = store.rows[i];
      strip.canvas.title = i >= 0 ? `${model.get("key")} ${r[model.get("key")]}: ${textOf(r[tokens])}` +
        (r.phase ? ` (${r.phase})` : "") : "";
    });
  }
  if (chart) {
    chart.canvas.addEventListener("click", pickFrom(chart));
    chart.canvas.addEventListener("mousemove", (e) => {
      const i = chart.at(e);
      if (i >= 0) chart.canvas.title = `${model.get("key")} ${store.rows[i][model.get("key")]}: ` +
        `${(store.rows[i]._us || 0).toFixed(0)} µs`;
    });
  }

  const append = (rs) => {
    const atBottom = table.following;
    store.add(rs, strip ? tokens : null);
    table.appended(atBottom);
    queuePics();
  };
  const onMessage = (msg) => {
    if (msg.kind === "reset") {
      store.clear();
      if (chart) chart.clear();
      table.drawn = "";
      table.following = !model.get("selected"); // a selected row stays in view, else the end does
      append(msg.rows);
      if (!table.following) onSelected();
    } else if (msg.kind === "rows") {
      if (msg.start === store.rows.length) append(msg.rows);
      else if (msg.start > store.rows.length) model.send({ kind: "hello" }); // missed some: ask again
    }
  };
  const onSelected = () => { table.ensureVisible(table.selectedIndex()); table.drawn = ""; table.render(); queuePics(); };
  const onColumns = () => { table.layout(); table.render(); };
  model.on("msg:custom", onMessage);
  model.on("change:selected", onSelected);
  model.on("change:columns", onColumns);
  model.on("change:height", onColumns);

  const resized = new ResizeObserver(() => { table.drawn = ""; table.render(); queuePics(); });
  resized.observe(table.scroll);
  if (pics) resized.observe(pics);
  const themed = new MutationObserver(queuePics); // JupyterLab's theme switch: canvases redraw
  themed.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-name"] });

  table.layout();
  table.render();
  model.send({ kind: "hello" });
  return () => {
    resized.disconnect();
    themed.disconnect();
    model.off("msg:custom", onMessage);
    model.off("change:selected", onSelected);
    model.off("change:columns", onColumns);
    model.off("change:height", onColumns);
  };
}

export default { render };
