"""Conformance: the workbench's rows and answers equal a direct call of vLLM.

Each case streams a text through vLLM's composed parser twice: once through the
workbench (Session.replay) and once through a bare loop written here against
vLLM's API, with deltas made independently by tokenizers' DecodeStream.
"""

from __future__ import annotations

import json

import pytest
from tokenizers.decoders import DecodeStream

from tests.support.direct import (CHUNKINGS, HARMONY_TEXTS, MISTRAL_TEXTS, _direct_vllm, _joined,
                                  _skip_special, _stream_then_parse)
from tests.support.seed import SEED_TEXT, WEATHER_TOOLS
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


def _text_for(tool: str, name: str) -> str:
    if tool == "qwen3_coder":
        return QWEN3_CODER_TEXT if name == "seed" else TEXTS[name].replace("<tool_call>{", "<tool_call>\n{")
    return TEXTS[name]


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
        assert [(c.index, c.name, c.arguments) for c in row.tool_calls] == [
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
    assert call.index == 0 and call.name == "get_weather" and call.id.startswith("chatcmpl-tool-")
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


def _vllm_full_calls(session, text: str) -> list:
    """The non-streaming answer's calls as this vLLM's serving layer assembles them: 0.33's
    ``assemble_chat_message_fields``; before it (0.32) the choice filtered in place."""
    cls, request = session.parser_cls, session.request
    parser = cls(session.tokenizer)
    _, content, calls = parser.parse(text, request, enable_auto_tools=True)
    try:
        from vllm.entrypoints.openai.chat_completion.message_assembly import assemble_chat_message_fields
    except ImportError:
        from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionResponseChoice, ChatMessage
        from vllm.entrypoints.generate.base.protocol import ToolCall
        from vllm.entrypoints.serve.utils.tool_calls_utils import maybe_filter_parallel_tool_calls

        msg = ChatMessage(role="assistant", content=content, tool_calls=[ToolCall(function=c) for c in calls])
        choice = ChatCompletionResponseChoice(index=0, message=msg, finish_reason="tool_calls")
        return maybe_filter_parallel_tool_calls(choice, request).message.tool_calls
    return assemble_chat_message_fields(request, None, content, calls, enable_auto_tools=True,
                                        parser_cls=cls).tool_calls


def test_parallel_tool_calls_false_keeps_the_first_call(qwen3_tokenizer):
    """vLLM issue 26233: with parallel_tool_calls false the server answers the first of two calls
    in both modes (0.33 filters the list, no longer the choice; tests/lanes runs this there)."""
    setup = Setup("qwen3", ParserSpec("hermes", None), RequestSpec(tools=WEATHER_TOOLS, parallel_tool_calls=False))
    session = Session(setup)
    text = TEXTS["parallel"].split("</think>")[1]
    result = session.replay(session.deltas_from_text(text))
    assert result.nonstream_final.error is None and not result.errors
    direct = [(c.function.name, c.function.arguments) for c in _vllm_full_calls(session, text)]
    assert direct == [("get_weather", '{"city": "Paris"}')]
    assert [(c["name"], c["arguments"]) for c in result.nonstream["tool_calls"]] == direct
    assert [c["name"] for c in result.stream["tool_calls"]] == ["get_weather"]
    assert result.nonstream["finish_reason"] == "tool_calls"


def test_no_tool_parser_means_markup_is_content(qwen3_tokenizer):
    session = Session(Setup("qwen3", ParserSpec(None, "qwen3"), RequestSpec(tools=WEATHER_TOOLS)))
    result = session.replay(session.deltas_from_text(SEED_TEXT))
    assert result.parser["tool"] is None
    assert "<tool_call>" in result.stream["content"] and result.stream["tool_calls"] == []
    assert result.nonstream["tool_calls"] == []


# gpt-oss (Harmony) and Mistral: the same conformance, with each family's own prompt and ids.
FAMILIES = {"gpt_oss": (("openai", "openai_gptoss"), HARMONY_TEXTS),
            "mistral_tekken": (("mistral", None), MISTRAL_TEXTS),
            "mistral_v7": (("mistral", None), MISTRAL_TEXTS)}
FAMILY_CASES = [(tok, name) for tok, (_, texts) in FAMILIES.items() for name in texts]
USER = [{"role": "user", "content": "What is the weather in Paris?"}]


def _family_ids(tok, text):
    """Token ids a model would emit for ``text``, written with each library's own encoder."""
    from vllm.entrypoints.openai.parser.harmony_utils import get_encoding

    if getattr(tok, "IS_MISTRAL_TOKENIZER", False):
        head, marker, rest = text.partition("[TOOL_CALLS]")
        ids = tok.encode(head, add_special_tokens=False) if head else []
        if marker:
            ids += [tok.get_vocab()[marker]] + tok.encode(rest, add_special_tokens=False)
        return ids + [tok.eos_token_id], True
    ids = get_encoding().encode(text, allowed_special="all")
    stops = get_encoding().stop_tokens_for_assistant_actions()
    if text.endswith("<|call|>") or text.endswith("<|return|>"):
        return ids, ids[-1] in stops
    return ids, False  # cut by max_tokens: no stop token


def _family_prompt(tok, request):
    from vllm.entrypoints.openai.parser.harmony_utils import (
        build_harmony_preamble,
        parse_chat_inputs_to_harmony_messages,
        render_for_completion,
    )

    if getattr(tok, "IS_MISTRAL_TOKENIZER", False):
        return list(tok.apply_chat_template(USER, tools=WEATHER_TOOLS, add_generation_prompt=True))
    return render_for_completion(build_harmony_preamble(tools=request.tools, with_custom_tools=True)
                                 + parse_chat_inputs_to_harmony_messages(USER))


def _prefix_texts(tok, prompt, ids, skip_special, stopped):
    """Per-token text as prefix differences of the decoded prompt + output (held back
    inside a UTF-8 character); the prompt gives SentencePiece its leading-space context."""
    def decode(seq):
        # Not tok.decode: MistralCommonBackend keeps SentencePiece's "▁" with specials kept.
        return tok.convert_tokens_to_string(tok.convert_ids_to_tokens(seq, skip_special_tokens=skip_special))

    if not getattr(tok, "IS_MISTRAL_TOKENIZER", False):  # a fast tokenizer: its DecodeStream
        stream = DecodeStream(ids=prompt, skip_special_tokens=skip_special)
        texts = [stream.step(tok._tokenizer, t) or "" for t in ids]
        return texts[:-1] + [""] if stopped else texts
    out, base = [], decode(prompt)
    shown = ""
    for i in range(len(ids)):
        if stopped and i == len(ids) - 1:
            out.append("")  # the stop token is not in the text
            continue
        full = decode(prompt + ids[:i + 1])[len(base):]
        if full.endswith("\ufffd"):
            out.append("")
            continue
        out.append(full[len(shown):])
        shown = full
    return out


def _direct_family(tok, tool, reasoning, text, sizes):
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.parser.parser_manager import ParserManager

    harmony = not getattr(tok, "IS_MISTRAL_TOKENIZER", False)
    cls = ParserManager.get_parser(tool_parser_name=tool, reasoning_parser_name=reasoning,
                                   enable_auto_tools=True, is_harmony=harmony, tokenizer=tok)
    request = ChatCompletionRequest(model="x", messages=USER, tools=WEATHER_TOOLS)
    request = cls(tok, request.tools, chat_template_kwargs={}).adjust_request(request=request)
    prompt = _family_prompt(tok, request)
    ids, stopped = _family_ids(tok, text)
    pieces = _prefix_texts(tok, prompt, ids, _skip_special(request), stopped)
    return (prompt, *_stream_then_parse(cls, tok, request, prompt, ids, pieces, sizes))


@pytest.fixture(scope="module")
def family_sessions():
    spec = RequestSpec(tools=WEATHER_TOOLS)
    return {tok: Session(Setup(tok, ParserSpec(*pair), spec)) for tok, (pair, _) in FAMILIES.items()}


@pytest.mark.parametrize("chunking", CHUNKINGS)
@pytest.mark.parametrize("tok, name", FAMILY_CASES)
def test_formats_equal_direct_vllm(family_sessions, tok, name, chunking):
    session = family_sessions[tok]
    pair, texts = FAMILIES[tok]
    finish = "length" if name == "truncated" else "stop"
    deltas = session.deltas_from_text(texts[name], chunking, finish_reason=finish)
    result = session.replay(deltas)
    prompt, direct_deltas, direct_msgs, (n_reasoning, n_content, n_calls) = _direct_family(
        session.tokenizer, *pair, texts[name], [len(d.token_ids) for d in deltas])

    assert session.prompt_ids == prompt
    assert [(list(d.token_ids), d.text) for d in deltas] == direct_deltas
    for row, msg in zip(result.rows, direct_msgs):
        assert row.error is None
        if msg is None:
            assert row.delta is None or row.finish_reason
            continue
        assert (row.reasoning, row.content) == (msg.reasoning, msg.content)
        assert [(c.index, c.name, c.arguments) for c in row.tool_calls] == [
            (tc.index, tc.function.name if tc.function else None,
             tc.function.arguments if tc.function else None) for tc in msg.tool_calls]
    reasoning, content, calls = _joined(direct_msgs)
    # the server's opening chunk carries content "", so a streaming client never holds None
    assert (result.stream["reasoning"], result.stream["content"]) == (reasoning, content or "")
    assert [{"name": c["name"], "arguments": c["arguments"]} for c in result.stream["tool_calls"]] == calls
    assert (result.nonstream["reasoning"], result.nonstream["content"]) == (n_reasoning, n_content)
    assert [(c["name"], c["arguments"]) for c in result.nonstream["tool_calls"]] == [
        (c.name, c.arguments) for c in n_calls or []]


def test_harmony_seed_channels_and_answer(family_sessions):
    session = family_sessions["gpt_oss"]
    assert session.parser_info["kind"] == "harmony"
    for chunking in ("token", "random:3"):
        result = session.replay(session.deltas_from_text(HARMONY_TEXTS["seed"], chunking))
        for answer in (result.stream, result.nonstream):
            assert answer["reasoning"] == "Need the weather." and not answer["content"]
            assert [(c["name"], json.loads(c["arguments"])) for c in answer["tool_calls"]] == [
                ("get_weather", {"city": "Paris"})]
            assert answer["finish_reason"] == "tool_calls"
    rows = session.replay(session.deltas_from_text(HARMONY_TEXTS["seed"])).rows
    phases = [r.phase for r in rows]
    # analysis -> (header of the next message) -> commentary addressed to the tool
    assert phases[0] == "header" and "analysis" in phases
    assert phases.index("analysis") < phases.index("commentary to=functions.get_weather")
    assert rows[-1].tokens == ["<|call|>"] and rows[-1].finish_reason == "tool_calls"


def test_harmony_final_channel_is_content(family_sessions):
    session = family_sessions["gpt_oss"]
    result = session.replay(session.deltas_from_text(HARMONY_TEXTS["final"]))
    assert result.stream["content"] == result.nonstream["content"] == "It is sunny in Paris 🌞."
    assert [r.phase for r in result.rows if r.content][0] == "final"


def test_harmony_unknown_channel_is_a_clear_row(family_sessions):
    session = family_sessions["gpt_oss"]
    result = session.replay(session.deltas_from_text(HARMONY_TEXTS["unknown_channel"]))
    hidden = [r for r in result.rows if r.phase == "thoughts"]
    # vLLM's HarmonyParser drops a channel it does not know: the rows show where it went.
    assert hidden and all(r.delta is None for r in hidden)
    assert result.stream["content"] == "ok" and "hidden" not in str(result.stream)


def test_mistral_v11_format_on_a_pre_v11_tokenizer_is_a_clear_row(family_sessions):
    session = family_sessions["mistral_tekken"]
    assert session.tokenizer.version < 11
    result = session.replay(session.deltas_from_text(MISTRAL_TEXTS["v11_on_pre_v11"]))
    logged = [r for r in result.rows if any("Error trying to handle streaming tool" in x for x in r.logs)]
    assert logged and all(r.error is None for r in result.rows)  # vLLM logs it; the stream goes on
    assert result.stream["tool_calls"] == [] == result.nonstream["tool_calls"]
    assert result.nonstream["content"] == 'get_weather[ARGS]{"city": "Paris"}'
