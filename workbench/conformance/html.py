"""The matrix as one static page (no CDN, nothing beside it, works offline).

A parser x column summary (a column is VERSION/FRONTEND/API; its counts per verdict), the
cells below it with filters by parser, version, frontend, API, grouping and verdict (and
change, after ``--against``); a click on a cell opens its first divergent delta (the step,
the model text of that delta, what the parser sent) and the exact ``workbench replay``
command that shows it, with a copy button. The Python-vs-Rust section lists, per parser
name, the versions whose Python parsers and whose vllm-rs register it, and per case
whether the two frontends agree. Every value enters the page as text or as JSON in a
``<script type="application/json">`` (core/writing/html.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from workbench.core.writing import html as web
from workbench.conformance import cells as cells_mod, pyrs

COLOURS = {"match": "#cfe8d5", "differs": "#f6d2cf", "stream≠nonstream": "#f9e2b8", "error": "#e5c9ef",
           "n/a": "#e6e9ee"}

CSS = """
.wb-matrix{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2430}
.wb-matrix h1{font-size:20px;margin:0 0 4px} .wb-matrix h2{font-size:16px;margin:26px 0 8px}
.wb-matrix .sub{color:#556} .wb-matrix table{border-collapse:collapse;margin:6px 0}
.wb-matrix th,.wb-matrix td{border-bottom:1px solid #dde2ea;padding:3px 8px;text-align:left;vertical-align:top}
.wb-matrix th{background:#f3f5f8;position:sticky;top:0} .wb-matrix td.n{text-align:center}
.wb-matrix code,.wb-matrix pre{font:12px ui-monospace,Menlo,Consolas,monospace;background:#f3f5f8;border-radius:3px}
.wb-matrix code{padding:1px 4px} .wb-matrix pre{padding:6px;white-space:pre-wrap;margin:4px 0}
.wb-matrix #cells tbody tr{cursor:pointer} .wb-matrix #cells tbody tr:hover{outline:1px solid #7a8aa0}
.wb-matrix #cells tr.open{outline:2px solid #3b6fb6}
.wb-matrix .filters label{margin-right:12px} .wb-matrix #detail{border:1px solid #c9d1dc;padding:8px 12px;
 margin:10px 0;border-radius:4px;background:#fbfcfd} .wb-matrix .legend span{padding:1px 6px;margin-right:6px}
"""

SCRIPT = """
(() => {
const root = document.querySelector('.wb-matrix');
const data = JSON.parse(root.querySelector('#matrix-data').textContent);
const colours = data.colours, cells = data.cells, keys = data.filters;
const sel = {};
const filters = root.querySelector('.filters');
for (const k of keys) {
  const values = [...new Set(cells.map(c => c[k] == null ? '' : String(c[k])))].sort();
  const label = document.createElement('label');
  label.textContent = k + ' ';
  const s = document.createElement('select');
  s.name = k; s.id = 'filter-' + k;
  s.append(new Option('all', ''));
  for (const v of values) s.append(new Option(v || '-', v));
  s.addEventListener('change', () => { sel[k] = s.value; draw(); });
  label.append(s); filters.append(label);
}
const body = root.querySelector('#cells tbody');
const shown = root.querySelector('#shown');
function draw() {
  body.textContent = '';
  let n = 0;
  cells.forEach((c, i) => {
    if (keys.some(k => sel[k] && String(c[k] == null ? '' : c[k]) !== sel[k])) return;
    n++;
    const tr = document.createElement('tr');
    tr.dataset.i = i; tr.dataset.verdict = c.verdict;
    for (const k of data.columns) {
      const td = document.createElement('td');
      td.textContent = c[k] == null ? '' : String(c[k]);
      if (k === 'verdict') td.style.background = colours[c.verdict] || '';
      tr.append(td);
    }
    tr.addEventListener('click', () => open(i, tr));
    body.append(tr);
  });
  shown.textContent = n + ' of ' + cells.length + ' cells';
}
function line(label, value) {
  const p = document.createElement('div');
  const b = document.createElement('b'); b.textContent = label + ' ';
  p.append(b);
  const pre = document.createElement('pre'); pre.textContent = value;
  p.append(pre); return p;
}
function open(i, tr) {
  const c = cells[i];
  root.querySelectorAll('#cells tr.open').forEach(r => r.classList.remove('open'));
  tr.classList.add('open');
  const d = root.querySelector('#detail');
  d.textContent = '';
  const h = document.createElement('h3'); h.textContent = c.name + ': ' + c.verdict; d.append(h);
  if (c.detail) d.append(line('what', c.detail));
  if (c.allowed) d.append(line('allowed', c.allowed.reason + ' ' + c.allowed.link));
  if (c.first) {
    const f = c.first;
    const s = document.createElement('div'); s.className = 'first-step';
    s.append(line('first divergent step ' + f.step + ': the delta', JSON.stringify(f.text)));
    s.append(line('the parser sent', JSON.stringify(f.delta)));
    if (f.error) s.append(line('it raised', f.error));
    d.append(s);
  }
  if (c.got) d.append(line('the client ended with', JSON.stringify(c.got)));
  const cmd = line('replay it', c.replay); cmd.className = 'replay';
  const b = document.createElement('button'); b.textContent = 'copy'; b.className = 'copy';
  b.addEventListener('click', () => (navigator.clipboard ? navigator.clipboard.writeText(c.replay)
    : Promise.reject()).then(() => { b.textContent = 'copied'; }, () => window.prompt('Copy:', c.replay)));
  cmd.append(b); d.append(cmd);
  d.hidden = false;
}
draw();
})();
"""

COLUMNS = ("case", "parser", "vllm", "frontend", "api", "grouping", "verdict", "field", "step", "change")
FILTERS = ("parser", "vllm", "frontend", "api", "grouping", "verdict")


def summary_table(cells: Sequence[Mapping]) -> str:
    s = cells_mod.summary(cells)
    columns = sorted({col for per in s.values() for col in per})
    head = "".join(f"<th>{web.text(c)}</th>" for c in columns)
    rows = []
    for parser, per in sorted(s.items()):
        tds = []
        for col in columns:
            counts = per.get(col, {})
            parts = [f'<span style="background:{COLOURS[v]}" title="{web.text(v)}">{counts[v]:d}</span>'
                     for v in cells_mod.VERDICTS if counts.get(v)]
            tds.append(f"<td class='n'>{' '.join(parts)}</td>")
        rows.append(f"<tr><th>{web.text(parser)}</th>{''.join(tds)}</tr>")
    return f"<table id='summary'><thead><tr><th>parser</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def names_table(names: Sequence[Mapping]) -> str:
    rows = "".join(f"<tr><td>{web.text(n['kind'])}</td><td>{web.text(n['name'])}</td>"
                   f"<td>{web.text(', '.join(n['python']) or '-')}</td><td>{web.text(', '.join(n['rust']) or '-')}</td></tr>"
                   for n in names)
    only_py = {k: sum(1 for n in names if n["kind"] == k and n["python"] and not n["rust"]) for k in ("tool", "reasoning")}
    rust = {k: sum(1 for n in names if n["kind"] == k and n["rust"]) for k in ("tool", "reasoning")}
    return (f"<p class='sub'>vllm-rs registers {rust['tool']:d} tool and {rust['reasoning']:d} reasoning parser names; "
            f"{only_py['tool']:d} Python tool names and {only_py['reasoning']:d} reasoning names have no Rust "
            f"counterpart.</p><table id='names'><thead><tr><th>kind</th><th>name</th><th>Python in</th>"
            f"<th>vllm-rs in</th></tr></thead><tbody>{rows}</tbody></table>")


def agreement_table(rows: Sequence[Mapping]) -> str:
    if not rows:
        return "<p class='sub'>no case ran on both frontends (--frontend python,rust)</p>"
    body = "".join(
        f"<tr><td>{web.text(r['case'])}</td><td>{web.text(r['vllm'])}</td><td>{web.text(r['api'])}</td>"
        f"<td>{web.text(r['grouping'])}</td><td>{web.text(r['python'])}</td><td>{web.text(r['rust'])}</td>"
        f"<td>{web.text(r['agree'])}</td><td>{web.text(r['detail'] or '')}</td></tr>" for r in rows)
    return ("<table id='agreement'><thead><tr><th>case</th><th>vLLM</th><th>API</th><th>grouping</th><th>Python</th>"
            f"<th>Rust</th><th>agree</th><th>where</th></tr></thead><tbody>{body}</tbody></table>")


def fragment(cells: Sequence[Mapping], changes: Sequence[Mapping] | None = None, title: str = "workbench matrix",
             names: Sequence[Mapping] | None = None) -> str:
    counts = cells_mod.counts(cells)
    shown = [dict(c, name=cells_mod.name_of(c)) for c in cells]
    filters = list(FILTERS) + (["change"] if changes is not None else [])
    data = {"cells": [{k: c.get(k) for k in (*COLUMNS, "name", "detail", "first", "got", "replay", "allowed")}
                      for c in shown], "columns": list(COLUMNS), "filters": filters, "colours": COLOURS}
    legend = "".join(f'<span style="background:{COLOURS[v]}">{web.text(v)} {counts[v]:d}</span>'
                     for v in cells_mod.VERDICTS)
    changed = ""
    if changes is not None:
        per = {k: sum(1 for ch in changes if ch["change"] == k) for k in ("fixed", "broken", "changed", "new", "gone")}
        changed = "<p class='sub'>since the earlier run: " + ", ".join(f"{n:d} {k}" for k, n in per.items()) + "</p>"
    pyrs_section = ""
    if names is not None or any(c["frontend"] == "rust" for c in cells):
        pyrs_section = ("<h2 id='pyrs'>Python vs Rust</h2>" + (names_table(names) if names is not None else "")
                        + agreement_table(pyrs.agreement(cells)))
    return f"""<div class="wb-matrix"><style>{CSS}</style>
<h1>{web.text(title)}</h1>
<p class="sub legend">{len(cells):d} cells · {legend}</p>{changed}
<h2>Parsers × version/frontend/API</h2>{summary_table(cells)}
<h2>Cells</h2><div class="filters"></div><p class="sub" id="shown"></p>
<div id="detail" hidden></div>
<table id="cells"><thead><tr>{''.join(f'<th>{web.text(c)}</th>' for c in COLUMNS)}</tr></thead><tbody></tbody></table>
{pyrs_section}
<script type="application/json" id="matrix-data">{web.script_json(data)}</script>
<script>{web.script_code(SCRIPT)}</script></div>"""


def page(cells: Sequence[Mapping], changes: Sequence[Mapping] | None = None, title: str = "workbench matrix",
         names: Sequence[Mapping] | None = None) -> str:
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{web.text(title)}</title></head>'
            f'<body style="margin:24px">{fragment(cells, changes, title, names)}</body></html>\n')
