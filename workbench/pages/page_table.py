"""The table component outside a kernel: records under a column schema (``core.rows.Column``)
drawn by ``static/table.js``'s own module and CSS, inlined in the page (no CDN, no file
beside it). Widget-free: the corpus report (``corpus/html.py``) and any static HTML use it.

``element(...)`` is one table: a ``<div>`` holding its schema and records as JSON; ``assets()``
is the module and CSS once per page. The module mounts every such ``<div>`` not mounted yet
with a stand-in for the anywidget model: the same ``render`` draws it, the same records
(``records``), the same widths, legend, selection and keys. Ctrl+C copies the selected
records' ``_copy`` text; a click sends a ``wb-select`` DOM event with the record.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from workbench.core.rows import Column
from workbench.core.writing import html as web

STATIC = Path(__file__).resolve().parents[1] / "ui" / "static"  # the widget's own table.js / table.css

# the anywidget model's part that table.js reads, over records already in the page
BOOT = """
const ROOTS = document.querySelectorAll("div.wb-page-table:not([data-mounted])");
for (const root of ROOTS) {
  root.dataset.mounted = "1";
  const spec = JSON.parse(root.querySelector("script[type='application/json']").textContent);
  const data = { selected: 0, selection: [], features: [], group: "", storage: "", follow: false,
    height: 300, key: "row", legend: [], ...spec.model };
  const on = {};
  const fire = (name, arg) => (on[name] || []).forEach((f) => f(arg));
  const changed = new Set();
  const byKey = (k) => spec.rows.find((r) => r[data.key] === k);
  const model = {
    get: (name) => data[name],
    set: (name, value) => { data[name] = value; changed.add(name); },
    save_changes: () => {
      const names = [...changed];
      changed.clear();
      names.forEach((name) => fire(`change:${name}`));
      if (names.includes("selected")) {
        root.dispatchEvent(new CustomEvent("wb-select", { bubbles: true, detail: byKey(data.selected) }));
      }
    },
    on: (name, f) => { (on[name] ||= []).push(f); },
    off: (name, f) => { on[name] = (on[name] || []).filter((g) => g !== f); },
    send: (msg) => queueMicrotask(() => {
      if (msg.kind === "hello") fire("msg:custom", { kind: "reset", rows: spec.rows });
      else if (msg.kind === "copy") {
        const text = msg.keys.map((k) => (byKey(k) || {})._copy || "").join("\\n");
        fire("msg:custom", { kind: "clipboard", text, n: msg.keys.length });
      }
    }),
  };
  const el = document.createElement("div");
  root.appendChild(el);
  table.render({ model, el });
}
"""


def records(items: Iterable, columns: Sequence[Column], key: str = "row",
            copy: Column | None = None) -> list[dict]:
    """One record per item: every column's display value (None left out, as the widget's
    table sends them), ``key`` ("row") 1, 2, ... and ``_copy`` (what Ctrl+C copies) from ``copy``."""
    out = []
    for i, item in enumerate(items, 1):
        rec = {key: i}
        for c in columns:
            v = c.shown_value(item)
            if v is not None:
                rec[c.name] = v
        if copy is not None:
            rec["_copy"] = str(copy.value(item))
        out.append(rec)
    return out


def element(table_id: str, columns: Sequence[Column], rows: list[dict], *, height: int = 300,
            key: str = "row", hint: str = "") -> str:
    """One table (``rows`` from ``records``) as a ``<div id=table_id>``; ``hint``: the line
    under the legend (what a click and Ctrl+C do here)."""
    spec = {"model": {"columns": [c.spec() for c in columns], "key": key, "height": height, "hint": hint},
            "rows": rows}
    return (f'<div class="wb-page-table" id="{web.text(table_id)}">'
            f'<script type="application/json">{web.script_json(spec)}</script></div>')


def assets() -> str:
    """table.js (as an inline module) and table.css: once per page, before or after the tables."""
    module = (STATIC / "table.js").read_text(encoding="utf-8").replace("export default { render };",
                                                                        "const table = { render };")
    css = (STATIC / "table.css").read_text(encoding="utf-8")
    return f"<style>{web.script_code(css)}</style>\n<script type=\"module\">{web.script_code(module + BOOT)}</script>"
