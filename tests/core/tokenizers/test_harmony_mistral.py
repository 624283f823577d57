"""gpt-oss (Harmony) and Mistral tokenizers: ids equal their own libraries', loaded as vLLM does."""

from __future__ import annotations

import json
import random

import pytest

from tests.support.samples import SAMPLES
from workbench.core.tokenizers import hashing, registry as reg
from workbench.core.tokenizers.gpt_oss import harmony_encoding

HARMONY_MARKERS = {"<|startoftext|>": 199998, "<|endoftext|>": 199999, "<|return|>": 200002,
                   "<|constrain|>": 200003, "<|channel|>": 200005, "<|start|>": 200006,
                   "<|end|>": 200007, "<|message|>": 200008, "<|call|>": 200012}
HARMONY_SEED = ('<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant'
                '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>'
                '{"city": "Paris"}<|call|>')


def _harmony_samples() -> list[str]:
    rng = random.Random(13)
    pieces = [*HARMONY_MARKERS, "<|reserved_200013|>", "<|endofprompt|>", "assistant", "analysis",
              "commentary", " to=functions.get_weather", "final", "json", '{"city": "Paris"}',
              "<|channel", "|>", "<|message", " ", "\n\n", "東京", "😀", "'s", "123456"]
    generated = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) for _ in range(100)]
    return [HARMONY_SEED, "<|start|>user<|message|>hi<|end|>", *generated]


@pytest.fixture(scope="module")
def gpt_oss():
    return reg.load_tokenizer("gpt_oss")


@pytest.fixture(scope="module")
def harmony(gpt_oss):
    return harmony_encoding()  # offline: load_tokenizer set TIKTOKEN_ENCODINGS_BASE


def test_gpt_oss_ids_equal_harmony_encoder(gpt_oss, harmony):
    samples = SAMPLES + _harmony_samples()
    assert len(samples) > 300
    bad = [f"{t!r}: {gpt_oss.encode(t, add_special_tokens=False)} != "
           f"{harmony.encode(t, allowed_special='all')}" for t in samples
           if gpt_oss.encode(t, add_special_tokens=False) != harmony.encode(t, allowed_special="all")]
    assert not bad, f"{len(bad)} of {len(samples)} differ, first: {bad[:3]}"
    ids = harmony.encode(HARMONY_SEED, allowed_special="all")
    assert gpt_oss.decode(ids) == harmony.decode(ids) == HARMONY_SEED


def test_gpt_oss_special_tokens_are_harmonys(gpt_oss, harmony):
    added = {t.content: i for i, t in gpt_oss.added_tokens_decoder.items()}
    assert len(added) == len(harmony.special_tokens_set) == 1091
    assert all(added[t] == harmony.encode(t, allowed_special="all")[0]
               for t in harmony.special_tokens_set)
    for marker, token_id in HARMONY_MARKERS.items():
        assert gpt_oss.convert_tokens_to_ids(marker) == token_id and harmony.is_special_token(token_id)
    assert set(harmony.stop_tokens_for_assistant_actions()) <= reg.stop_token_ids(gpt_oss)
    assert reg.model_type(gpt_oss) == "gpt_oss"


def test_gpt_oss_folder_loads_in_transformers():
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(reg.ensure_tokenizer("gpt_oss")))
    assert tok.encode(HARMONY_SEED, add_special_tokens=False)[:3] == [200005, 35644, 200008]
    assert tok.eos_token == "<|return|>" and tok.pad_token == "<|endoftext|>"


@pytest.mark.parametrize("name, version, tekken, tool_calls_id", [
    ("mistral_tekken", 3, True, 9), ("mistral_v7", 7, False, 5)])
def test_mistral_tokenizers_load_as_vllm_does(name, version, tekken, tool_calls_id):
    from vllm.tokenizers.mistral import MistralTokenizer

    tok = reg.load_tokenizer(name)
    assert isinstance(tok, MistralTokenizer)
    assert (tok.version, tok.is_tekken, tok.supports_grammar) == (version, tekken, False)
    vocab = tok.get_vocab()
    assert vocab["[TOOL_CALLS]"] == tool_calls_id
    assert "[AVAILABLE_TOOLS]" in vocab and "[TOOL_RESULTS]" in vocab
    # What the pre-v11 limits mean: no v11+ [ARGS], no v13+ [THINK].
    assert "[ARGS]" not in vocab and "[THINK]" not in vocab


def test_listed_with_format_source_and_sha256(run_cli):
    code, out, _ = run_cli("tokenizers", "--json")
    rows = {r["name"]: r for r in json.loads(out)}
    assert code == 0 and list(rows)[3:] == ["gpt_oss", "kimi_k2", "mistral_tekken", "mistral_v7"]
    gpt = rows["gpt_oss"]
    assert (gpt["kind"], gpt["format"], gpt["source"]) == ("real", "o200k_harmony", "tml-renderers==0.2.1")
    folder = reg.ensure_tokenizer("gpt_oss")
    assert gpt["sha256"] == hashing.tokenizer_sha256(folder)  # the folder's, as a recording header has it
    assert gpt["file_sha256"] == reg.sha256_file(folder / "tokenizer.json")
    assert reg.sha256_file(folder / "o200k_base.tiktoken").startswith("446a9538")  # Harmony's own pin
    for name, fmt, file in (("mistral_tekken", "tekken v3", "tekken.json"),
                            ("mistral_v7", "sentencepiece v7", "tokenizer.model.v7")):
        row = rows[name]
        assert (row["format"], row["file"], row["source"]) == (fmt, file, "mistral-common==1.13.1")
        assert row["file_sha256"] == reg.sha256_file(reg.ensure_tokenizer(name) / file)
        assert row["sha256"] == hashing.tokenizer_sha256(reg.ensure_tokenizer(name))
