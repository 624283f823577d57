"""The banner and the HTML the panels share (theme colours; a row's properties as HTML).

Every colour is a JupyterLab theme variable tinted into the background, as in the
table's CSS, so Light and Dark both read. Tables of records are the table component
(``ui/table.py``), never HTML here.
"""

from __future__ import annotations

import html
import json
import re
import traceback
from typing import TYPE_CHECKING

import ipywidgets as W

from workbench.core import secrets
from workbench.core.rows import Row, format_tool_calls, grammar_of
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from typing import Any

BG, FG = "var(--jp-layout-color0, #fff)", "var(--jp-content-font-color1, rgba(0,0,0,0.87))"
TINT = {"error": "var(--jp-error-color1, #d32f2f)", "warning": "var(--jp-warn-color1, #f57c00)",
        "info": "var(--jp-success-color1, #388e3c)", "reasoning": "var(--jp-brand-color1, #1976d2)",
        "content": "var(--jp-success-color1, #388e3c)", "tool": "var(--jp-warn-color1, #f57c00)"}


def tint(kind: str, percent: int = 18) -> str:
    """A background of ``kind``'s theme colour over the page's, with the page's text colour."""
    return f"background:color-mix(in srgb, {TINT[kind]} {percent}%, {BG});color:{FG}"


_KIND_CSS = {k: f"{tint(k)};border-left:4px solid {TINT[k]}" for k in ("error", "warning", "info")}


def _pre(text: str) -> str:
    # whole words only: a JSON line that does not fit scrolls sideways instead of breaking
    return ("<pre style='margin:0;font-size:11px;white-space:pre;overflow-x:auto;word-break:normal;"
            f"overflow-wrap:normal'>{html.escape(text)}</pre>")


class Banner(W.HTML):
    """One message at a time: WorkbenchError as one line, other errors with a
    one-line summary and the traceback behind a <details>."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.kind: str | None = None

    def show(self, kind: str, message: str, details: str | None = None) -> None:
        body = html.escape(message)
        if details:
            body += (f"<details><summary>traceback</summary>{_pre(details)}</details>")
        html_ = f"<div class='wb-banner wb-{kind}' style='{_KIND_CSS[kind]};padding:4px 8px'>{body}</div>"
        self.value = secrets.scrub(html_)  # the widget's output boundary, as the CLI's streams
        self.kind = kind

    def show_exception(self, exc: BaseException, context: str = "") -> None:
        where = f"{context}: " if context else ""
        if isinstance(exc, WorkbenchError):
            self.show("error", f"{where}{exc}")
        elif isinstance(exc, KeyboardInterrupt):
            self.show("warning", f"{where}interrupted (the rows so far are kept)")
        else:
            tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            if getattr(exc, "worker_traceback", ""):  # a lane's bug (LaneFailed): where it really raised
                tb += "\nthe lane worker's traceback:\n" + exc.worker_traceback
            first = str(exc).splitlines()[0] if str(exc) else ""
            self.show("error", f"{where}unexpected {type(exc).__name__}: {first}", tb)

    def clear(self) -> None:
        self.value = ""
        self.kind = None


def _kv_table(pairs: list[tuple[str, str]]) -> str:
    rows = "".join(f"<tr><th style='text-align:left;vertical-align:top;padding:1px 8px 1px 0;"
                   f"white-space:nowrap'>{html.escape(k)}</th><td style='padding:1px 0'>{v}</td></tr>"
                   for k, v in pairs)
    return f"<table class='wb-detail' style='border-collapse:collapse;font-size:12px'>{rows}</table>"


_WS = str.maketrans({" ": "␣", "\n": "⏎", "\t": "⇥", "\r": "␍"})
_ESC = str.maketrans({" ": "␣", "\n": "\\n", "\t": "\\t", "\r": "\\r"})


def _ws_run(m: re.Match) -> str:
    """A whitespace run drawn as the table draws it: spaces as ␣, a newline or tab as its
    escape (\\n) in a mark that stands out."""
    run = m.group(0)
    if run.strip(" "):
        return f"<span class='wb-ws wb-nl'>{run.translate(_ESC)}</span>"
    return f"<span class='wb-ws'>{run.translate(_WS)}</span>"


def visible(value: Any) -> str:
    """A value as HTML with whitespace visible; None and "" told apart."""
    if value is None:
        return "<i>None</i>"
    if value == "":
        return '<code>""</code>'
    text = re.sub(r"[ \n\t\r]+", _ws_run, html.escape(str(value)))
    return f"<code style='white-space:pre-wrap;word-break:normal'>{text}</code>"


def row_detail_html(row: Row, decode=None, forced: bool = False) -> tuple[str, str]:
    """One delta's properties as (head, tail) HTML: step, text, phase and DeltaMessage above
    its tables (tokens, engine states, events: ``detail``); below, a sampled row's candidates
    (``forced``: a scripted engine row says so), the SSE chunk, logs, time, grammar, engine view
    and error. A property list stays HTML: one value per name, read down."""
    delta = row.delta
    head = [
        ("step", str(row.step) + (f" ({row.engine_steps} engine steps)" if row.engine_steps != 1 else "")),
        ("text", visible(row.text)),
        ("phase", html.escape(f"{row.phase_before} → {row.phase}")),
        ("DeltaMessage", "parse_delta returned None" if delta is None else
         f"reasoning: {visible(delta.reasoning)}<br>content: {visible(delta.content)}"
         + (f"<br>tool_calls: {visible(format_tool_calls(row.tool_calls))}" if row.tool_calls else "")),
    ]
    chunk = json.dumps(json.loads(row.chunk), indent=1, ensure_ascii=False) if row.chunk else "(no SSE chunk)"
    tail = [
        ("SSE chunk", _pre(chunk)),
        ("vLLM log", _pre("\n".join(row.logs)) if row.logs else "(none)"),
        ("parser time", f"{row.parser_us:.0f} µs"),
    ]
    grammar = grammar_of(row)
    if grammar is not None:
        tail.append(("grammar", html.escape(grammar)))
    if row.extra.get("candidates"):
        tail.insert(0, ("candidates", candidates_html(row.extra["candidates"])))
    elif forced and row.token_ids:
        tail.insert(0, ("candidates", "forced (the script sets every other logit to -inf)"))
    extra = {k: v for k, v in row.extra.items() if k not in ("traceback", "candidates")}  # Copy JSON keeps them
    if extra:
        tail.append(("engine", _pre(json.dumps(extra, indent=1, ensure_ascii=False, default=str))))
    if row.error:
        tail.append(("error", f"<span style='{tint('error', 22)}'>{html.escape(row.error)}</span>"
                     + (f"<details><summary>traceback</summary>{_pre(row.extra['traceback'])}</details>"
                        if row.extra.get("traceback") else "")))
    return secrets.scrub(_kv_table(head)), secrets.scrub(_kv_table(tail))


# -- the candidates chart: what the model wanted, and what the grammar allowed ---------
_MUTED = "var(--jp-ui-font-color2, rgba(0,0,0,0.54))"
_TRACK = "var(--jp-layout-color2, #eee)"
_BAR = TINT["reasoning"]
_MASKED = TINT["error"]
_CHOSEN = TINT["tool"]


def _percent(p: float | None) -> str:
    if p is None:
        return "?"
    return f"{p * 100:.1f}%" if p >= 0.001 else f"{p * 100:.2g}%"


def _bar(item: dict, chosen: int, scale: float) -> str:
    """One candidate: its token, a bar as long as its probability (of the column's largest),
    the probability; a masked one struck through in the error colour (✕), the chosen one
    outlined (◀)."""
    masked, is_chosen = item.get("masked", False), item["id"] == chosen
    colour = _MASKED if masked else _BAR
    width = 0 if scale <= 0 else max(1.0, 100 * item["p"] / scale)
    token = visible(item["token"])
    label = f"<s>{token}</s>" if masked else token
    mark = (f"<b style='color:{_CHOSEN}' title='the chosen token'>◀</b>" if is_chosen else
            f"<span style='color:{_MASKED}' title='masked by the grammar'>✕</span>" if masked else "")
    outline = f"outline:2px solid {_CHOSEN};outline-offset:-1px;" if is_chosen else ""
    cls = "wb-cand" + (" wb-cand-masked" if masked else "") + (" wb-cand-chosen" if is_chosen else "")
    return (f"<div class='{cls}' style='display:grid;grid-template-columns:minmax(50px,8em) minmax(40px,1fr) "
            f"4.2em 1em;gap:4px;align-items:center;{outline}padding:0 2px'>"
            f"<span style='overflow:hidden;text-overflow:ellipsis;white-space:nowrap'>{label}</span>"
            f"<span style='background:{_TRACK};height:10px;display:block'><span style='display:block;height:100%;"
            f"width:{width:.1f}%;background:{colour};opacity:{0.6 if masked else 0.9}'></span></span>"
            f"<span style='text-align:right;font-variant-numeric:tabular-nums'>{_percent(item['p'])}</span>"
            f"<span>{mark}</span></div>")


def _column(title: str, items: list[dict], chosen: int, rank: int | None, p: float | None, token: str,
            note: str = "") -> str:
    scale = max((i["p"] for i in items), default=0.0)
    bars = "".join(_bar(i, chosen, scale) for i in items)
    if not any(i["id"] == chosen for i in items):
        where = f"rank {rank}" if rank is not None else "not allowed"
        bars += (f"<div style='color:{_MUTED};font-size:10px'>… the chosen {visible(token)} at {where}, "
                 f"{_percent(p)}</div>")
    rank_text = f"rank {rank}" if rank is not None else "masked"
    return (f"<div class='wb-cands-col' style='flex:1 1 200px;min-width:180px'>"
            f"<div><b>{html.escape(title)}</b> <span style='color:{_MUTED}'>· chosen: {rank_text}, "
            f"{_percent(p)}{html.escape(note)}</span></div>{bars}</div>")


def candidates_html(entries: list[dict]) -> str:
    """A sampled row's candidates (``row.extra["candidates"]``, engine/candidates.py) as bar
    charts, one pair per token: the model's top tokens before the grammar's mask (a masked one
    struck through) beside the same logits after it, renormalised; the chosen token outlined,
    with its rank and probability in each. Pure HTML in theme colours (Light and Dark)."""
    parts = []
    for n, e in enumerate(entries):
        token = next((i["token"] for i in (*e["before"], *e["after"]) if i["id"] == e["token"]), f"<{e['token']}>")
        head = (f"<div style='color:{_MUTED}'>token {n + 1} of {len(entries)}: {visible(token)} "
                f"(id {e['token']})</div>") if len(entries) > 1 else ""
        wanted = _column("the model wanted", e["before"], e["token"], e.get("rank_before"), e.get("p_before"), token)
        if e.get("masked"):
            allowed = _column("the grammar allowed", e["after"], e["token"], e.get("rank_after"), e.get("p_after"),
                              token, f" · {e['allowed']} token{'' if e['allowed'] == 1 else 's'} allowed"
                              if e.get("allowed") is not None else "")
        else:
            allowed = (f"<div class='wb-cands-col' style='flex:1 1 200px;min-width:180px;color:{_MUTED}'>"
                       "<b>the grammar allowed</b>: everything (no grammar mask at this step: the model "
                       "chose freely)</div>")
        parts.append(f"{head}<div style='display:flex;flex-wrap:wrap;gap:6px 14px'>{wanted}{allowed}</div>")
    legend = (f"<div style='color:{_MUTED};margin-bottom:2px'>the top {len(entries[0]['before'])} by probability; "
              f"<span style='color:{_CHOSEN}'>◀ outlined</span>: the chosen token; "
              f"<span style='color:{_MASKED}'>✕ struck through</span>: masked by the grammar</div>") if entries else ""
    return f"<div class='wb-candidates' style='font-size:11px;min-width:0'>{legend}{''.join(parts)}</div>"
