// The workbench's delta table, token strip and parser-cost chart (an anywidget ES module).
//
// Python sends {kind: "reset" | "rows", start, rows} custom messages: one record per
// delta, only the new ones per Step. The view keeps the records and puts only the rows
// in view into the DOM (virtualised), so 100,000 rows scroll as smoothly as 26.
// Selection is the synced `selected` trait (0: none), set by clicks and j/k/arrows.

const ROW_H = 22;
const OVERSCAN = 8;
const STRIP_LINES = 4;
const COST_H = 36;
const WIDTHS = {
  step: [40, "40px"], tokens: [96, "minmax(96px, 1.4fr)"], text: [72, "minmax(72px, 1fr)"],
  phase: [140, "140px"], reasoning: [72, "minmax(72px, 1.3fr)"],
  content: [72, "minmax(72px, 1.3fr)"], tool_calls: [96, "minmax(96px, 2fr)"],
  sse: [46, "46px"], finish: [64, "minmax(64px, 84px)"], grammar: [110, "minmax(110px, 1.3fr)"],
  error: [90, "minmax(90px, 1.2fr)"],
};
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

const phaseOf = (r) =>
  r.phase_before && r.phase_before !== r.phase ? `${r.phase_before}→${r.phase}` : r.phase;

const VALUE = {
  step: (r) => r.step,
  tokens: (r) => (r.tokens || []).join(""),
  text: (r) => r.text, phase: phaseOf, reasoning: (r) => r.reasoning, content: (r) => r.content,
  tool_calls: (r) => r.tool_calls, sse: (r) => (r.sse ? "chunk" : "none"),
  finish: (r) => r.finish, grammar: (r) => r.grammar, error: (r) => r.error,
};

function cellHTML(r, c) {
  if (c === "tokens") {
    const sp = r.special || [];
    return (r.tokens || []).map((t, i) =>
      `<span class="wb-tok${sp.includes(i) ? " wb-tok-special" : ""}">${shown(t)}</span>`).join("");
  }
  if (c === "step" || c === "phase" || c === "sse") return esc(String(VALUE[c](r)));
  return shown(VALUE[c](r));
}

function rowHTML(r, i, cols, selected) {
  const cls = ["wb-row", `ph-${r.error ? "error" : r.phase}`];
  if (!r.sse) cls.push("no-sse");
  if (r.state_change) cls.push("sc");
  if (r.changed) cls.push("changed");
  const cells = cols.map((c) => {
    const v = VALUE[c](r);
    const title = v === undefined || v === null ? "None" : plain(String(v)).slice(0, 400);
    return `<div class="wb-cell wb-c-${c}" role="gridcell" title="${esc(title)}">${cellHTML(r, c)}</div>`;
  });
  return `<div class="${cls.join(" ")}" role="row" data-step="${r.step}" aria-selected="${selected}" ` +
    `aria-rowindex="${i + 2}" ` +
    `style="top:${i * ROW_H}px">${cells.join("")}</div>`;
}

const LEGEND = `
  <span class="wb-key ph-reasoning">reasoning</span><span class="wb-key ph-content">content</span>
  <span class="wb-key ph-tool">tool</span><span class="wb-key ph-reasoning no-sse">no SSE chunk</span>
  <span class="wb-key ph-error">parser raised</span><span class="wb-key sc">phase/state change</span>
  <span class="wb-key changed">changed by the last replay</span>
  <span class="wb-hint"><span class="wb-ws">␣⏎⇥</span> whitespace · blank = None ·
  <span class="wb-empty">""</span> = empty string · click, j/k or ↑/↓ select</span>`;

function render({ model, el }) {
  const rows = [];
  const tokRow = []; // token index -> row index
  let maxUs = 0;
  let changedCount = 0;
  let costTop = { n: 0, top: 1 }; // the chart's scale, recomputed as the stream grows by 2%
  let following = true;
  let drawn = "";
  let picsQueued = false;

  el.classList.add("wb-dt");
  el.innerHTML = `<div class="wb-legend">${LEGEND}</div>
    <div class="wb-pics"><span class="wb-pic-label">tokens</span><canvas class="wb-strip"></canvas>
    <span class="wb-pic-label wb-cost-label">parser µs</span><canvas class="wb-cost"></canvas></div>
    <div class="wb-caption" aria-live="polite">no rows yet</div>
    <div class="wb-scroll" tabindex="0" role="grid" data-lm-suppress-shortcuts="true">
    <div class="wb-head" role="row" aria-rowindex="1"></div><div class="wb-body"></div></div>`;
  const scroll = el.querySelector(".wb-scroll");
  const head = el.querySelector(".wb-head");
  const body = el.querySelector(".wb-body");
  const caption = el.querySelector(".wb-caption");
  const strip = el.querySelector(".wb-strip");
  const cost = el.querySelector(".wb-cost");
  const pics = el.querySelector(".wb-pics");
  const costLabel = el.querySelector(".wb-cost-label");
  let stripGeom = null;
  let costGeom = null;

  const cols = () => model.get("columns");
  const selected = () => model.get("selected") || 0;

  function layout() {
    const cs = cols();
    el.style.setProperty("--wb-cols", cs.map((c) => (WIDTHS[c] || [80, "80px"])[1]).join(" "));
    el.style.setProperty("--wb-minw", `${cs.reduce((a, c) => a + (WIDTHS[c] || [80])[0], 0)}px`);
    head.innerHTML = cs.map((c) => `<div class="wb-cell" role="columnheader">${c}</div>`).join("");
    drawn = "";
  }

  function renderRows() {
    const n = rows.length;
    body.style.height = `${n * ROW_H}px`;
    // as tall as the rows, up to `height` (then it scrolls); never under four rows
    scroll.style.height = `${Math.min(model.get("height"), (Math.max(n, 4) + 1) * ROW_H + 4)}px`;
    const top = scroll.scrollTop;
    const first = Math.max(0, Math.floor(top / ROW_H) - OVERSCAN);
    const last = Math.min(n, Math.ceil((top + scroll.clientHeight) / ROW_H) + OVERSCAN);
    const sel = selected();
    const key = `${first}:${last}:${n}:${sel}`;
    if (key === drawn) return;
    drawn = key;
    const cs = cols();
    let html = "";
    for (let i = first; i < last; i++) html += rowHTML(rows[i], i, cs, rows[i].step === sel);
    body.innerHTML = html;
    scroll.setAttribute("aria-rowcount", String(n + 1));
    caption.textContent = n === 0 ? "no rows yet" : `${n} rows · ${tokRow.length} tokens` +
      (changedCount ? ` · ${changedCount} changed by the last replay` : "") + (sel ? ` · step ${sel} selected` : "");
  }

  function colours() {
    const s = getComputedStyle(el);
    const v = (name) => s.getPropertyValue(name).trim();
    return { reasoning: v("--wb-reasoning"), content: v("--wb-content"), tool: v("--wb-tool"),
      error: v("--wb-error"), other: v("--wb-other"), fg: v("--wb-fg"), bg: v("--wb-bg"),
      sel: v("--wb-select"), font: v("--wb-font") };
  }
  const colourOf = (C, r) => (r.error ? C.error : C[r.phase] || C.other);

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

  function drawStrip(C, W) {
    const n = tokRow.length;
    if (!n || W <= 0) { canvasSize(strip, Math.max(W, 1), 1); stripGeom = null; return; }
    let k = 1;
    let cw = Math.min(44, Math.floor((W * STRIP_LINES) / n));
    if (cw < 3) { cw = 3; k = Math.ceil((3 * n) / (W * STRIP_LINES)); }
    const cells = Math.ceil(n / k);
    const perLine = Math.max(1, Math.floor(W / cw));
    const lineH = cw >= 16 ? 18 : 10;
    const lines = Math.ceil(cells / perLine);
    const ctx = canvasSize(strip, W, lines * lineH);
    const sel = selected();
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
      ctx.globalAlpha = r.sse ? 0.5 : 0.12; // chunk: filled; no chunk: pale and outlined
      ctx.fillRect(x, y + 1, w, lineH - 2);
      ctx.globalAlpha = 1;
      if (!r.sse && cw > 4) { ctx.strokeStyle = ctx.fillStyle; ctx.lineWidth = 1; ctx.strokeRect(x + 0.5, y + 1.5, w - 1, lineH - 3); }
      let mark = false;
      let isSel = false;
      for (let t = t0; t < t1; t++) {
        const row = rows[tokRow[t]];
        if (row.state_change && (t === 0 || tokRow[t - 1] !== tokRow[t])) mark = true;
        if (row.step === sel) isSel = true;
      }
      if (mark) { ctx.fillStyle = C.fg; ctx.fillRect(x, y, 2, lineH); }
      if (isSel) { ctx.strokeStyle = C.sel; ctx.lineWidth = 2; ctx.strokeRect(x + 1, y + 1, cw - 2, lineH - 2); }
      if (cw >= 16 && k === 1) {
        const first = t0 === 0 || tokRow[t0 - 1] !== tokRow[t0];
        const toks = r.tokens || [];
        const idx = first ? 0 : t0 - tokRow.indexOf(tokRow[t0]);
        ctx.save();
        ctx.beginPath();
        ctx.rect(x + 2, y, cw - 4, lineH);
        ctx.clip();
        ctx.fillStyle = C.fg;
        ctx.fillText(plain(String(toks[idx] ?? "")), x + 3, y + lineH / 2);
        ctx.restore();
      }
    }
    stripGeom = { k, cw, perLine, lineH, n };
  }

  function drawCost(C, W) {
    const n = rows.length;
    if (!n || W <= 0) { canvasSize(cost, Math.max(W, 1), 1); costGeom = null; return; }
    const k = Math.max(1, Math.ceil(n / W));
    const bars = Math.ceil(n / k);
    const bw = Math.min(12, W / bars);
    const ctx = canvasSize(cost, W, COST_H);
    const sel = selected();
    // scaled to the 95th percentile: one slow first call must not flatten every other bar
    if (n < costTop.n || n > costTop.n * 1.02) {
      const sorted = Float64Array.from(rows, (r) => r.us || 0).sort();
      costTop = { n, top: Math.max(sorted[Math.floor(0.95 * (n - 1))] * 1.25, 1) };
    }
    const top = costTop.top;
    const scale = (COST_H - 3) / top;
    for (let j = 0; j < bars; j++) {
      let best = j * k;
      let hasSel = false;
      for (let i = j * k; i < Math.min(n, (j + 1) * k); i++) {
        if ((rows[i].us || 0) > (rows[best].us || 0)) best = i;
        if (rows[i].step === sel) hasSel = true;
      }
      const r = rows[best];
      const h = Math.min(COST_H, Math.max(1, (r.us || 0) * scale));
      const w = Math.max(1, bw - (bw > 3 ? 1 : 0));
      ctx.globalAlpha = r.sse ? 0.9 : 0.45;
      ctx.fillStyle = hasSel ? C.sel : colourOf(C, r);
      ctx.fillRect(j * bw, COST_H - h, w, h);
      ctx.globalAlpha = 1;
      if (h === COST_H) { ctx.fillStyle = C.fg; ctx.fillRect(j * bw, 0, w, 2); } // off the scale
    }
    ctx.globalAlpha = 1;
    costGeom = { k, bw, n };
    costLabel.textContent = `parser µs\n0–${top.toFixed(0)}`;
    costLabel.title = `bar height: parser time per delta, 0 to ${top.toFixed(0)} µs; ` +
      `capped bars are slower (the slowest: ${maxUs.toFixed(0)} µs)`;
  }

  function drawPics() {
    picsQueued = false;
    const W = Math.max(0, pics.clientWidth - 80);
    const C = colours();
    drawStrip(C, W);
    drawCost(C, W);
  }
  const queuePics = () => {
    if (!picsQueued) { picsQueued = true; requestAnimationFrame(drawPics); }
  };

  function stripIndex(e) {
    if (!stripGeom) return -1;
    const g = stripGeom;
    const b = strip.getBoundingClientRect();
    const col = Math.floor((e.clientX - b.left) / g.cw);
    const line = Math.floor((e.clientY - b.top) / g.lineH);
    if (col >= g.perLine) return -1;
    const t = (line * g.perLine + col) * g.k;
    return t < g.n ? tokRow[t] : -1;
  }
  function costIndex(e) {
    if (!costGeom) return -1;
    const i = Math.floor((e.clientX - cost.getBoundingClientRect().left) / costGeom.bw) * costGeom.k;
    return i < costGeom.n ? i : -1;
  }

  function select(step) {
    if (!rows.length) return;
    const s = Math.max(1, Math.min(rows.length, step));
    model.set("selected", s);
    model.save_changes();
  }

  function ensureVisible(step) {
    const i = rows.findIndex((r) => r.step === step);
    if (i < 0) return;
    const y = i * ROW_H;
    const view = scroll.clientHeight - ROW_H;
    if (y < scroll.scrollTop) scroll.scrollTop = y;
    else if (y + ROW_H > scroll.scrollTop + view) scroll.scrollTop = y + ROW_H - view;
  }

  function append(rs) {
    const atBottom = following;
    for (const r of rs) {
      const i = rows.length;
      rows.push(r);
      for (let t = 0; t < (r.tokens || []).length; t++) tokRow.push(i);
      if ((r.us || 0) > maxUs) maxUs = r.us;
      if (r.changed) changedCount++;
    }
    renderRows();
    if (atBottom && scroll.scrollTop + scroll.clientHeight < scroll.scrollHeight) {
      scroll.scrollTop = scroll.scrollHeight;
      renderRows();
    }
    queuePics();
  }

  function onMessage(msg) {
    if (msg.kind === "reset") {
      rows.length = 0;
      tokRow.length = 0;
      maxUs = 0;
      changedCount = 0;
      costTop = { n: 0, top: 1 };
      drawn = "";
      following = true;
      append(msg.rows);
    } else if (msg.kind === "rows") {
      if (msg.start === rows.length) append(msg.rows);
      else if (msg.start > rows.length) model.send({ kind: "hello" }); // missed some: ask again
    }
  }

  const onSelected = () => { ensureVisible(selected()); drawn = ""; renderRows(); queuePics(); };
  const onColumns = () => { layout(); renderRows(); };
  model.on("msg:custom", onMessage);
  model.on("change:selected", onSelected);
  model.on("change:columns", onColumns);
  model.on("change:height", onColumns);

  scroll.addEventListener("scroll", () => {
    following = scroll.scrollTop + scroll.clientHeight >= scroll.scrollHeight - ROW_H / 2;
    renderRows();
  });
  body.addEventListener("click", (e) => {
    const row = e.target.closest("[data-step]");
    if (row) { select(Number(row.dataset.step)); scroll.focus({ preventScroll: true }); }
  });
  scroll.addEventListener("keydown", (e) => {
    const page = Math.max(1, Math.floor(scroll.clientHeight / ROW_H) - 2);
    const moves = { j: 1, ArrowDown: 1, k: -1, ArrowUp: -1, PageDown: page, PageUp: -page };
    const cur = selected();
    let next = null;
    if (e.key in moves) next = cur ? cur + moves[e.key] : (moves[e.key] > 0 ? 1 : rows.length);
    else if (e.key === "Home") next = 1;
    else if (e.key === "End") next = rows.length;
    if (next === null) return;
    e.preventDefault();
    e.stopPropagation();
    select(next);
  });
  const pick = (i) => {
    if (i < 0) return;
    select(rows[i].step);
    scroll.focus({ preventScroll: true }); // so j/k go on from there
  };
  strip.addEventListener("click", (e) => pick(stripIndex(e)));
  cost.addEventListener("click", (e) => pick(costIndex(e)));
  strip.addEventListener("mousemove", (e) => {
    const i = stripIndex(e);
    strip.title = i >= 0 ? `step ${rows[i].step}: ${plain((rows[i].tokens || []).join(" | "))} (${phaseOf(rows[i])})` : "";
  });
  cost.addEventListener("mousemove", (e) => {
    const i = costIndex(e);
    if (i >= 0) cost.title = `step ${rows[i].step}: ${(rows[i].us || 0).toFixed(0)} µs`;
  });

  const resized = new ResizeObserver(() => { drawn = ""; renderRows(); queuePics(); });
  resized.observe(scroll);
  resized.observe(pics);
  const themed = new MutationObserver(queuePics); // JupyterLab's theme switch: canvases redraw
  themed.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-name"] });

  layout();
  renderRows();
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
