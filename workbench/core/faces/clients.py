"""The client's view: the official SDKs read the predicted stream and say what they end with.

Each SDK is driven end to end in-process: its own client, its own SSE decoder and its
own accumulator (the ``openai`` ``ResponseStream`` state and ``get_final_response()``,
the ``anthropic`` ``MessageStream`` and ``get_final_message()``), over a mock HTTP
transport that answers with the face's SSE bytes. No socket is opened. This is what
Codex / the Agents SDK, or Claude Code, would hold after the stream.
"""

from __future__ import annotations

BASE_URL = "http://workbench.invalid"  # never contacted: the transport answers


def final(api: str, face, session) -> dict:
    """``{"object": ...}`` the SDK ended with, or ``{"error": "..."}`` when it raised."""
    try:
        obj = _openai(face, session) if api == "responses" else _anthropic(face)
    except Exception as e:  # the SDK refused the stream: that is what the client sees
        return {"error": f"{type(e).__name__}: {e}"}
    return {"object": obj}


def _body(face) -> bytes:
    return "".join(face.sse).encode()


def _openai(face, session) -> dict:
    import httpx
    import openai

    def answer(request):
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=_body(face))

    with httpx.Client(transport=httpx.MockTransport(answer)) as http:
        client = openai.OpenAI(api_key="workbench", base_url=BASE_URL + "/v1", http_client=http, max_retries=0)
        with client.responses.stream(model="workbench", input="", tools=_openai_tools(session)) as stream:
            response = stream.get_final_response()
    return response.model_dump(mode="json")


def _openai_tools(session) -> list:
    """The request's tools as the SDK's input_tools (it parses strict function arguments)."""
    tools = (session.setup.api_request or {}).get("tools") or []
    return [t for t in tools if isinstance(t, dict)]


def _anthropic(face) -> dict:
    import anthropic
    import httpx2

    def answer(request):
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=_body(face))

    with httpx2.Client(transport=httpx2.MockTransport(answer)) as http:
        client = anthropic.Anthropic(api_key="workbench", base_url=BASE_URL, http_client=http, max_retries=0)
        with client.messages.stream(model="workbench", max_tokens=1,
                                    messages=[{"role": "user", "content": ""}]) as stream:
            message = stream.get_final_message()
    return message.model_dump(mode="json")
