"""Three more families through vllm-rs 0.34.0, each on its own tokenizer: qwen3_coder,
deepseek_v3 (+ deepseek_r1 reasoning) and kimi_k2. Per API: rows for every delta that are
exactly the SSE the binary sent, the non-streaming body, and (Responses) what the OpenAI
SDK ends with. Messages is refused by this Rust frontend (501), and the rows say so."""

from __future__ import annotations

import pytest

from tests.support.rust import RUST_VERSION, seed_setup
from workbench.core.faces import finals
from workbench.rustfe import lane

CASES = {
    "qwen3_coder": ("qwen3", "qwen3_coder", "qwen3",
                    "<think>Need weather.</think>\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n"
                    "</parameter>\n</function>\n</tool_call>",
                    ("Need weather.", None, '{"city":"Paris"}')),
    "deepseek_v3": ("deepseek_v3", "deepseek_v3", "deepseek_r1",
                    "<think>Need the weather.</think>Sure.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>"
                    "get_weather\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
                    ("Need the weather.", "Sure.", '{"city": "Paris"}')),
    "kimi_k2": ("kimi_k2", "kimi_k2", "kimi_k2",
                "<think>User wants weather.</think>Let me check.<|tool_calls_section_begin|><|tool_call_begin|>"
                "functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|>"
                "<|tool_calls_section_end|>",
                ("User wants weather.", "Let me check.", '{"city": "Paris"}')),
}


def _run(case: str, api: str):
    from workbench.core.session import Session

    tokenizer, tool, reasoning, text, _ = CASES[case]
    session = Session(seed_setup(api, tokenizer, tool, reasoning))
    return lane.run(session, session.deltas_from_text(text), RUST_VERSION)


def _message(final) -> tuple:
    return final.reasoning, final.content, [(c.name, c.arguments) for c in final.tool_calls]


@pytest.mark.parametrize("case", CASES)
def test_chat_rows_are_the_sse_and_both_answers_hold_the_call(case):
    result = _run(case, "chat")
    reasoning, content, arguments = CASES[case][4]
    assert result.exchange.status == 200 and len(result.rows) == len(result.exchange.steps)
    assert "".join(e for r in result.rows for e in r.raw).encode() == result.exchange.body
    assert result.rows[-1].raw[-1] == "data: [DONE]\n\n"
    want = (reasoning, content, [("get_weather", arguments)])
    assert _message(result.stream_final) == want and result.stream_final.finish_reason == "tool_calls"
    assert _message(result.nonstream_final) == want and result.nonstream_final.finish_reason == "tool_calls"
    # what each row says is in its own chunks: the reasoning arrives in rows of their own
    assert "".join(r.reasoning or "" for r in result.rows) == reasoning
    assert all(r.sse == bool(r.chunk) for r in result.rows)


@pytest.mark.parametrize("case", CASES)
def test_responses_rows_are_the_events_and_the_sdk_ends_with_the_body(case):
    result = _run(case, "responses")
    reasoning, content, arguments = CASES[case][4]
    assert "".join(e for r in result.rows for e in r.raw).encode() == result.exchange.body
    face = result.face
    assert sum(b - a for a, b in face.spans) == len(face.events) == result.exchange.body.count(b"\ndata: ")
    sdk, body = finals.final_of("responses", face.client["object"]), finals.final_of("responses", face.response)
    for f in (sdk, body):
        assert _message(f) == (reasoning, content, [("get_weather", arguments)]) and f.finish_reason == "completed"


@pytest.mark.parametrize("case", CASES)
def test_messages_is_refused(case):
    result = _run(case, "messages")
    assert result.exchange.status == 501 and "not supported by the Rust frontend" in result.rows[0].error
    assert result.face.client["error"].startswith("HTTP 501: POST /v1/messages")
