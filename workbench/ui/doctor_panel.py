"""The Diagnose tab: `workbench doctor` on the stream on screen, drawn from the state's doctor
result. The evidence (stream vs non-stream, groupings), the causes most likely first with
the file and method in vLLM, whether another vLLM version still shows it, the settings'
problems, the parsers that would read the text; the minimal grouping as a button that
replays it; the ``--report`` markdown and its pytest file to download."""

from __future__ import annotations

import html

import ipywidgets as W

from workbench.ui.state import State

INTRO = ("<i>Diagnose runs <code>workbench doctor</code> on the stream on screen with the settings that made "
         "it: which field goes wrong from which step, why (most likely first), where in vLLM, and whether "
         "another vLLM version still shows it</i>")


def _li(text: str) -> str:
    return f"<li>{html.escape(text)}</li>"


def parser_label(p: dict) -> str:
    return f"config {p['config']}" if p.get("config") else f"{p.get('tool_parser') or '-'}+{p.get('reasoning_parser') or '-'}"


def evidence(d: dict) -> list[str]:
    """What the doctor saw: stream vs non-stream, the groupings, the rest of check's findings."""
    found = [f for f in d["findings"] if f.get("severity") != "cosmetic"]
    modes = [f for f in found if f["kind"] == "stream_vs_nonstream"]
    chunked = [f for f in found if f["kind"] == "chunking"]
    out = [f"stream vs non-stream: {f['field']} from step {f['first_step']}: {f['detail']}" for f in modes] or [
        "stream vs non-stream: they agree" + (" (up to whitespace / None vs '')" if any(
            f["kind"] == "stream_vs_nonstream" for f in d["findings"]) else "")]
    out += [f"chunking: {f['field']} depends on the grouping ({f['detail']}); minimal grouping "
            f"{f.get('minimal_grouping') or f.get('chunking')}" for f in chunked] or [
        f"chunking: no grouping of the {d['checked'].get('tokens', '?')} tokens changes the answer "
        f"({d['checked'].get('groupings', 0)} checked)"]
    out += [f"{f['kind']} {f['field']}: {f['detail']}" for f in found if f["kind"] not in ("stream_vs_nonstream", "chunking")]
    api = d["modes"].get("api")
    if api:
        out.append(f"{api['api']} stream vs its non-streaming body: "
                   + (f"differ in {', '.join(api['differs'])}" if api["differs"] else "they agree"))
    return out


def report_html(d: dict) -> str:
    """The doctor's report dict, in sections."""
    from workbench.diagnosis.where import describe

    s = d["setup"]
    out = [f"<div><b>{html.escape(parser_label(s['parser']))}</b> on {html.escape(s['tokenizer'])} "
           f"(vLLM {html.escape(str(s.get('vllm')))}), API {html.escape(str(s.get('api', 'chat')))}, "
           f"{s.get('deltas')} deltas, chunking {html.escape(str(s.get('chunking')))}, finish_reason "
           f"{html.escape(str(s.get('finish_reason')))}</div>"]
    out.append("<b>evidence</b><ul>" + "".join(_li(x) for x in evidence(d)) + "</ul>")
    if d["causes"]:
        items = []
        for n, c in enumerate(d["causes"], 1):
            sev = "" if c["severity"] == "error" else f" [{c['severity']}]"
            extra = "".join(f"<div class='wb-dim'>{html.escape(e)}</div>" for e in c["evidence"][:4])
            if c.get("where"):
                extra += f"<div>where: <code>{html.escape(describe(c['where']))}</code></div>"
            if c.get("versions"):
                extra += f"<div>versions: <b>{html.escape(c['versions']['verdict'])}</b></div>"
            items.append(f"<li><b>{html.escape(c['class'])}</b>{html.escape(sev)}: {html.escape(c['summary'])}"
                         f"{extra}</li>")
        out.append(f"<b>causes, most likely first</b><ol class='wb-causes'>{''.join(items)}</ol>")
    for dg in d["diagnoses"]:
        mark = "✗" if dg["severity"] == "problem" else "i"
        fix = f"<div>fix: {html.escape(dg['fix'])}</div>" if dg["fix"] else ""
        out.append(f"<div>{mark} <b>{html.escape(dg['code'])}</b>: {html.escape(dg['message'])}{fix}</div>")
    if d["tool_parsers"]:
        names = ", ".join(f"{r['parser']} ({r['ok_calls']} call(s))" for r in d["tool_parsers"][:6])
        out.append(f"<div>tool parsers that extract well-formed calls from this text: {html.escape(names)}</div>")
    if not d["causes"] and not any(dg["severity"] == "problem" for dg in d["diagnoses"]):
        out.append("<div><b>nothing wrong found</b></div>")
    return "".join(out)


def minimal_grouping(report) -> str | None:
    for f in report.findings if report is not None else ():
        if "minimal_grouping" in f.extra:
            return f.extra["minimal_grouping"]
    return None


class DoctorPanel(W.VBox):
    def __init__(self) -> None:
        self.diagnose_button = W.Button(description="Diagnose", icon="stethoscope", button_style="primary",
                                        tooltip="workbench doctor on the stream on screen")
        self.versions = W.Checkbox(value=True, description="ask the other vLLM versions", indent=False,
                                   layout=W.Layout(width="auto"))
        self.grouping_button = W.Button(description="replay the minimal grouping", disabled=True,
                                        layout=W.Layout(width="auto"))
        self.report_button = W.Button(description="Download report", icon="download", disabled=True,
                                      layout=W.Layout(width="auto"), tooltip="the --report markdown")
        self.test_button = W.Button(description="Download test", icon="download", disabled=True,
                                    layout=W.Layout(width="auto"),
                                    tooltip="the report's pytest file: it fails while the bug is there")
        self.html = W.HTML(INTRO)
        super().__init__([W.HBox([self.diagnose_button, self.versions, self.grouping_button, self.report_button,
                                  self.test_button], layout=W.Layout(flex_flow="row wrap", align_items="center")),
                          self.html], layout=W.Layout(width="100%"))
        self.add_class("wb-doctor")

    def render(self, s: State) -> None:
        r = s.doctor
        with self.hold_sync():
            if r is None:
                self.html.value = INTRO
            else:
                stale = "" if s.fresh(r) else ("<div><i>about an earlier stream (Diagnose again for the rows on "
                                               "screen)</i></div>")
                self.html.value = stale + report_html(r.value.to_dict())
            label = minimal_grouping(r.value) if r is not None else None
            self.grouping_button.disabled = label is None
            self.grouping_button.description = (f"replay the minimal grouping {label}" if label
                                                else "replay the minimal grouping")
            self.report_button.disabled = r is None
            self.test_button.disabled = r is None or not r.extra.get("test")
