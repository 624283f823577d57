"""The scripted engine core against the real vllm-rs 0.34.0: the handshake, one engine
output per delta in lock step, and the body split exactly at the step boundaries."""

from __future__ import annotations

import json

import pytest

from tests.support.seed import SEED_TEXT, WEATHER_TOOLS
from tests.support.rust import QUESTION, RUST_VERSION
from workbench.errors import WorkbenchError
from workbench.rustfe import core, lane

BODY = {"model": lane.MODEL, "messages": QUESTION, "tools": WEATHER_TOOLS}


def _script(deltas):
    return [(list(d.token_ids), d.finish_reason) for d in deltas]


def test_each_step_carries_exactly_its_own_token_ids(seed_session, seed_frontend):
    """With return_token_ids every engine output makes one chunk naming its ids: the body
    bytes read after each step name that step's ids and no other, over mixed groupings."""
    for grouping in ("token", "random:7", "k:3"):
        deltas = seed_session.deltas_from_text(SEED_TEXT * 3, grouping)
        ex = core.exchange(seed_frontend, "/v1/chat/completions",
                           {**BODY, "stream": True, "return_token_ids": True}, _script(deltas))
        assert ex.status == 200 and len(ex.steps) == len(deltas)
        for step in ex.steps:
            chunks = [json.loads(line[6:]) for line in step.body.decode().split("\n\n") if line.startswith("data: {")]
            ids = [t for c in chunks for choice in c["choices"] for t in choice.get("token_ids") or ()]
            assert ids == step.token_ids, (grouping, step)


def test_the_body_is_the_steps_joined_and_the_prompt_is_the_one_python_renders(seed_session, seed_frontend):
    deltas = seed_session.deltas_from_text(SEED_TEXT)
    ex = core.exchange(seed_frontend, "/v1/chat/completions", {**BODY, "stream": True}, _script(deltas))
    assert ex.head + b"".join(s.body for s in ex.steps) + ex.tail == ex.body
    assert ex.body.endswith(b"data: [DONE]\n\n") and ex.tail == b""
    assert ex.headers["content-type"] == "text/event-stream"
    assert ex.engine_request.prompt_token_ids == seed_session.prompt_ids
    assert ex.engine_request.sampling_params["_eos_token_id"] == seed_session.tokenizer.eos_token_id
    assert [s.token_ids for s in ex.steps] == [list(d.token_ids) for d in deltas]


def test_a_non_streaming_request_gets_one_body(seed_session, seed_frontend):
    deltas = seed_session.deltas_from_text(SEED_TEXT)
    ex = core.exchange(seed_frontend, "/v1/chat/completions", {**BODY, "stream": False}, _script(deltas))
    body = json.loads(ex.body)
    assert ex.status == 200 and body["object"] == "chat.completion"
    assert body["usage"]["completion_tokens"] == sum(len(d.token_ids) for d in deltas)
    assert body["choices"][0]["message"]["tool_calls"][0]["function"] == {
        "name": "get_weather", "arguments": '{"city": "Paris"}'}


def test_a_refused_request_never_reaches_the_engine(seed_session, seed_frontend):
    ex = core.exchange(seed_frontend, "/v1/messages", {"model": lane.MODEL, "max_tokens": 5,
                                                      "messages": QUESTION}, [([1], "stop")])
    assert ex.status == 501 and ex.engine_request is None
    assert json.loads(ex.body)["error"]["message"].startswith("POST /v1/messages is not supported by the Rust frontend")
    assert [s.sent for s in ex.steps] == [False]


def test_a_stream_left_unfinished_is_hung_up_and_the_next_one_runs(seed_session, seed_frontend):
    deltas = seed_session.deltas_from_text(SEED_TEXT)
    cut = _script(deltas)[:4]
    assert cut[-1][1] is None
    ex = core.exchange(seed_frontend, "/v1/chat/completions", {**BODY, "stream": True}, cut)
    assert b"[DONE]" not in ex.body and b'"reasoning":" is"' in ex.body
    again = core.exchange(seed_frontend, "/v1/chat/completions", {**BODY, "stream": True}, _script(deltas))
    assert again.body.endswith(b"data: [DONE]\n\n")


def test_a_frontend_that_cannot_start_says_why_in_one_line(seed_session):
    from workbench.rustfe import binary
    from workbench.rustfe.process import Frontend

    config = lane.config_of(seed_session, RUST_VERSION)
    fe = Frontend(binary.ensure(RUST_VERSION), config.model_dir, {"tool_call_parser": "nope"}, RUST_VERSION)
    with pytest.raises(WorkbenchError) as e:
        fe.start()
    msg = str(e.value)
    assert "\n" not in msg and "tool parser `nope` is not registered (choose from:" in msg and "hermes" in msg
    assert not fe.folder.exists()
