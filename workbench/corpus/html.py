"""The corpus report as one self-contained html page (no CDN, no external file): the
kinds table, a bar chart of findings per kind x version, a histogram of first
divergent steps (both inline SVG), the errors, and one row per recording with a
finding, each with the command that opens it in the widget (a click shows it with a
copy button; Ctrl+C copies the selected rows' commands).

The tables are the widget's own table component (``pages/page_table``: table.js's module
and CSS inlined) under ``core.rows.Column`` schemas, so they read as the widget's do.
"""

from __future__ import annotations

import math
import os

from workbench.core.rows import LABEL, NUMBER, Column
from workbench.core.writing import html as web
from workbench.corpus.summary import Summary, kind_of
from workbench.pages import page_table

COLOURS = ["#3b6fb6", "#d9822b", "#3a9a5b", "#a34fb0", "#c44949", "#6b7b8c"]
MAX_ROWS = 2000  # recordings listed in the page; the results file has them all
MAX_KINDS = 16  # kinds drawn in the chart

CSS = """
.wb-corpus{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2430;background:#fff}
.wb-corpus h1{font-size:20px;margin:0 0 4px} .wb-corpus h2{font-size:16px;margin:28px 0 8px}
.wb-corpus .sub{color:#556} .wb-corpus table{border-collapse:collapse;margin:6px 0}
.wb-corpus th,.wb-corpus td{border-bottom:1px solid #dde2ea;padding:4px 8px;text-align:left;vertical-align:top}
.wb-corpus th{background:#f3f5f8} .wb-corpus td.n{text-align:right;font-variant-numeric:tabular-nums}
.wb-corpus code{font:12px ui-monospace,Menlo,Consolas,monospace;background:#f3f5f8;padding:1px 4px;border-radius:3px}
.wb-corpus .fixed{color:#2f7d4a} .wb-corpus .new{color:#b23b3b}
.wb-corpus svg text{font:12px system-ui,sans-serif;fill:#1d2430}
.wb-corpus button.copy{font-size:11px;margin-left:6px;cursor:pointer}
.wb-corpus .open{margin:4px 0} .wb-corpus .wb-page-table{max-width:1400px}
"""

SCRIPT = """
document.addEventListener('wb-select', e => {
  const open = e.target.closest('.wb-corpus').querySelector('#open-cmd');
  if (open && e.detail && e.detail._copy) open.textContent = e.detail._copy;
});
document.addEventListener('click', e => {
  const b = e.target.closest('button.copy'); if (!b) return;
  const text = b.previousElementSibling.textContent;
  (navigator.clipboard ? navigator.clipboard.writeText(text) : Promise.reject()).then(
    () => { b.textContent = 'copied'; }, () => { window.prompt('Copy the command:', text); });
});
"""


def open_command(line: dict) -> str:
    """The notebook call that opens this recording in the widget, parsers from its header."""
    path = os.path.abspath(line["path"])
    versions = list(line.get("versions") or {})
    extra = f", vllm={versions[-1]!r}" if len(versions) > 1 else ""
    return f"workbench.show(recording={path!r}, run=True{extra})"


def bar_chart(s: Summary) -> str:
    kinds = s.kinds[:MAX_KINDS]
    versions = s.versions or [""]
    top = max((max(k.recordings.values(), default=0) for k in kinds), default=0) or 1
    label_w, bar_w, row_h = 260, 400, 16
    group_h = row_h * len(versions) + 10
    height = 30 + group_h * max(1, len(kinds))
    out = [f'<svg id="kinds-chart" xmlns="http://www.w3.org/2000/svg" width="{label_w + bar_w + 60:d}" '
           f'height="{height:d}" role="img" aria-label="findings per kind and version">']
    for i, v in enumerate(versions):  # legend
        x = label_w + i * 130
        out.append(f'<rect x="{x:d}" y="4" width="12" height="12" fill="{web.text(COLOURS[i % len(COLOURS)])}"/>'
                   f'<text x="{x + 16:d}" y="14">{web.text(v)}</text>')
    for gi, k in enumerate(kinds):
        y0 = 30 + gi * group_h
        out.append(f'<text x="{label_w - 8:d}" y="{y0 + group_h / 2:g}" text-anchor="end">{web.text(k.name)}</text>')
        for vi, v in enumerate(versions):
            n = k.recordings.get(v, 0)
            w = bar_w * n / top
            y = y0 + vi * row_h
            out.append(f'<rect class="bar" x="{label_w:d}" y="{y:d}" width="{w:.1f}" height="{row_h - 3:d}" '
                       f'fill="{web.text(COLOURS[vi % len(COLOURS)])}"><title>{web.text(k.name)} · {web.text(v)}: '
                       f'{n:d}</title></rect><text x="{label_w + w + 4:.1f}" y="{y + row_h - 5:d}">{n:d}</text>')
    out.append("</svg>")
    return "".join(out)


def histogram(s: Summary) -> str:
    steps = s.first_steps
    if not steps:
        return '<p class="sub">no finding has a first divergent step</p>'
    hi = max(steps)
    width = max(1, math.ceil(hi / 40))
    bins: dict[int, int] = {}
    for step, n in steps.items():
        bins[(step - 1) // width] = bins.get((step - 1) // width, 0) + n
    nbins = (hi - 1) // width + 1
    top = max(bins.values())
    w, h, bw = 720, 200, 680 / nbins
    out = [f'<svg id="steps-chart" xmlns="http://www.w3.org/2000/svg" width="{w:d}" height="{h + 40:d}" role="img" '
           f'aria-label="first divergent steps">']
    for b in range(nbins):
        n = bins.get(b, 0)
        bh = h * n / top
        lo = b * width + 1
        label = f"{lo:d}" if width == 1 else f"{lo:d}-{lo + width - 1:d}"
        out.append(f'<rect class="bar" x="{30 + b * bw:.1f}" y="{h - bh + 10:.1f}" width="{max(bw - 2, 1):.1f}" '
                   f'height="{bh:.1f}" fill="{web.text(COLOURS[0])}"><title>step {web.text(label)}: {n:d}</title></rect>')
        if b % max(1, nbins // 10) == 0:
            out.append(f'<text x="{30 + b * bw:.1f}" y="{h + 28:d}">{web.text(label)}</text>')
    out.append(f'<text x="0" y="20">{top:d}</text><text x="0" y="{h + 10:d}">0</text></svg>')
    return "".join(out)


def kind_columns(versions: list[str]) -> list[Column]:
    """The kinds table's schema: the finding, its recordings per version, where it was
    fixed, came back or is new, its smallest examples."""
    counts = [Column(f"v{i}", v, f"recordings with this finding on vLLM {v}",
                     lambda k, v=v: k.recordings.get(v, 0), NUMBER, width=64, grow=0, fit=96)
              for i, v in enumerate(versions)]
    return [Column("finding", "finding", "the kind of finding (check's name, the field)", lambda k: k.name,
                   LABEL, width=180, grow=1, fit=360), *counts,
            Column("fixed", "fixed in", "versions in which recordings with it have it no more",
                   lambda k: ", ".join(f"{v}: {n}" for v, n in k.fixed_in.items()) or None, LABEL,
                   width=90, grow=0.5, field="content"),
            Column("back", "back in", "versions in which recordings have it again after a version without it",
                   lambda k: ", ".join(f"{v}: {n}" for v, n in k.back_in.items()) or None, LABEL,
                   shown="auto", width=90, grow=0.5, field="tool"),
            Column("new", "new in", "versions in which recordings have it that did not before",
                   lambda k: ", ".join(f"{v}: {n}" for v, n in k.new_in.items()) or None, LABEL,
                   width=90, grow=0.5, field="tool"),
            Column("examples", "smallest examples", "the smallest recordings with it (shrunk: the text)",
                   lambda k: " · ".join(_example(x) for x in k.examples) or None, LABEL, width=240, grow=3)]


def kinds_table(s: Summary) -> str:
    cols = kind_columns(s.versions)
    return page_table.element("kinds", cols, page_table.records(s.kinds, cols), height=320,
                              hint="hover a cell for all of it · drag a header's edge to resize")


def _example(x: dict) -> str:
    what = f"{x['text']!r} ({x['tokens']} tokens)" if x["shrunk"] else \
        (f"{x['tokens']} tokens" if x["tokens"] is not None else "")
    grouping = f" ({x['grouping']})" if x.get("grouping") else ""
    return f"{os.path.basename(x['path'])}: {what}{grouping}"


OPEN = Column("open", "open in the widget", "the notebook call that opens it in the widget", open_command,
              LABEL, width=300, grow=2.5)
RECORDING_COLUMNS = [
    Column("path", "recording", "the recording's path", lambda ln: ln["path"], LABEL, width=220, grow=2),
    Column("parser", "parser", "the parsers it ran with (its header's)", lambda ln: ln.get("parser"), LABEL,
           width=110, grow=0.6),
    Column("findings", "findings", "what was found (or the error it stopped on)",
           lambda ln: ln["error"] if ln.get("error") else ", ".join(kinds_of(ln)), LABEL, width=160, grow=1.5),
    Column("first_step", "first step", "the first step at which streaming and non-streaming diverge",
           lambda ln: first_step(ln), NUMBER, width=48, grow=0, fit=96),
    OPEN,
]


def recordings_table(lines: list[dict]) -> str:
    listed = [ln for ln in lines if ln.get("error") or kinds_of(ln)]
    shown = listed[:MAX_ROWS]
    more = len(listed) - len(shown)
    note = f"<p class='sub'>{more:d} more in the results file</p>" if more > 0 else ""
    first = f"<code id='open-cmd'>{web.text(open_command(shown[0]))}</code><button class='copy'>copy</button>" \
        if shown else "<code id='open-cmd'></code>"
    return (page_table.element("recordings", RECORDING_COLUMNS,
                               page_table.records(shown, RECORDING_COLUMNS, copy=OPEN), height=440,
                               hint="click a recording: its command below · Ctrl+C copies the selected "
                                    "ones' commands")
            + f"<p class='open'>{first}</p>{note}")


def kinds_of(ln: dict) -> list[str]:
    if ln.get("mode") == "diff":
        d = ln.get("diff") or {}
        return [] if not d or d["same"] else [f"step {f}" for f in d["at_first_step"]] + list(d["final"])
    out: list[str] = []
    for v, r in (ln.get("versions") or {}).items():
        for f in r["findings"]:
            name = kind_of(f) + (f" @{v}" if len(ln["versions"]) > 1 else "")
            if name not in out:
                out.append(name)
    return out


def first_step(ln: dict):
    if ln.get("mode") == "diff":
        return (ln.get("diff") or {}).get("first_step")
    steps = [f["first_step"] for r in (ln.get("versions") or {}).values() for f in r["findings"] if f.get("first_step")]
    return min(steps) if steps else None


ERROR_COLUMNS = [
    Column("kind", "kind", "the kind of error", lambda x: x["kind"], LABEL, width=120, grow=0.5),
    Column("count", "recordings", "recordings that stopped on it", lambda x: x["count"], NUMBER, width=80, grow=0),
    Column("error", "first message", "the first recording's message", lambda x: x["error"], LABEL, width=300, grow=3),
]


def fragment(s: Summary, lines: list[dict], title: str) -> str:
    """The report as one element (its CSS scoped to it): the page's body, a notebook's output."""
    errors = "<h2>Errors</h2>" + page_table.element("errors", ERROR_COLUMNS, page_table.records(
        s.errors, ERROR_COLUMNS), height=200, hint="hover a message for all of it") if s.errors else ""
    return f"""<div class="wb-corpus"><style>{CSS}</style>
<h1>{web.text(title)}</h1>
<p class="sub">{s.recordings:d} recordings · {s.ran:d} ran · {s.with_findings:d} with findings · {len(s.errors):d} kinds of
error ({sum(x['count'] for x in s.errors):d} recordings) · versions: {web.text(', '.join(s.versions))}</p>
<h2>Findings by kind</h2>{kinds_table(s)}
<h2>Findings per kind × version</h2>{bar_chart(s)}
<h2>First divergent step</h2>{histogram(s)}
{errors}
<h2>Recordings</h2>{recordings_table(lines)}
<script type="application/json" id="summary">{web.script_json(s.to_dict())}</script>
<script>{SCRIPT}</script>{page_table.assets()}</div>"""


def page(s: Summary, lines: list[dict], title: str) -> str:
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{web.text(title)}</title></head>'
            f'<body style="margin:24px">{fragment(s, lines, title)}</body></html>\n')
