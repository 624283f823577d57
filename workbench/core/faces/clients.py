"""The client's view: the official SDKs read the predicted stream and say what they end with.

Each SDK is driven end to end in-process: its own client, its own SSE decoder and its
own accumulator (the ``openai`` ``ResponseStream`` state and ``get_final_response()``,
the ``anthropic`` ``MessageStream`` and ``get_final_message()``), over a mock HTTP
transport that answers with the face's SSE bytes. No socket is opened. This is what
Codex / the Agents SDK, or Claude Code, would hold after the stream.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from workbench.core.faces.face import Face
    from workbench.core.session import Session

BASE_URL = "http://workbench.invalid"  # never contacted: the transport answers


def final(api: str, face: Face, session: Session) -> dict:
    """``{"object": ...}`` the SDK ended with, or ``{"error": "..."}`` when it raised."""
    tools = (session.setup.api_request or {}).get("tools") or []
    return of_sse(api, "".join(face.sse).encode(), [t for t in tools if isinstance(t, dict)])


def of_sse(api: str, sse: bytes, tools: list | None = None) -> dict:
    """The same for any SSE bytes (a real server's too); ``tools``: the request's, which
    the openai SDK takes as input_tools (it parses strict functions' arguments)."""
    try:
        obj = _openai(sse, tools or []) if api == "responses" else _anthropic(sse)
    except Exception as e:  # the SDK refused the stream: that is what the client sees
        return {"error": f"{type(e).__name__}: {e}"}
    return {"object": obj}


def _openai(sse: bytes, tools: list) -> dict:
    import httpx
    import openai

    def answer(request: Any) -> Any:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=sse)

    with httpx.Client(transport=httpx.MockTransport(answer)) as http:
        client = openai.OpenAI(api_key="workbench", base_url=BASE_URL + "/v1", http_client=http, max_retries=0)
        with client.responses.stream(model="workbench", input="", tools=tools) as stream:
            response = stream.get_final_response()
    return response.model_dump(mode="json")


def _anthropic(sse: bytes) -> dict:
    import anthropic
    import httpx2

    def answer(request: Any) -> Any:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=sse)

    with httpx2.Client(transport=httpx2.MockTransport(answer)) as http:
        client = anthropic.Anthropic(api_key="workbench", base_url=BASE_URL, http_client=http, max_retries=0)
        with client.messages.stream(model="workbench", max_tokens=1,
                                    messages=[{"role": "user", "content": ""}]) as stream:
            message = stream.get_final_message()
    return message.model_dump(mode="json")
