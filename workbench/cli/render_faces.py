"""Terminal rendering of an API face: its events per step, and what the client ends with
beside the non-streaming body."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.core.faces import finals
from workbench.core.faces.face import event_summary
from workbench.core.writing import terminal
from workbench.core.writing.terminal import Table

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from workbench.core.writing.terminal import Console, Text
    from workbench.core.faces.face import Face
    from workbench.core.rows import Row


def events_table(face: Face, rows: Sequence[Row]) -> Table:
    t = Table(title=f"{face.api} events", header_style="bold")
    harmony = face.channels is not None
    for col in ("step",) + (("channel",) if harmony else ()) + ("#", "event", "payload"):
        t.add_column(col, overflow="fold")
    for i, row in enumerate(rows):
        for n, e in enumerate(face.row_events(i)):
            kind = e.get("type", "?")
            style = "red" if kind in ("error",) else None
            channel = (", ".join(face.channels[i]) if n == 0 else "",) if harmony else ()
            t.add_row(str(row.step) if n == 0 else "", *channel, str(face.spans[i][0] + n), kind,
                      event_summary(e), style=style)
    return t


def _blocks(api: str, obj: Any) -> Text:
    if obj is None:
        return terminal.stack([])
    if "error" in obj and "output" not in obj and obj.get("type") != "message":
        return terminal.markup("error: {}", obj["error"])
    lines = []
    for b in finals.blocks(api, obj):
        blank = b["kind"] == "text" and not b["text"].strip()
        name = f" {b['name']}" if b.get("name") else ""
        lines.append(terminal.markup("{}{}: {}  [yellow](only whitespace)[/]" if blank else "{}{}: {}",
                                     b["kind"], name, repr(b["text"])))
    lines.append(terminal.markup("{}: {}", "status" if api == "responses" else "stop_reason",
                                 finals.finish(api, obj)))
    return terminal.stack(lines)


def final_table(face: Face) -> Table:
    client = face.client or {}
    t = Table(title="what the client ends with", header_style="bold")
    sdk = "openai ResponseStream" if face.api == "responses" else "anthropic MessageStream"
    t.add_column(f"stream ({sdk})", overflow="fold")
    t.add_column("non-streaming body", overflow="fold")
    stream = (_blocks(face.api, client.get("object")) if "object" in client
              else terminal.markup("[red]{}[/]", client.get("error")))
    t.add_row(stream, _blocks(face.api, face.response))
    return t


def show(con: Console, face: Face, rows: Sequence[Row]) -> None:
    con.print(events_table(face, rows))
    con.print(final_table(face))
    for note in face.notes:
        con.print(terminal.markup("[yellow]note:[/] {}", note))


def server_final_table(face: Face, client: dict) -> Table:
    """A capture's client view: the SDK over the server's own SSE beside the SDK over this vLLM's."""
    t = Table(title="what the client ends with (the same SDK over each stream)", header_style="bold")
    t.add_column("server sent", overflow="fold")
    t.add_column("this vLLM sends", overflow="fold")

    def cell(c: dict | None) -> Text:
        c = c or {}
        return _blocks(face.api, c["object"]) if "object" in c else terminal.markup("[red]{}[/]", c.get("error"))

    t.add_row(cell(client.get("server")), cell(client.get("here")))
    return t
