"""The API faces of one stream: what a Chat Completions, a Responses and an Anthropic
Messages client receives for the same deltas.

vLLM serves all three from the same composed ``Parser``; each API then turns the
parser's ``DeltaMessage``s into its own SSE events and its own non-streaming body.
The faces are a layer over a replay's rows (``faces.run(session, result)``), never
inside the runner: a row keeps what the parser returned and the chat chunk it sent,
a ``Face`` adds that API's events, per row and in order.

    face.py       Face: one API's view of a replayed stream (events per row, bodies, client)
    replayed.py   what the faces read of a replay: each row's DeltaMessage, the finish, the parse
    bodies.py     a request in each API's own shape <-> RequestSpec, through vLLM's converters
    responses.py  /v1/responses, the simple path: SimpleStreamingEventProcessor events, the body
    harmony.py    /v1/responses for gpt-oss: HarmonyContext and the Harmony emitters, channels per row
    anthropic.py  /v1/messages: message_stream_converter driven in-process, messages_full_converter
    clients.py    the openai / anthropic SDKs' accumulators over the predicted SSE
    finals.py     what a client holds at the end, per API, as a Final and as blocks
    visible.py    what each API's client receives per row, in one shape (two APIs compare)
    mask.py       the values a server makes up (ids, timestamps), masked for comparisons
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.core.faces.face import Face
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.core.faces.face import Face, Replayed
    from workbench.core.session import Session

APIS = ("chat", "responses", "messages")
ENDPOINTS = {"chat": "/v1/chat/completions", "responses": "/v1/responses", "messages": "/v1/messages"}


def check_api(api: str) -> str:
    if api not in APIS:
        raise WorkbenchError(f"unknown API {api!r}: give one of {', '.join(APIS)}")
    return api


def run(session: Session, result: Replayed, client: bool = True, nonstream: bool = True) -> Face | None:
    """``session``'s API face of ``result`` (a replay of that session: its rows, text and
    token ids); None for chat. ``nonstream``: also the non-streaming body; ``client``:
    also the SDK's final object."""
    api = getattr(session, "api", "chat")
    if api == "chat":
        return None
    from workbench.core import vllm_compat as compat
    from workbench.core.faces import anthropic, harmony, responses

    if api == "responses":
        module = harmony if compat.is_harmony_class(session.parser_cls) else responses
    else:
        module = anthropic
    face = module.face(session, result, nonstream=nonstream)
    if client:
        from workbench.core.faces import clients

        face.client_source = lambda: clients.final(api, face, session)
    return face
