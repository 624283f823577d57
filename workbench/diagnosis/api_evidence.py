"""The doctor's evidence for `--api responses|messages`: that API's stream, not chat's.

vLLM serves /v1/responses and /v1/messages from the same parser; each API then turns
the parser's deltas into its own events and its own non-streaming body
(``core/faces``). The doctor reads what that API's SDK ends with (``face.client``)
against that API's non-streaming body (``face.response``). A field that differs
there but not in the chat stream, or that the API's stream loses against the chat
chunks, is the serving layer's (that API's conversion), never the parser's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.check import props
from workbench.core.messages import MESSAGE_FIELDS, SEVERE

if TYPE_CHECKING:
    from workbench.core.messages import Final
    from workbench.core.session import Result, Session


def _severe(a: Final, b: Final) -> set[str]:
    return {d.field for d in props.differences(a, b, MESSAGE_FIELDS) if d.severity == SEVERE}


def gather(session: Session, result: Result) -> dict | None:
    """{"api", "stream", "nonstream", "differs", "lost"} for a non-chat API; None for chat."""
    from workbench.core import faces
    from workbench.core.faces.finals import final_of

    if getattr(session, "api", "chat") == "chat":
        return None
    face = faces.run(session, result)
    client = face.client or {}
    stream = final_of(face.api, client["object"] if "object" in client else {"error": client.get("error")})
    nonstream = final_of(face.api, face.response)
    chat = _severe(result.stream_final, result.nonstream_final)
    return {"api": face.api, "stream": stream, "nonstream": nonstream,
            "differs": sorted(_severe(stream, nonstream) - chat),
            "lost": sorted(_severe(stream, result.stream_final)), "notes": face.notes}


def causes(ev: dict | None, Cause: type) -> list:
    if not ev:
        return []
    out = []
    where = {"responses": "vllm/entrypoints/openai/responses/", "messages": "vllm/entrypoints/anthropic/"}[ev["api"]]
    if ev["stream"].error or ev["nonstream"].error:
        out.append(Cause("serving", f"the {ev['api']} layer answers with an error: "
                         f"{ev['stream'].error or ev['nonstream'].error}", [where]))
    if ev["differs"]:
        out.append(Cause("serving", f"the {ev['api']} stream and its non-streaming body differ in "
                         f"{', '.join(ev['differs'])}, while the chat stream agrees with its answer",
                         [f"{where}: the API's own conversion of the parser's output"]))
    if ev["lost"]:
        out.append(Cause("serving", f"the {ev['api']} events lose {', '.join(ev['lost'])} that the chat chunks "
                         "carry", [f"{where}: the API's own conversion of the parser's output"]))
    return out


def to_dict(ev: dict | None) -> dict | None:
    if not ev:
        return None
    return {"api": ev["api"], "stream": ev["stream"].to_dict(), "nonstream": ev["nonstream"].to_dict(),
            "differs": ev["differs"], "lost": ev["lost"], "notes": ev["notes"]}
