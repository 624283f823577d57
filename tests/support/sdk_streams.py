"""A real server's Responses / Anthropic stream, read by the official SDK, with the raw SSE kept.

``responses(url, body)`` uses the OpenAI SDK's ``client.responses.create(stream=True)``,
``messages(url, body)`` the anthropic SDK's ``client.messages.stream``; a tee under the
SDK's HTTP client keeps the bytes it read, so a test compares both the events exactly
as sent and the object the SDK ends with. ``nonstream(url, api, body)`` is the body of
the same request with ``stream: false``.
"""

from __future__ import annotations

import json


def _tee(httpx_mod, sink: bytearray):
    class TeeStream(httpx_mod.SyncByteStream):
        def __init__(self, stream) -> None:
            self.stream = stream

        def __iter__(self):
            for chunk in self.stream:
                sink.extend(chunk)
                yield chunk

        def close(self) -> None:
            self.stream.close()

    class Tee(httpx_mod.HTTPTransport):
        def handle_request(self, request):
            r = super().handle_request(request)
            return httpx_mod.Response(r.status_code, headers=r.headers, stream=TeeStream(r.stream),
                                      extensions=r.extensions)

    return Tee()


def events_of(raw: bytes) -> list[dict]:
    """The JSON of every ``data:`` line, in order."""
    return [json.loads(line[6:]) for line in raw.decode().splitlines() if line.startswith("data: ")]


def responses(url: str, body: dict) -> tuple[bytes, dict]:
    """(the raw SSE, the response of ``response.completed`` as the SDK parsed it)."""
    import httpx
    import openai

    raw = bytearray()
    rest = {k: v for k, v in body.items() if k not in ("model", "input")}
    with httpx.Client(transport=_tee(httpx, raw), timeout=120) as http:
        client = openai.OpenAI(api_key="workbench", base_url=url, http_client=http, max_retries=0)
        stream = client.responses.create(model=body["model"], input=body["input"], stream=True, extra_body=rest)
        final = None
        for event in stream:
            if event.type == "response.completed":
                final = event.response
    return bytes(raw), final.model_dump(mode="json") if final is not None else None


def messages(url: str, body: dict) -> tuple[bytes, dict]:
    """(the raw SSE, ``get_final_message()`` of the SDK's MessageStream)."""
    import anthropic
    import httpx2

    raw = bytearray()
    rest = {k: v for k, v in body.items() if k not in ("model", "max_tokens", "messages")}
    with httpx2.Client(transport=_tee(httpx2, raw), timeout=120) as http:
        client = anthropic.Anthropic(api_key="workbench", base_url=url[: -len("/v1")], http_client=http,
                                     max_retries=0)
        with client.messages.stream(model=body["model"], max_tokens=body["max_tokens"],
                                    messages=body["messages"], extra_body=rest) as stream:
            final = stream.get_final_message()
    return bytes(raw), final.model_dump(mode="json")


def nonstream(url: str, api: str, body: dict) -> dict:
    import httpx

    path = {"responses": "/responses", "messages": "/messages"}[api]
    return httpx.post(url + path, json={**body, "stream": False}, timeout=120).json()
