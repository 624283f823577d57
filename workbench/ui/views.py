"""What each line on screen says, read from the state alone (widget-free): the status line,
the settings' folded title, the banner, the verdict of the final answers and the check's
counts (one wording each, which every panel that shows them uses), the Help page.

The first status line (what runs) is ``what_runs.running``; the pending list is ``State.pending``.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from workbench.ui import what_runs
from workbench.ui.runtime import label

if TYPE_CHECKING:
    from workbench.ui.final import FinalView
    from workbench.ui.state import State

DOCS_PAGE = "docs/widget-guide.md"  # the widget's page, the docs site's "The widget" (widget-guide/)


def check_counts(report) -> str:
    """A check report's findings by severity, the one wording of the status line, the check
    tab and the final tab."""
    severe = sum(1 for f in report.findings if f.severe)
    cosmetic = sum(1 for f in report.findings if f.cosmetic)
    warnings = len(report.findings) - severe - cosmetic
    verdict = "INCONSISTENT" if severe else "consistent"
    return f"{verdict}: {severe} finding(s), {warnings} warning(s), {cosmetic} cosmetic"


def final_verdict(final: FinalView) -> str:
    """Streaming vs non-streaming in a line: equal, only whitespace apart, or where they part."""
    differing = [d for d in final.diffs if not d.equal]
    if not differing:
        return "streaming = non-streaming"
    real = [d for d in differing if d.severity != "cosmetic"]
    if not real:
        return f"streaming ≈ non-streaming (whitespace only: {', '.join(d.field for d in differing)})"
    step = f" from step {final.first_step}" if final.first_step else ""
    return f"streaming ≠ non-streaming{step} ({', '.join(d.field for d in real)})"


def summary(s: State) -> str:
    """The stream in a line: how far, the phase, the verdict, error rows, a fresh check."""
    st = s.stream
    if not st.started:
        return f"ready: {label(st.applied)} on {st.applied.tokenizer}; Step or Run"
    rows = st.rows
    text = f"{len(rows)}{f'/{st.total}' if st.total else ''} deltas"
    if rows:
        text += f" · phase {rows[-1].phase}"
    if st.final is not None:
        text += f" · finished: {final_verdict(st.final)}"
    if st.errors:
        text += f" · {st.errors} error rows"
    if s.fresh(s.check):
        text += f" · check: {check_counts(s.check.value)}"
    return text


def status_line(s: State) -> tuple[str, str]:
    """(the last action's line, its kind: "" or "refused")."""
    o = s.outcome
    if o.kind == "refused":
        return o.message, "refused"
    if o.kind == "error":
        return f"{o.action or 'the action'} failed; {len(s.stream.rows)} rows kept", ""
    if o.kind == "idle":
        return o.message, ""
    if s.running:  # a setting picked now waits for the stream to be replayed or reset
        waiting = s.pending
        verb = "applies" if len(waiting) == 1 else "apply"
        tail = f" · {', '.join(waiting)} {verb} on Replay or Reset" if waiting else ""
        return f"running: {summary(s)}{tail}", ""
    if o.action == "Stop":
        return f"stopped: {summary(s)}; Step or Run goes on", ""
    return (f"{o.message} · {summary(s)}" if o.message else summary(s)), ""


def mid_stream(s: State) -> str | None:
    """A settings change while a stream is in progress does not change that stream: said."""
    st = s.stream
    if not st.started or st.done or not s.pending:
        return None
    return (f"{', '.join(s.pending)} changed while this stream is in progress; it goes on with the "
            "settings it started with. Reset starts over with the new ones, Replay runs its deltas through them.")


def banner(s: State) -> tuple[str, str, str | None] | None:
    """(kind, message, traceback) of the banner, or None: the last action's error, else the
    warnings (a recording's notes, settings changed mid-stream)."""
    o = s.outcome
    if o.kind == "error":
        return "error", o.message, o.details
    warnings = list(s.notes) + ([w] if (w := mid_stream(s)) else [])
    return ("warning", "; ".join(warnings), None) if warnings else None


def settings_title(s: State) -> str:
    st = s.stream
    if not st.started:
        return "settings: parsers, API, source, script and request"
    i = st.applied
    name = label(i)
    if i.plugin_text is not None and (classes := what_runs.plugin_classes(st.parser)):
        name += f" {', '.join(classes)} ({', '.join(what_runs.plugin_files(st.parser))})"
    return f"settings: {name} on {i.tokenizer} · {what_runs.vllm_of(i)} · API {i.api} · {i.source}"


def pending_html(s: State) -> str:
    """The first status line: what runs, and what waits for Replay or Reset."""
    waiting = s.pending
    tail = (f" · <span class='wb-pending'>changed, not applied yet: {html.escape(', '.join(waiting))} "
            f"(Replay or Reset applies them)</span>" if waiting else "")
    return f"<span class='wb-truth'>{html.escape(what_runs.running(s))}</span>{tail}"


def help_page() -> str:
    """The widget's docs page for the Help panel: JupyterLab serves no file outside the folder
    it was started in (``make lab``: notebooks/), so the page is shown here, not only linked."""
    from workbench.core import door
    from workbench.ui.inputs import REPO

    path = REPO / DOCS_PAGE
    if not path.is_file():
        return ""
    import mistune

    page = mistune.html(door.read_text(path, "docs page", 1 << 20))
    return f"<details class='wb-page' open><summary>the widget's page ({DOCS_PAGE})</summary>{page}</details>"
