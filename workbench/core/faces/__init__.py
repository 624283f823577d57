"""The API faces of one stream: what a Chat Completions, a Responses and an Anthropic
Messages client receives for the same deltas.

vLLM serves all three from the same composed ``Parser``; each API then turns the
parser's ``DeltaMessage``s into its own SSE events and its own non-streaming body.
The faces are a layer over a replay's rows (``faces.run(session, result)``), never
inside the runner: a row keeps what the parser returned and the chat chunk it sent,
a ``Face`` adds that API's events, per row and in order.

- ``bodies``: a request in each API's own shape <-> the chat-shaped ``RequestSpec``,
  through vLLM's own converters;
- ``responses`` (the simple path) and ``harmony`` (gpt-oss) for ``/v1/responses``;
- ``messages`` for ``/v1/messages``;
- ``clients``: the official SDKs' accumulators over the predicted SSE;
- ``mask``: the values a server makes up (ids, timestamps), masked for comparisons.
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
    from workbench.core.faces import harmony, messages, responses

    if api == "responses":
        module = harmony if compat.is_harmony_class(session.parser_cls) else responses
    else:
        module = messages
    face = module.face(session, result, nonstream=nonstream)
    if client:
        from workbench.core.faces import clients

        face.client_source = lambda: clients.final(api, face, session)
    return face
