"""The seed (hermes + qwen3) through vllm-rs 0.34.0: the raw SSE it sent, pinned; the rows
are exactly that SSE (nothing added, dropped or rewritten); the official SDKs read the
same bytes and end where the rows and the non-streaming body do."""

from __future__ import annotations

import json
import re

import pytest

from tests.support.seed import SEED_TEXT
from tests.support.rust import RUST_VERSION, seed_setup
from workbench.core.messages import Accumulator
from workbench.rustfe import lane

_VOLATILE = [(re.compile(r'"id":"chatcmpl-[0-9a-f]+"'), '"id":"chatcmpl-*"'),
             (re.compile(r'"id":"call_[0-9a-f]+"'), '"id":"call_*"'), (re.compile(r'"created":\d+'), '"created":0')]


def masked(raw: str) -> str:
    for pattern, repl in _VOLATILE:
        raw = pattern.sub(repl, raw)
    return raw


def chunk(delta: str) -> str:
    return ('data: {"id":"chatcmpl-*","object":"chat.completion.chunk","created":0,"model":"workbench",'
            f'"choices":[{{"index":0,"delta":{delta}}}]}}\n\n')


def args(text: str) -> str:
    return chunk('{"tool_calls":[{"index":0,"function":{"arguments":%s}}]}' % json.dumps(text))


OPENING = ('data: {"id":"chatcmpl-*","object":"chat.completion.chunk","created":0,"model":"workbench",'
           '"choices":[{"index":0,"delta":{"role":"assistant"}}],"prompt_token_ids":null,"prompt_text":null}\n\n')
FINISH = ('data: {"id":"chatcmpl-*","object":"chat.completion.chunk","created":0,"model":"workbench",'
          '"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"system_fingerprint":"vllm-0.34.0-nohash"}\n\n')
# Per delta of the seed (one token each, then EOS), what vllm-rs 0.34.0 wrote.
SEED_SSE = ([[OPENING]] + [[chunk('{"reasoning":%s}' % json.dumps(t))] for t in ("Weather", " is", " needed", ".")]
            + [[]] * 13  # </think>, "\n\n", <tool_call> and the call's name: held back
            + [[chunk('{"tool_calls":[{"index":0,"id":"call_*","type":"function","function":{"name":"get_weather"}}]}'),
                args('{"')]]
            + [[args(t)] for t in ("city", '":', ' "', "Paris", '"}')]
            + [[], [FINISH, "data: [DONE]\n\n"]])


@pytest.fixture(scope="module")
def chat(seed_session, seed_frontend):
    return lane.run(seed_session, seed_session.deltas_from_text(SEED_TEXT), RUST_VERSION)


def test_the_seeds_chat_stream_is_pinned_and_the_rows_are_it(chat):
    assert [[masked(e) for e in r.raw] for r in chat.rows] == SEED_SSE
    assert "".join(e for r in chat.rows for e in r.raw).encode() == chat.exchange.body


def test_the_rows_read_only_what_the_chunks_say(chat):
    rows = chat.rows
    assert [r.sse for r in rows] == [bool([e for e in s if e != OPENING]) for s in SEED_SSE]
    assert rows[0].delta is None and rows[0].chunk is None  # the opening chunk alone
    assert [r.reasoning for r in rows[1:5]] == ["Weather", " is", " needed", "."]
    assert all(r.delta is None for r in rows[5:18])
    call = rows[18].tool_calls
    assert [(c.index, c.name, c.arguments) for c in call] == [(0, "get_weather", None), (0, None, '{"')]
    assert json.loads(rows[18].chunk)[1]["choices"][0]["delta"]["tool_calls"][0]["function"] == {"arguments": '{"'}
    assert rows[-1].finish_reason == "tool_calls" and rows[-1].chunks[-1].startswith('{"id":"chatcmpl-')
    assert [r.phase for r in rows] == [""] * len(rows)  # the binary's state is not visible


def _openai_chat(body: bytes) -> dict:
    """The OpenAI SDK's chat stream helper over the frontend's exact bytes."""
    import httpx
    import openai

    def answer(request):
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    with httpx.Client(transport=httpx.MockTransport(answer)) as http:
        client = openai.OpenAI(api_key="workbench", base_url="http://workbench.invalid/v1", http_client=http,
                               max_retries=0)
        with client.chat.completions.stream(model="workbench", messages=[]) as stream:
            for _ in stream:
                pass
            return stream.get_final_completion().model_dump(mode="json")


def test_the_openai_sdk_reads_the_bytes_to_what_the_rows_join(chat):
    sdk = _openai_chat(chat.exchange.body)["choices"][0]
    joined = Accumulator()
    for r in chat.rows:
        joined.add(r.delta)
    final = joined.final()
    assert sdk["finish_reason"] == chat.stream_final.finish_reason == "tool_calls"
    assert sdk["message"]["content"] is None and final.content is None
    assert [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in sdk["message"]["tool_calls"]] \
        == [(c.id, c.name, c.arguments) for c in chat.stream_final.tool_calls] \
        == [(final.tool_calls[0].id, "get_weather", '{"city": "Paris"}')]
    assert chat.stream_final.reasoning == "Weather is needed."


def test_the_non_streaming_body_is_read_as_sent(chat):
    body = json.loads(chat.nonstream_exchange.body)
    msg = body["choices"][0]["message"]
    assert chat.nonstream_final.reasoning == msg["reasoning"] == "Weather is needed."
    assert chat.nonstream_final.content is None and chat.nonstream_final.finish_reason == "tool_calls"
    assert [(c.name, c.arguments) for c in chat.nonstream_final.tool_calls] == [("get_weather", '{"city": "Paris"}')]
    assert chat.nonstream_final.usage["completion_tokens"] == len(chat.token_ids) == 26


def test_responses_events_per_delta_and_what_the_sdk_ends_with(seed_frontend):
    from workbench.core.faces import finals
    from workbench.core.session import Session

    session = Session(seed_setup("responses"))
    result = lane.run(session, session.deltas_from_text(SEED_TEXT), RUST_VERSION)
    types = [[json.loads(e.split("data: ", 1)[1])["type"] for e in r.raw] for r in result.rows]
    assert types[0] == ["response.created", "response.in_progress"]
    assert types[1] == ["response.output_item.added", "response.content_part.added", "response.reasoning_text.delta"]
    assert types[5:18] == [[]] * 13
    # the reasoning item closes only when the call opens
    assert types[18] == ["response.reasoning_text.done", "response.content_part.done", "response.output_item.done",
                         "response.output_item.added", "response.function_call_arguments.delta"]
    assert types[-1] == ["response.function_call_arguments.done", "response.output_item.done", "response.completed"]
    assert "".join(e for r in result.rows for e in r.raw).encode() == result.exchange.body
    face = result.face
    assert [face.row_events(i) for i in range(3)][1][2]["delta"] == "Weather"
    sdk = finals.final_of("responses", face.client["object"])
    body = finals.final_of("responses", face.response)
    for f in (sdk, body, result.nonstream_final):
        assert (f.reasoning, f.content, f.finish_reason) == ("Weather is needed.", None, "completed")
        assert [(c.name, c.arguments) for c in f.tool_calls] == [("get_weather", '{"city": "Paris"}')]


def test_messages_is_refused_by_the_rust_frontend_and_the_row_says_so(seed_frontend):
    from workbench.core.session import Session

    session = Session(seed_setup("messages"))
    result = lane.run(session, session.deltas_from_text(SEED_TEXT), RUST_VERSION)
    assert result.exchange.status == 501 and result.exchange.engine_request is None
    message = "POST /v1/messages is not supported by the Rust frontend yet."
    assert result.rows[0].error.startswith(f"HTTP 501: {message}")
    assert all(not r.sse and r.delta is None for r in result.rows) and all(r.error is None for r in result.rows[1:])
    assert result.nonstream_final.error.startswith(f"HTTP 501: {message}")
    # what Claude Code's SDK meets: the status and the frontend's own message
    import anthropic
    import httpx2

    def answer(request):
        return httpx2.Response(501, headers={"content-type": "application/json"}, content=result.exchange.body)

    with httpx2.Client(transport=httpx2.MockTransport(answer)) as http:
        client = anthropic.Anthropic(api_key="workbench", base_url="http://workbench.invalid", http_client=http,
                                     max_retries=0)
        with pytest.raises(anthropic.APIStatusError, match=message) as e:
            client.messages.create(model="workbench", max_tokens=5, messages=[{"role": "user", "content": "hi"}],
                                   stream=True)
    assert e.value.status_code == 501
