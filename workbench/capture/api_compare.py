"""A Responses or Anthropic capture replayed here: the server's events beside this vLLM's.

The capture's deltas hold the server's events in order (``api_capture``); the replay's
face gives this vLLM's. They are compared position by position (made-up ids and
timestamps masked, each side numbered on its own): row ``i`` shows the server's events
at the positions of the events this workbench gives it, the last row the server's rest.
While the two agree this is exact; ``first_difference`` is the row holding the first
event that differs. The client's view comes with it: the official SDK's accumulator over
the server's own SSE beside the same SDK over this vLLM's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.capture import events as ev
from workbench.capture.comparison import Comparison
from workbench.core.messages import SERVER, SEVERE, Difference
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.core.faces.face import Face
    from workbench.core.recording import Recording


def is_api_capture(header: dict) -> bool:
    return (header.get("origin") or {}).get("kind") == "capture" and (header.get("origin") or {}).get(
        "api") in ev.TERMINAL


def stored(recording: Recording) -> list[ev.Event]:
    """Every event the capture kept, in order, each checked as it was when captured."""
    api = recording.header["origin"]["api"]
    out = []
    for step, d in enumerate(recording.deltas, 1):
        kept = d.extra.get("events", [])
        if not isinstance(kept, list):
            raise WorkbenchError(f"capture delta {step}: extra.events must be a list of SSE events")
        for k, text in enumerate(kept):
            out.append(parse_sse(api, text, f"capture delta {step}: extra.events[{k}]"))
    return out


def parse_sse(api: str, text, what: str) -> ev.Event:
    """One stored event (``event: T`` / ``data: JSON``) through ``events.parse``."""
    if not isinstance(text, str):
        raise WorkbenchError(f"{what} must be the event's SSE text")
    name, data = None, None
    for line in text.split("\n"):
        if line.startswith("event:") and data is None:
            name = line[6:].strip()
        elif line.startswith("data:") and data is None:
            data = line[5:].strip()
    if data is None:
        raise WorkbenchError(f"{what} has no data: line")
    return ev.parse(api, name, data, what)


def compare(face: Face, rows, recording: Recording, here: str = "?", notes: list[str] | None = None,
            tools: list | None = None) -> Comparison:
    from workbench.core.faces import clients
    from workbench.core.faces.mask import masked

    origin = recording.header.get("origin") or {}
    server = stored(recording)
    theirs, ours = masked([e.obj for e in server]), masked(face.events)
    steps = []
    for i, row in enumerate(rows):
        start, end = face.spans[i]
        last = i == len(rows) - 1
        s_end, o_end = (len(theirs), len(ours)) if last else (end, end)
        same = theirs[start:s_end] == ours[start:o_end]
        steps.append(Difference(SERVER, None, row.step, [e.obj for e in server[start:s_end]], face.row_events(i),
                                severity=None if same else SEVERE))
    first = next((s.step for s in steps if not s.same), None)
    notes = list(origin.get("notes") or []) if notes is None else notes
    stopped = next((d.extra["capture_error"] for d in recording.deltas if "capture_error" in d.extra), None)
    cause = None
    if first is not None:
        cause = (f"the capture stopped early: {stopped}" if stopped is not None and first == len(rows)
                 else likely_cause(server, origin, notes, here))
    client = {"server": clients.of_sse(face.api, "".join(e.sse for e in server).encode(), tools),
              "here": face.client}
    return Comparison(steps, first, cause, origin.get("server_vllm_version"), notes, face.api, client)


def likely_cause(server: list[ev.Event], origin: dict, notes: list[str], here_parser: str) -> str:
    from workbench.core.vllm_version import vllm_version

    err = next((e.error for e in server if e.error is not None), None)
    if err is not None:
        return f"the server streamed an error: {err}"
    if origin.get("token_ids") == "reconstructed":
        return ("token ids reconstructed: the API carries none, so the capture's text is the events' "
                "visible text without the markup the server's parsers read (exact only without parsers)")
    template = [n for n in notes if n.startswith("chat-template")]
    if template:
        return template[0]
    server_v, here_v = origin.get("server_vllm_version"), vllm_version()
    if server_v and server_v != here_v:
        return f"version skew: the server runs vLLM {server_v}, this workbench {here_v}"
    return (f"parser or chunking difference: the server's events differ from {here_parser}'s here "
            f"(another parser name, a plugin, its options, or outputs the server merged)")
