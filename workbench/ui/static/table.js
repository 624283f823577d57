// A table of records, with an optional token strip and cost chart (an anywidget ES module).
//
// Generic: Python sends the column schema as the synced `columns` trait ({name, title,
// description, kind, width, grow, shown, fit, field} each, workbench/core/rows.py) and the
// records as {kind: "reset" | "rows", start, rows} custom messages, only the new ones per
// Step. A record holds one value per column name (None left out), its row's CSS classes
// in `_c`, and what the strip and chart read (`_k` colour, `_sse`, `_sc` state change,
// `_us`, `_sp` special-token indexes). Only the rows in view are in the DOM (virtualised),
// so 100,000 rows scroll as smoothly as 26. A cell whose column has a `field` (reasoning,
// content, tool) is coloured by it where it has a value; a `fit` column widens to its
// longest value. Columns resize by their header's edge and hide from the "columns" menu;
// both are kept in localStorage under the `storage` trait (notebook and table role).
// Selection: `selected` (the focused key, 0: none) and `selection` (every selected key),
// set by clicks (shift: a range, ctrl/cmd: one more), j/k/arrows (shift: extend). Ctrl+C
// asks Python for the selection's JSON ({kind: "copy"}) and puts the answer
// ({kind: "clipboard"}) on the clipboard; {kind: "download"} saves a file. Tables with
// the same `group` scroll together. `legend` is [[class, label, seen key], ...]: an entry
// shows once a record on screen has its key. A page without a kernel (the corpus report)
// draws its tables with this same `render` over a stand-in model (workbench/pages/page_table.py).
// `flow` (a small table: the finals, the row detail's tokens): every row in the DOM, as tall
// as its values wrapped (between words, never inside one), instead of one virtualised line.

const ROW_H = 22;
const OVERSCAN = 8;
const STRIP_LINES = 4;
const COST_H = 36;
const LONG = 24; // a flowing cell's word longer than this (an id, a JSON string) may break inside itself
const PAD = 10; // a cell's horizontal padding (4px each side) and border, and a px to spare
const BAND = { phase: 8, phase_before: 8 }; // the phase's colour band: more padding on the left (table.css)
const WS = { " ": "␣", "\n": "⏎", "\t": "⇥", "\r": "␍" };
const ESC = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };

const esc = (s) => s.replace(/[&<>"]/g, (c) => ESC[c]);
const plain = (s) => s.replace(/[ \n\t\r]/g, (c) => WS[c]);
const groups = (globalThis.__wbTableGroups ||= new Map()); // group -> Set of tables

/** A whitespace run's class: a newline or tab is marked to stand out (the seed's "\n\n"). */
const wsClass = (m) => (/[\n\t\r]/.test(m) ? "wb-ws wb-nl" : "wb-ws");
const ESCAPES = { "\n": "\\n", "\t": "\\t", "\r": "\\r", " ": "␣" };
/** A whitespace run as drawn in a cell: spaces as ␣, a newline or tab as its escape (\n, \t),
 * which reads at a glance where a ⏎ glyph is a speck. */
const wsText = (m) => (/[\n\t\r]/.test(m) ? m.replace(/[ \n\t\r]/g, (c) => ESCAPES[c]) : plain(m));
/** A token as the strip writes it: every whitespace as its escape (a "\n\n" token reads \n\n, in
 * bold, where a ⏎⏎ glyph at 10 px was a speck). */
const stripText = (s) => s.replace(/[ \n\t\r]/g, (c) => ESCAPES[c]);

/** A value as HTML: whitespace visible, None blank, "" as a visible "" mark. */
function shown(v) {
  if (v === undefined || v === null) return "";
  const s = String(v);
  if (s === "") return '<span class="wb-empty">""</span>';
  return esc(s).replace(/[ \n\t\r]+/g, (m) => `<span class="${wsClass(m)}">${wsText(m)}</span>`);
}

/** The text a cell's tooltip and the strip's hover show. */
function textOf(v) {
  if (v === undefined || v === null) return "None";
  return plain(Array.isArray(v) ? v.join(" | ") : String(v));
}

// a flowing cell breaks between words only: a word is kept whole ("get-weather", "a/b"), unless
// it is longer than LONG characters ("chatcmpl-tool-a16a6987d903c6fe"): that one breaks where it must
function cellHTML(r, col, flow) {
  const v = r[col.name];
  if (flow && col.kind !== "tokens" && v !== undefined && v !== null && v !== "") {
    const text = col.kind === "text";
    const parts = String(v).split(/(\s+)/), last = parts.length - 2;
    // whitespace that matters is drawn (␣, \n): at either end, a newline or tab, two spaces; one
    // space between words is prose ("Weather is needed." reads the same in every column)
    const marked = (w, i) => text && ((i === 1 && parts[0] === "") || (i === last && parts[last + 1] === "")
      || /[\n\t\r]/.test(w) || w.length > 1);
    return parts.map((w, i) => (i % 2 ? (marked(w, i) ? `<wbr><span class="${wsClass(w)}">${wsText(w)}</span><wbr>` : esc(w))
      : w && `<span class="${w.length > LONG ? "wb-long" : "wb-nw"}">${esc(w)}</span>`)).join("");
  }
  if (col.kind === "tokens") {
    const sp = r._sp || [];
    return (v || []).map((t, i) =>
      `<span class="wb-tok${sp.includes(i) ? " wb-tok-special" : ""}">${shown(t)}</span>`).join("");
  }
  if (col.kind === "text") return shown(v);
  return v === undefined || v === null ? "" : esc(String(v));
}

/** How many characters a value takes drawn (a newline or tab is two: \n). */
function lengthOf(v) {
  if (v === undefined || v === null) return 0;
  const n = (x) => { const t = String(x); return t.length + (t.match(/[\n\t\r]/g) || []).length; };
  return Array.isArray(v) ? v.reduce((a, t) => a + n(t) + 1, 0) : n(v);
}

/** The records, which token belongs to which, and what the legend and layout need. */
class Store {
  constructor() { this.clear(); }
  clear() {
    this.rows = [];
    this.tokRow = []; // token index -> row index
    this.maxUs = 0;
    this.seen = new Set(); // legend keys seen
    this.have = new Set(); // columns some record has a value in
    this.longest = {}; // fit or growing column -> its longest value (characters)
    this.word = {}; // a flowing table's column -> its longest word (characters): never broken
  }
  add(rs, cols, tokens, flow = false) {
    const fields = cols.filter((c) => c.field);
    const fits = cols.filter((c) => c.fit || c.grow); // a growing column's too: what spare room it wants
    for (const r of rs) {
      const i = this.rows.length;
      this.rows.push(r);
      const toks = tokens ? r[tokens] || [] : [];
      for (let t = 0; t < toks.length; t++) this.tokRow.push(i);
      if ((r._us || 0) > this.maxUs) this.maxUs = r._us;
      for (const name in r) if (name[0] !== "_") this.have.add(name);
      for (const c of fields) if (r[c.name] !== undefined && r[c.name] !== "[]") this.seen.add(`f:${c.field}`);
      for (const c of fits) this.longest[c.name] = Math.max(this.longest[c.name] || 0, lengthOf(r[c.name]));
      if (flow) {
        for (const c of cols) {
          const v = r[c.name];
          if (v === undefined || v === null || Array.isArray(v)) continue;
          for (const w of String(v).split(/\s+/)) if (w.length > (this.word[c.name] || 0)) this.word[c.name] = w.length;
        }
      }
      for (const cls of (r._c || "").split(" ")) if (cls) this.seen.add(cls.startsWith("k-") ? `k:${cls.slice(2)}` : cls);
    }
  }
}

/** What the user chose for a table's columns, kept per notebook and table role. */
class Prefs {
  constructor(key) {
    this.key = key ? `wb-table:${key}` : "";
    this.widths = {};
    this.hidden = {}; // name -> true (hidden) / false (shown though hidden by default)
    try {
      const saved = this.key && JSON.parse(localStorage.getItem(this.key) || "{}");
      Object.assign(this.widths, saved.widths || {});
      Object.assign(this.hidden, saved.hidden || {});
    } catch (e) { /* no storage: the defaults */ }
  }
  save() {
    try {
      if (this.key) localStorage.setItem(this.key, JSON.stringify({ widths: this.widths, hidden: this.hidden }));
    } catch (e) { /* no storage */ }
  }
}

// -- the table ----------------------------------------------------------------------
class Table {
  constructor(el, model, store) {
    this.model = model;
    this.store = store;
    this.prefs = new Prefs(model.get("storage"));
    this.following = true;
    this.drawn = "";
    this.anchor = -1;
    this.charW = 7.2;
    el.insertAdjacentHTML("beforeend", `<div class="wb-caption"><span class="wb-count" aria-live="polite">no rows yet</span>
      <button class="wb-colbtn" type="button" title="show or hide columns; drag a header's right edge to resize">columns ▾</button>
      <div class="wb-colmenu" hidden></div></div>
      <div class="wb-scroll" tabindex="0" role="grid" aria-multiselectable="true" data-lm-suppress-shortcuts="true">
      <div class="wb-head" role="row" aria-rowindex="1"></div><div class="wb-body"></div></div>`);
    this.el = el;
    this.scroll = el.querySelector(".wb-scroll");
    this.head = el.querySelector(".wb-head");
    this.body = el.querySelector(".wb-body");
    this.count = el.querySelector(".wb-count");
    this.menu = el.querySelector(".wb-colmenu");
    this.captionExtra = () => "";
    this.scroll.addEventListener("scroll", () => {
      const s = this.scroll;
      this.following = s.scrollTop + s.clientHeight >= s.scrollHeight - ROW_H / 2;
      this.render();
      this.syncGroup();
    });
    this.body.addEventListener("click", (e) => {
      const row = e.target.closest("[data-row]");
      if (row) this.pick(Number(row.dataset.row), e);
    });
    this.scroll.addEventListener("keydown", (e) => this.key(e));
    el.querySelector(".wb-colbtn").addEventListener("click", () => this.toggleMenu());
    this.menu.addEventListener("change", (e) => {
      const name = e.target.dataset.col;
      if (!name) return;
      this.prefs.hidden[name] = !e.target.checked;
      this.prefs.save();
      this.layout();
      this.render();
    });
    this.menu.addEventListener("click", (e) => {
      if (!e.target.classList.contains("wb-reset")) return;
      this.prefs.widths = {};
      this.prefs.hidden = {};
      this.prefs.save();
      this.toggleMenu(false);
      this.layout();
      this.render();
    });
    this.head.addEventListener("pointerdown", (e) => this.startResize(e));
    this.head.addEventListener("dblclick", (e) => {
      const name = e.target.dataset && e.target.dataset.grip;
      if (!name) return;
      delete this.prefs.widths[name];
      this.prefs.save();
      this.layout();
      this.render();
    });
  }

  get schema() { return this.model.get("columns"); }
  get flow() { return !!this.model.get("flow"); }
  get keyName() { return this.model.get("key"); }

  /** The columns shown: the default (shown, or "auto" once a record has a value) unless the user chose. */
  visible() {
    return this.schema.filter((c) => {
      const pref = this.prefs.hidden[c.name];
      if (pref !== undefined) return !pref;
      return c.shown === true || (c.shown === "auto" && this.store.have.has(c.name));
    });
  }

  indexOfKey(key) {
    if (!key) return -1;
    const rows = this.store.rows;
    const k = this.keyName;
    const i = key - 1; // keys are 1..n in order, so look there first
    if (i >= 0 && i < rows.length && rows[i][k] === key) return i;
    return rows.findIndex((r) => r[k] === key);
  }
  selectedIndex() { return this.indexOfKey(this.model.get("selected") || 0); }

  /** A column no record has a value in (while there are records) gives up its width. */
  empty(c) { return this.store.rows.length > 0 && !this.store.have.has(c.name); }

  /** A column's header, whole. */
  headWidth(c) { return Math.max(28, Math.ceil(c.title.length * this.charW) + PAD + 6); }

  /** The least a column may have: its header, and its longest value up to ``fit`` (never cut). */
  least(c) {
    const head = this.headWidth(c);
    if (this.empty(c)) return head;
    // a flowing table wraps between words, never inside one up to LONG characters: its longest word
    if (this.flow) return Math.max(head, Math.ceil(Math.min(LONG, this.store.word[c.name] || 0) * this.charW) + PAD + this.mark(c));
    return Math.max(head, this.fitWidth(c));
  }

  /** The first column of a changed row carries the mark: 5 px more on its left (table.css). */
  mark(c) { return this.cols && this.cols[0] === c ? 5 : 0; }

  /** A `fit` column's longest value, up to its fit. */
  fitWidth(c) {
    return c.fit ? Math.min(c.fit, this.valueWidth(c)) : 0;
  }

  widthOf(c, mine = true) {
    const user = mine && this.prefs.widths[c.name];
    if (user) return user;
    if (this.empty(c)) return this.least(c);
    // a flowing table starts a fit column at its whole value (a verdict on one line, not a word
    // a line); short of room it wraps it, down to its longest word (fitInto)
    return Math.max(c.width, this.least(c), this.flow ? this.fitWidth(c) : 0);
  }

  /** A growing column's values are whole in the row's detail (the rows' table beside its
   * detail, `detail`): short of room, it may give its width down to its header. */
  whole(c) { return !!this.model.get("detail") && !this.flow && !!c.grow && !this.prefs.widths[c.name]; }

  /** Whether fitInto may take width from a column: one that grows, or a flowing table's fit
   * column (it wraps), unless the user sized it. */
  gives(c) { return !this.prefs.widths[c.name] && (c.grow || (this.flow && c.fit)); }

  layout() {
    const cs = this.cols = this.visible();
    // a character's width in the rows' own font (a hidden row holding twenty zeros)
    const probe = document.createElement("div");
    probe.className = "wb-row";
    probe.style.cssText = "visibility:hidden;display:block;width:auto;right:auto";
    probe.innerHTML = `<span class="wb-cell" style="padding:0;border:0">${"0".repeat(20)}</span>`;
    this.body.appendChild(probe);
    this.charW = probe.firstChild.getBoundingClientRect().width / 20 || 7.2;
    probe.remove();
    const widths = this.fitInto(cs, cs.map((c) => this.widthOf(c)));
    this.el.style.setProperty("--wb-cols", cs.map((c, i) =>
      (c.grow && !this.prefs.widths[c.name] && !this.empty(c) ? `minmax(${widths[i]}px, ${c.grow}fr)` : `${widths[i]}px`)).join(" "));
    this.el.style.setProperty("--wb-minw", `${widths.reduce((a, w) => a + w, 0)}px`);
    this.head.innerHTML = cs.map((c) => `<div class="wb-cell wb-c-${c.name}" role="columnheader" ` +
      `title="${esc(c.description || "")}">${esc(c.title)}<span class="wb-grip" data-grip="${esc(c.name)}" ` +
      `title="drag to resize; double-click: back to the default"></span></div>`).join("");
    this.fitted = this.fitKey(cs);
    this.drawn = "";
  }

  /** Default widths shrunk to the scroll box's width when they overflow it: a growing
   * column (one the user did not size) gives up its width, down to its least (its header,
   * and its longest value up to its ``fit``: what it shows is never cut), so every default
   * column is in view beside the detail; only what cannot fit scrolls. */
  fitInto(cs, widths) {
    const room = this.scroll.clientWidth - 2;
    this.room = room;
    const slack = cs.map((c, i) => (this.gives(c) ? Math.max(0, widths[i] - this.least(c)) : 0));
    const total = slack.reduce((a, x) => a + x, 0);
    const sum = widths.reduce((a, w) => a + w, 0);
    // `wrap` (the main table, an A/B side): never narrower than its default columns at their
    // least, so what is beside it (the detail, the other side) goes below when they cannot
    // fit beside it; a column the user widened scrolls instead; never wider than its row (a
    // narrow window: the table scrolls)
    if (this.model.get("wrap")) {
      const need = cs.reduce((a, c) => a + (c.grow ? Math.min(this.least(c), this.widthOf(c, false)) : this.widthOf(c, false)), 0);
      // on the table and on what holds it up to the wrapping row (an A/B side's box and label)
      let box = this.el;
      for (let up = 0; box && up < 3; up++, box = box.parentElement) {
        box.style.minWidth = `min(${need + 2 + 16}px, 100%)`;
        if (box.parentElement && getComputedStyle(box.parentElement).flexWrap === "wrap") break;
      }
    }
    const over = sum - room;
    this.spare = room > 0 && over < 0;
    if (this.spare) return this.spread(cs, widths, -over);
    if (room <= 0 || over <= 0) return widths;
    const out = widths.slice();
    if (!total) return this.squeeze(cs, out, over);
    const share = Math.min(1, over / total);
    for (let i = 0; i < cs.length; i++) out[i] = Math.floor(widths[i] - slack[i] * share);
    return this.squeeze(cs, out, over - total);
  }

  /** Room to spare (a wide screen): the rows' growing columns whose values are cut take it
   * first, each in proportion to what it lacks, up to its longest value (vLLM's log line
   * whole before a column that fits already widens); what is left goes by `grow`. */
  spread(cs, widths, spare) {
    if (this.flow) return widths; // a flowing table wraps instead; the grid shares its spare by `grow`
    const lacks = cs.map((c, i) => (c.grow && !this.prefs.widths[c.name] && !this.empty(c)
      ? Math.max(0, this.valueWidth(c) - widths[i]) : 0));
    const total = lacks.reduce((a, x) => a + x, 0);
    if (!total) return widths;
    const share = Math.min(1, spare / total);
    return widths.map((w, i) => w + Math.floor(lacks[i] * share));
  }

  /** A column's longest value, whole (px). */
  valueWidth(c) {
    return Math.ceil((this.store.longest[c.name] || 0) * this.charW) + PAD + (BAND[c.name] || 0) + this.mark(c);
  }

  /** Still too wide: the columns whose values the detail shows whole give more, down to their
   * header (their cells end in …), so the short ones (step, phase, SSE, finish) stay in view. */
  squeeze(cs, widths, over) {
    // only once the table has its row to itself (the detail below it): beside the detail, it
    // goes below first (`wrap`)
    const row = this.el.parentElement;
    if (over <= 0 || (row && this.el.getBoundingClientRect().width < row.getBoundingClientRect().width - 24)) return widths;
    const slack = cs.map((c, i) => (this.whole(c) ? Math.max(0, widths[i] - this.headWidth(c)) : 0));
    const total = slack.reduce((a, x) => a + x, 0);
    if (!total) return widths;
    const share = Math.min(1, over / total);
    return widths.map((w, i) => Math.floor(w - slack[i] * share));
  }

  /** What the layout depends on besides the user: fit columns' longest values, and which
   * columns have a value at all. */
  fitKey(cs) {
    return JSON.stringify(cs.map((c) => [c.fit || (this.spare && c.grow) ? this.store.longest[c.name] || 0 : 0, this.empty(c),
      this.store.word[c.name] || 0]));
  }

  /** A fit column's longest value grew (or, with room to spare, a growing one's): lay out again (a few times per stream, not per row). */
  refit() {
    const now = this.fitKey(this.cols);
    const auto = this.schema.some((c) => c.shown === "auto" && this.store.have.has(c.name) && !this.cols.includes(c));
    if (now !== this.fitted || auto) this.layout();
  }

  startResize(e) {
    const name = e.target.dataset && e.target.dataset.grip;
    if (!name) return;
    e.preventDefault();
    const cell = e.target.parentElement;
    const x0 = e.clientX;
    const w0 = cell.getBoundingClientRect().width;
    const move = (ev) => {
      this.prefs.widths[name] = Math.max(28, Math.round(w0 + ev.clientX - x0));
      this.layout();
      this.render();
    };
    const up = () => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      this.prefs.save();
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
  }

  toggleMenu(open) {
    const show = open === undefined ? this.menu.hidden : open;
    if (show) {
      const vis = new Set(this.visible().map((c) => c.name));
      this.menu.innerHTML = this.schema.map((c) => `<label title="${esc(c.description || "")}"><input type="checkbox" ` +
        `data-col="${esc(c.name)}"${vis.has(c.name) ? " checked" : ""}> ${esc(c.title)}</label>`).join("") +
        '<button type="button" class="wb-reset">default columns and widths</button>';
    }
    this.menu.hidden = !show;
  }

  rowHTML(r, i, selected, focused) {
    const cells = this.cols.map((c) => {
      // tinted where the field has a value; an empty list ("[]": a final's no calls) is none
      const v = r[c.name];
      const tint = c.field && v !== undefined && v !== "[]" ? ` f-${c.field}` : "";
      return `<div class="wb-cell wb-c-${c.name}${tint}${this.whole(c) ? " wb-whole" : ""}" role="gridcell" ` +
        `title="${esc(textOf(r[c.name]).slice(0, 400))}">${cellHTML(r, c, this.flow)}</div>`;
    });
    const k = this.keyName;
    return `<div class="wb-row ${r._c || ""}${focused ? " wb-focus" : ""}" role="row" data-row="${i}" ` +
      `data-${k}="${esc(String(r[k]))}" aria-selected="${selected}" aria-rowindex="${i + 2}" ` +
      `${this.flow ? "" : `style="top:${i * ROW_H}px"`}>${cells.join("")}</div>`;
  }

  render() {
    const rows = this.store.rows;
    const n = rows.length;
    const s = this.scroll;
    const flow = this.flow;
    this.body.style.height = flow ? "" : `${n * ROW_H}px`;
    // as tall as the rows, up to `height` (then it scrolls); never under four rows (flowing: its rows)
    s.style.height = flow ? "" : `${Math.min(this.model.get("height"), (Math.max(n, 4) + 1) * ROW_H + 4 + 14)}px`;
    s.style.maxHeight = flow ? `${this.model.get("height")}px` : "";
    const first = flow ? 0 : Math.max(0, Math.floor(s.scrollTop / ROW_H) - OVERSCAN);
    const last = flow ? n : Math.min(n, Math.ceil((s.scrollTop + s.clientHeight) / ROW_H) + OVERSCAN);
    const focus = this.selectedIndex();
    const chosen = new Set(this.model.get("selection") || []);
    const state = `${focus}:${[...chosen].join(",")}`;
    const key = `${first}:${last}:${n}:${state}`;
    if (key === this.drawn) return;
    const k = this.keyName;
    const was = this.range;
    const row = (i) => this.rowHTML(rows[i], i, chosen.has(rows[i][k]) || i === focus, i === focus);
    let html = "";
    if (this.drawn && was && was.state === state && was.n <= n && first < was.last && last > was.first) {
      // the same rows and selection, some rows more or scrolled a little: only the rows that
      // came into view are drawn and those gone out of it removed (a Step at 100,000 rows)
      for (const el of [...this.body.children]) {
        const i = Number(el.dataset.row);
        if (i < first || i >= last) el.remove();
      }
      for (let i = first; i < last; i++) if (i < was.first || i >= was.last) html += row(i);
      if (html) this.body.insertAdjacentHTML("beforeend", html);
    } else {
      for (let i = first; i < last; i++) html += row(i);
      this.body.innerHTML = html;
    }
    this.drawn = key;
    this.range = { first, last, n, state };
    s.setAttribute("aria-rowcount", String(n + 1));
    const sel = chosen.size > 1 ? ` · ${chosen.size} selected (Ctrl+C copies their JSON)` :
      focus >= 0 ? ` · ${k} ${rows[focus][k]} selected` : "";
    this.count.textContent = n === 0 ? "no rows yet" : `${n} row${n === 1 ? "" : "s"}${this.captionExtra()}${sel}`;
  }

  appended(atBottom) {
    this.refit();
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
    const el = this.flow && this.body.querySelector(`[data-row="${i}"]`);
    const y = el ? el.offsetTop : i * ROW_H;
    const h = el ? el.offsetHeight : ROW_H;
    const view = s.clientHeight - (el ? this.head.offsetHeight : 2 * ROW_H);
    if (y < s.scrollTop) s.scrollTop = y;
    else if (y + h > s.scrollTop + view) s.scrollTop = y + h - view;
  }

  /** Select row i: alone, or (shift) the range from the anchor, or (ctrl/cmd) one more. */
  pick(i, e = {}) {
    const rows = this.store.rows;
    if (i < 0 || i >= rows.length) return;
    const k = this.keyName;
    let keys;
    if (e.shiftKey && this.anchor >= 0) {
      const [a, b] = [Math.min(this.anchor, i), Math.max(this.anchor, i)];
      keys = rows.slice(a, b + 1).map((r) => r[k]);
    } else if (e.ctrlKey || e.metaKey) {
      const now = new Set(this.model.get("selection") || []);
      if (now.has(rows[i][k])) now.delete(rows[i][k]);
      else now.add(rows[i][k]);
      keys = [...now].sort((x, y) => x - y);
      this.anchor = i;
    } else {
      keys = [rows[i][k]];
      this.anchor = i;
    }
    this.model.set("selection", keys);
    this.model.set("selected", rows[i][k]);
    this.model.save_changes();
    this.focus();
  }

  key(e) {
    const n = this.store.rows.length;
    if ((e.ctrlKey || e.metaKey) && (e.key === "c" || e.key === "C")) {
      const keys = this.model.get("selection") || [];
      const one = this.model.get("selected");
      const want = keys.length ? keys : one ? [one] : [];
      if (want.length) this.model.send({ kind: "copy", keys: want });
      e.preventDefault();
      e.stopPropagation();
      return;
    }
    const page = Math.max(1, Math.floor(this.scroll.clientHeight / ROW_H) - 2);
    const moves = { j: 1, J: 1, ArrowDown: 1, k: -1, K: -1, ArrowUp: -1, PageDown: page, PageUp: -page };
    const cur = this.selectedIndex();
    let next = null;
    if (e.key in moves) next = cur >= 0 ? cur + moves[e.key] : (moves[e.key] > 0 ? 0 : n - 1);
    else if (e.key === "Home") next = 0;
    else if (e.key === "End") next = n - 1;
    if (next === null || !n) return;
    e.preventDefault();
    e.stopPropagation();
    if (e.shiftKey && this.anchor < 0) this.anchor = Math.max(cur, 0);
    this.pick(Math.max(0, Math.min(n - 1, next)), { shiftKey: e.shiftKey });
  }

  focus() { this.scroll.focus({ preventScroll: true }); }

  /** Tables of one group keep the same rows in view. */
  syncGroup() {
    const name = this.model.get("group");
    if (!name || this.syncing) return;
    for (const other of groups.get(name) || []) {
      if (other === this) continue;
      other.syncing = true;
      other.scroll.scrollTop = this.scroll.scrollTop;
      other.scroll.scrollLeft = this.scroll.scrollLeft;
      other.render();
      requestAnimationFrame(() => { other.syncing = false; });
    }
  }
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

/** One cell per token (or per k tokens), coloured by the field its text went to, pale without a chunk. */
class Strip {
  constructor(canvas, store, tokens) {
    this.canvas = canvas;
    this.store = store;
    this.tokens = tokens;
    this.geom = null;
  }

  /** ``tag``: the colours and selection drawn; with the same geometry and tag, only the
   * cells of the new tokens are drawn (the last cell again: it may have grown). */
  draw(C, W, sel, tag) {
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
    const height = Math.ceil(cells / perLine) * lineH;
    const g = this.geom;
    let from = 0;
    let ctx = this.ctx;
    if (g && g.k === k && g.cw === cw && g.perLine === perLine && g.height === height && g.tag === tag && n >= g.n) {
      from = Math.floor(Math.max(g.n - 1, 0) / k);
      const x = (from % perLine) * cw;
      const y = Math.floor(from / perLine) * lineH;
      ctx.clearRect(x, y, cw, lineH);
    } else {
      ctx = this.ctx = canvasSize(canvas, W, height);
    }
    ctx.font = `10px ${C.font}`;
    ctx.textBaseline = "middle";
    for (let j = from; j < cells; j++) {
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
        const tok = String((r[this.tokens] || [])[idx] ?? "");
        if (/[\n\t\r]/.test(tok)) ctx.font = `bold 10px ${C.font}`;
        ctx.fillText(stripText(tok), x + 3, y + lineH / 2);
        ctx.restore();
      }
    }
    this.geom = { k, cw, perLine, lineH, n, height, tag };
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

  clear() { this.top = { n: 0, top: 1 }; this.geom = null; } // the scale: recomputed as the stream grows by 2%

  /** As Strip.draw: with the same bars, scale and tag, only the new bars are drawn. */
  draw(C, W, sel, tag) {
    const { rows, maxUs } = this.store;
    const n = rows.length;
    const canvas = this.canvas;
    if (!n || W <= 0) { canvasSize(canvas, Math.max(W, 1), 1); this.geom = null; return; }
    const k = Math.max(1, Math.ceil(n / W));
    const bars = Math.ceil(n / k);
    const bw = Math.min(12, W / bars);
    // one slow first call must not flatten every other bar
    if (n < this.top.n || n > this.top.n * 1.02) {
      const sorted = Float64Array.from(rows, (r) => r._us || 0).sort();
      this.top = { n, top: Math.max(sorted[Math.floor(0.95 * (n - 1))] * 1.25, 1) };
    }
    const top = this.top.top;
    const scale = (COST_H - 3) / top;
    const g = this.geom;
    let from = 0;
    let ctx = this.ctx;
    if (g && g.k === k && g.bw === bw && g.top === top && g.W === W && g.tag === tag && n >= g.n) {
      from = Math.floor(Math.max(g.n - 1, 0) / k);
      ctx.clearRect(from * bw, 0, W - from * bw, COST_H);
    } else {
      ctx = this.ctx = canvasSize(canvas, W, COST_H);
    }
    for (let j = from; j < bars; j++) {
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
    this.geom = { k, bw, n, top, W, tag };
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
// each phrase on one line (a line may break between them, never inside "shift/ctrl-click")
const HINT = '<span class="wb-hint">' + ['<span class="wb-ws">␣</span> <span class="wb-ws wb-nl">\\n</span> whitespace', "blank = None",
  '<span class="wb-empty">""</span> = empty string', "click, j/k or ↑/↓ select", "shift/ctrl-click more",
  "Ctrl+C copies rows as JSON"].map((t) => `<span class="wb-nw">${t}</span>`).join(" · ") + "</span>";

function legendHTML(legend, seen, hint) {
  const keys = (legend || []).filter(([, , key]) => !key || seen.has(key))
    .map(([cls, label]) => `<span class="wb-key ${esc(cls)}">${esc(label)}</span>`).join("");
  return keys + (hint ? `<span class="wb-hint">${hint.split(" · ").map((t) => `<span class="wb-nw">${esc(t)}</span>`)
    .join(" · ")}</span>` : HINT);
}

function copyText(text) {
  const fallback = () => {
    const ta = document.createElement("textarea");
    ta.value = text;
    ta.style.cssText = "position:fixed;left:-9999px";
    document.body.appendChild(ta);
    ta.select();
    document.execCommand("copy");
    ta.remove();
  };
  if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).catch(fallback);
  else fallback();
}

function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name || "rows.jsonl";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function render({ model, el }) {
  const store = new Store();
  const features = model.get("features") || [];
  const tokens = (model.get("columns").find((c) => c.kind === "tokens") || {}).name || "tokens";
  el.classList.add("wb-dt");
  el.classList.toggle("wb-flow", !!model.get("flow"));
  el.innerHTML = '<div class="wb-legend"></div>';
  const legend = el.querySelector(".wb-legend");
  let seenSize = -1;
  const drawLegend = () => {
    if (store.seen.size === seenSize) return;
    seenSize = store.seen.size;
    legend.innerHTML = legendHTML(model.get("legend"), store.seen, model.get("hint"));
  };
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

  const table = new Table(el, model, store);
  if (strip) table.captionExtra = () => ` · ${store.tokRow.length} tokens`;
  const group = model.get("group");
  if (group) {
    if (!groups.has(group)) groups.set(group, new Set());
    groups.get(group).add(table);
  }

  let queued = false;
  const drawPics = () => {
    queued = false;
    const W = Math.max(0, pics.clientWidth - 80);
    const C = colours(el);
    const sel = table.selectedIndex();
    const tag = `${Object.values(C).join("|")}|${sel}|${W}`;
    if (strip) strip.draw(C, W, sel, tag);
    if (chart) chart.draw(C, W, sel, tag);
  };
  const queuePics = () => {
    if (pics && !queued) { queued = true; requestAnimationFrame(drawPics); }
  };
  const pickFrom = (pic) => (e) => {
    const i = pic.at(e);
    if (i >= 0) table.pick(i, e); // then j/k go on from there
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
    store.add(rs, model.get("columns"), strip ? tokens : null, !!model.get("flow"));
    el.classList.toggle("wb-empty-table", store.rows.length === 0); // no pictures of nothing
    table.appended(atBottom);
    drawLegend();
    queuePics();
  };
  let flash = null;
  const say = (text) => {
    table.count.textContent = text;
    clearTimeout(flash);
    flash = setTimeout(() => { table.drawn = ""; table.render(); }, 2500);
  };
  const onMessage = (msg) => {
    if (msg.kind === "reset") {
      store.clear();
      if (chart) chart.clear();
      if (strip) strip.geom = null; // a new stream: the pictures are drawn anew
      table.drawn = "";
      seenSize = -1;
      // a selected row stays in view; else the end does (a growing stream), or the top
      // (`follow` false: an A/B where no step differs opens at its first row)
      const follow = model.get("follow") !== false;
      table.following = follow && !model.get("selected");
      table.layout();
      if (!table.following) table.scroll.scrollTop = 0;
      append(msg.rows);
      if (!table.following) onSelected();
    } else if (msg.kind === "rows") {
      if (msg.start === store.rows.length) append(msg.rows);
      else if (msg.start > store.rows.length) model.send({ kind: "hello" }); // missed some: ask again
    } else if (msg.kind === "clipboard") {
      copyText(msg.text);
      say(`copied ${msg.n === undefined ? "" : `${msg.n} `}row${msg.n === 1 ? "" : "s"} as JSON`);
    } else if (msg.kind === "download") {
      download(msg.name, msg.text);
      say(`saved ${msg.name}`);
    }
  };
  const onSelected = () => {
    table.ensureVisible(table.selectedIndex());
    table.drawn = "";
    table.render();
    table.syncGroup();
    queuePics();
  };
  const onColumns = () => { table.layout(); table.render(); };
  model.on("msg:custom", onMessage);
  model.on("change:selected", onSelected);
  model.on("change:selection", onSelected);
  model.on("change:columns", onColumns);
  model.on("change:height", onColumns);
  const closeMenu = (e) => { if (!el.contains(e.target)) table.toggleMenu(false); };
  document.addEventListener("pointerdown", closeMenu);

  const resized = new ResizeObserver(() => {
    if (table.scroll.clientWidth - 2 !== table.room) table.layout(); // the default widths fit the box
    table.drawn = "";
    table.render();
    queuePics();
  });
  resized.observe(table.scroll);
  if (pics) resized.observe(pics);
  const themed = new MutationObserver(queuePics); // JupyterLab's theme switch: canvases redraw
  themed.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-name"] });

  drawLegend();
  el.classList.add("wb-empty-table");
  table.layout();
  table.render();
  model.send({ kind: "hello" });
  return () => {
    resized.disconnect();
    themed.disconnect();
    document.removeEventListener("pointerdown", closeMenu);
    if (group && groups.has(group)) groups.get(group).delete(table);
    model.off("msg:custom", onMessage);
    model.off("change:selected", onSelected);
    model.off("change:selection", onSelected);
    model.off("change:columns", onColumns);
    model.off("change:height", onColumns);
  };
}

export default { render };
