"""Conformance: the workbench's rows and answers equal a direct call of vLLM.

Each case streams a text through vLLM's composed parser twice: once through the
workbench (Session.replay) and once through a bare loop written here against
vLLM's API, with deltas made independently by tokenizers' DecodeStream.
"""

from __future__ import annotations

import json

import pytest
from tokenizers.decoders import DecodeStream

from tests.conftest import SEED_TEXT, WEATHER_TOOLS
from workbench.core.parsers import ParserSpec
from workbench.core.request import RequestSpec
from workbench.core.session import Session, Setup

TEXTS = {
    "seed": SEED_TEXT,
    "parallel": ('<think>Two cities.</think>\n\n<tool_call>{"name": "get_weather", "arguments": '
                 '{"city": "Paris"}}</tool_call>\n<tool_call>{"name": "get_weather", "arguments": '
                 '{"city": "東京", "unit": "celsius"}}</tool_call>'),
    "no_call": "<think>Just chat.</think>\n\nThe weather in Paris is sunny 🌞 today.",
    "truncated": '<think>ok</think>\n\n<tool_call>{"name": "get_weather", "arguments": {"city": "Par',
    "escaped": ('<think>q</think><tool_call>{"name": "get_weather", "arguments": '
                '{"city": "Saint-\\"Malo\\" \\\\ \\u00e9"}}</tool_call>'),
}
QWEN3_CODER_TEXT = ("<think>Need weather.</think>\n\n<tool_call>\n<function=get_weather>\n"
                    "<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>")
PAIRS = [("hermes", "qwen3"), ("qwen3_coder", "qwen3"), ("hermes", "deepseek_r1")]
CHUNKINGS = ["token", "k:3", "random:7"]


def _text_for(tool: str, name: str) -> str:
    if tool == "qwen3_coder":
        return QWEN3_CODER_TEXT if name == "seed" else TEXTS[name].replace("<tool_call>{", "<tool_call>\n{")
    return TEXTS[name]


def _direct_vllm(tok, tool, reasoning, text, sizes):
    """What vLLM does, written straight against its API (no workbench code)."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.parser.parser_manager import ParserManager

    messages = [{"role": "user", "content": "What is the weather in Paris?"}]
    cls = ParserManager.get_parser(tool_parser_name=tool, reasoning_parser_name=reasoning,
                                   enable_auto_tools=True, tokenizer=tok)
    request = ChatCompletionRequest(model="x", messages=messages, tools=WEATHER_TOOLS)
    request = cls(tok, request.tools, chat_template_kwargs={}).adjust_request(request=request)
    prompt = tok.apply_chat_template(messages, tools=WEATHER_TOOLS, add_generation_prompt=True,
                                     tokenize=True)
    prompt = list(prompt["input_ids"] if hasattr(prompt, "keys") else prompt)
    ids = tok.encode(text, add_special_tokens=False) + [tok.eos_token_id]
    stream = DecodeStream(ids=prompt, skip_special_tokens=request.skip_special_tokens)
    pieces = [stream.step(tok._tokenizer, t) or "" for t in ids[:-1]] + [""]  # EOS not in text
    parser = cls(tok, request.tools, chat_template_kwargs={})
    deltas, messages_out, i = [], [], 0
    for n, size in enumerate(sizes):
        group = ids[i:i + size]
        dtext = "".join(pieces[i:i + size])
        i += size
        deltas.append((group, dtext))
        messages_out.append(parser.parse_delta(dtext, group, request, prompt_token_ids=prompt,
                                               finished=n == len(sizes) - 1))
    full = cls(tok, request.tools, chat_template_kwargs={})
    full.set_prompt_token_ids(prompt)
    nonstream = full.parse("".join(pieces), request, enable_auto_tools=True, model_output_token_ids=ids)
    return deltas, messages_out, nonstream


def _joined(messages):
    reasoning = content = None
    calls = {}
    for m in messages:
        if m is None:
            continue
        if m.reasoning is not None:
            reasoning = (reasoning or "") + m.reasoning
        if m.content is not None:
            content = (content or "") + m.content
        for tc in m.tool_calls or []:
            c = calls.setdefault(tc.index, {"name": "", "arguments": ""})
            c["name"] += (tc.function.name or "") if tc.function else ""
            c["arguments"] += (tc.function.arguments or "") if tc.function else ""
    return reasoning, content, [calls[k] for k in sorted(calls)]


@pytest.fixture(scope="module")
def sessions(qwen3_tokenizer):
    spec = RequestSpec(tools=WEATHER_TOOLS)
    return {pair: Session(Setup("qwen3", ParserSpec(*pair), spec)) for pair in PAIRS}


@pytest.mark.parametrize("chunking", CHUNKINGS)
@pytest.mark.parametrize("name", list(TEXTS))
@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: "+".join(p))
def test_rows_equal_direct_vllm(sessions, qwen3_tokenizer, pair, name, chunking):
    session = sessions[pair]
    text = _text_for(pair[0], name)
    deltas = session.deltas_from_text(text, chunking)
    result = session.replay(deltas)
    sizes = [len(d.token_ids) for d in deltas]
    direct_deltas, direct_msgs, (n_reasoning, n_content, n_calls) = _direct_vllm(
        qwen3_tokenizer, pair[0], pair[1], text, sizes)

    assert [(list(d.token_ids), d.text) for d in deltas] == direct_deltas
    for row, msg in zip(result.rows, direct_msgs):
        assert row.error is None
        if msg is None:
            assert row.delta is None or row.finish_reason  # the final chunk is sent empty
            continue
        assert row.reasoning == msg.reasoning and row.content == msg.content
        assert [(c["index"], c["name"], c["arguments"]) for c in row.tool_calls] == [
            (tc.index, tc.function.name if tc.function else None,
             tc.function.arguments if tc.function else None) for tc in msg.tool_calls]
    reasoning, content, calls = _joined(direct_msgs)
    assert result.stream["reasoning"] == reasoning
    # the server's opening chunk carries content "", so a streaming client never holds None
    assert result.stream["content"] == "" + (content or "")
    assert json.loads(result.rows[0].opening_chunk)["choices"][0]["delta"] == {
        "role": "assistant", "content": ""}
    assert [{"name": c["name"], "arguments": c["arguments"]} for c in result.stream["tool_calls"]] == calls
    assert result.nonstream["reasoning"] == n_reasoning
    assert result.nonstream["content"] == n_content
    assert [(c["name"], c["arguments"]) for c in result.nonstream["tool_calls"]] == [
        (c.name, c.arguments) for c in n_calls or []]


def test_seed_example_phases_and_sse(sessions):
    session = sessions[("hermes", "qwen3")]
    result = session.replay(session.deltas_from_text(SEED_TEXT))
    rows = result.rows
    assert rows[0].tokens == ["<think>"] and rows[0].phase_before == "reasoning"
    end = next(r for r in rows if r.text == "</think>")
    assert (end.phase_before, end.phase) == ("reasoning", "tool")
    assert not end.sse and end.delta is None  # None -> the server sends no chunk
    first_call = next(r for r in rows if r.tool_calls)
    call = first_call.tool_calls[0]
    assert call["index"] == 0 and call["name"] == "get_weather" and call["id"].startswith("chatcmpl-tool-")
    chunk = json.loads(first_call.chunk)
    assert chunk["object"] == "chat.completion.chunk"
    assert chunk["choices"][0]["delta"]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert rows[-1].finish_reason == "tool_calls" and rows[-1].sse
    assert result.stream["reasoning"] == "Weather is needed."
    assert json.loads(result.stream["tool_calls"][0]["arguments"]) == {"city": "Paris"}
    # vLLM 0.32's own stream/non-stream difference on this text: the '\n\n' between
    # </think> and <tool_call> is streamed as content but absent from parse().
    assert result.stream["content"] == "\n\n" and result.nonstream["content"] is None
    assert result.nonstream["finish_reason"] == "tool_calls"


def test_zero_text_delta_mid_utf8(qwen3_tokenizer, sessions):
    """A token that ends inside a UTF-8 character yields a delta with ids and no text."""
    session = sessions[("hermes", "qwen3")]
    text = "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 🧪"
    deltas = session.deltas_from_text(text)
    assert any(d.token_ids and d.text == "" for d in deltas[:-1])
    assert "".join(d.text for d in deltas) == text
    result = session.replay(deltas)
    assert result.stream["reasoning"] == text  # qwen3 starts in reasoning without </think>


def test_no_tool_parser_means_markup_is_content(qwen3_tokenizer):
    session = Session(Setup("qwen3", ParserSpec(None, "qwen3"), RequestSpec(tools=WEATHER_TOOLS)))
    result = session.replay(session.deltas_from_text(SEED_TEXT))
    assert result.parser["tool"] is None
    assert "<tool_call>" in result.stream["content"] and result.stream["tool_calls"] == []
    assert result.nonstream["tool_calls"] == []
