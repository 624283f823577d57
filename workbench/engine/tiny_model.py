"""The embedded default model: a tiny random-weight model for a chosen tokenizer.

Built once per tokenizer under ``<cache>/models/<tokenizer>-tiny/`` (config.json,
model.safetensors, generation_config.json and the tokenizer's own files), with a
fixed seed so every machine gets the same weights. Its vocabulary is exactly
``len(tokenizer)``; what it says does not matter, because scripts force the
tokens. ``head_dim`` is 32: vLLM's CPU attention backend has no smaller size.
A manifest names the recipe and the tokenizer's sha256; a mismatch rebuilds.

The architecture is a Qwen3, except for a tokenizer whose folder says ``model_type:
gpt_oss``: that one gets a tiny ``GptOssForCausalLM`` (attention sinks, sliding
windows, 4 experts; vLLM's CPU backend runs all three), because vLLM's servers key
the Harmony paths on the *model's* ``model_type`` (``OpenAIServingResponses.use_harmony``,
``OnlineRenderer``): a Qwen3 with the gpt-oss vocabulary never takes them.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from workbench.errors import WorkbenchError

RECIPE = {"architecture": "Qwen3ForCausalLM", "hidden_size": 64, "intermediate_size": 128,
          "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
          "head_dim": 32, "max_position_embeddings": 8192, "dtype": "bfloat16", "seed": 0,
          "version": 1}
GPT_OSS_RECIPE = {"architecture": "GptOssForCausalLM", "hidden_size": 64, "intermediate_size": 64,
                  "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                  "head_dim": 32, "num_local_experts": 4, "num_experts_per_tok": 2, "sliding_window": 128,
                  "max_position_embeddings": 131072, "dtype": "bfloat16", "seed": 0, "version": 1}
MANIFEST = "workbench-tiny.json"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "generation_config.json",
                   "special_tokens_map.json", "vocab.json", "merges.txt", "tokenizer.model",
                   "chat_template.jinja", "chat_template.json",
                   "o200k_base.tiktoken")  # gpt-oss: Harmony's ranks (a server's TIKTOKEN_ENCODINGS_BASE)


def model_dir(tokenizer: str) -> Path:
    from workbench.core.names import path_name
    from workbench.core.tokenizers import cache_dir, ensure_tokenizer, main_file_sha256

    folder = ensure_tokenizer(tokenizer)
    name = path_name(tokenizer, "tokenizer name") if "/" not in tokenizer and not Path(tokenizer).exists() else (
        f"{folder.name}-{main_file_sha256(folder)[:12]}")
    return cache_dir() / "models" / f"{name}-tiny"


def ensure_tiny_model(tokenizer: str, **overrides) -> Path:
    """The model folder for ``tokenizer`` (a built-in name or a folder), built if missing.

    ``overrides`` change the recipe (tests use them, e.g. an unsupported head_dim);
    such models go to a folder named after the changes.
    """
    from workbench.core.tokenizers import ensure_tokenizer, main_file_sha256

    tok_folder = ensure_tokenizer(tokenizer)
    recipe = {**recipe_for(tok_folder), **overrides}
    wanted = {"recipe": recipe, "tokenizer": str(tokenizer),
              "tokenizer_sha256": main_file_sha256(tok_folder)}
    folder = model_dir(tokenizer)
    if overrides:
        folder = folder.with_name(folder.name + "-" + "-".join(f"{k}{v}" for k, v in sorted(overrides.items())))
    try:
        if json.loads((folder / MANIFEST).read_text()) == wanted:
            return folder
    except (OSError, ValueError):
        pass
    _build(folder, tok_folder, recipe, wanted)
    return folder


def recipe_for(tok_folder: Path) -> dict:
    """The GptOss recipe for a folder whose config.json says model_type gpt_oss, else Qwen3's."""
    from workbench.core import door, limits

    config = tok_folder / "config.json"
    value = door.read_json(config, "tokenizer file", limits.MAX_FOLDER_JSON_BYTES) if config.is_file() else {}
    return GPT_OSS_RECIPE if isinstance(value, dict) and value.get("model_type") == "gpt_oss" else RECIPE


def _config(tok, recipe: dict):
    eos = getattr(tok, "eos_token_id", None)
    if eos is None:
        raise WorkbenchError(f"tokenizer {getattr(tok, 'name_or_path', '?')} has no eos token: a script cannot end")
    common = dict(
        vocab_size=len(tok), hidden_size=recipe["hidden_size"],
        intermediate_size=recipe["intermediate_size"], num_hidden_layers=recipe["num_hidden_layers"],
        num_attention_heads=recipe["num_attention_heads"],
        num_key_value_heads=recipe["num_key_value_heads"], head_dim=recipe["head_dim"],
        max_position_embeddings=recipe["max_position_embeddings"], tie_word_embeddings=True,
        bos_token_id=getattr(tok, "bos_token_id", None), eos_token_id=eos,
        pad_token_id=getattr(tok, "pad_token_id", None), dtype=recipe["dtype"],
        architectures=[recipe["architecture"]])
    if recipe["architecture"] == "GptOssForCausalLM":
        from transformers import GptOssConfig, GptOssForCausalLM

        layers = recipe["num_hidden_layers"]
        return GptOssForCausalLM, GptOssConfig(
            **common, num_local_experts=recipe["num_local_experts"],
            num_experts_per_tok=recipe["num_experts_per_tok"], sliding_window=recipe["sliding_window"],
            layer_types=["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(layers)])
    from transformers import Qwen3Config, Qwen3ForCausalLM

    return Qwen3ForCausalLM, Qwen3Config(**common)


def _build(folder: Path, tok_folder: Path, recipe: dict, manifest: dict) -> None:
    import torch

    from workbench.core.tokenizers import load_tokenizer

    model_cls, config = _config(load_tokenizer(str(tok_folder)), recipe)
    tmp = folder.with_name(f".{folder.name}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        state = torch.random.get_rng_state()
        torch.manual_seed(recipe["seed"])
        try:
            model = model_cls(config).to(getattr(torch, recipe["dtype"]))
        finally:
            torch.random.set_rng_state(state)
        from transformers.utils import logging as hf_logging

        # Its "Writing model shards" bar is a tqdm.auto widget in a notebook: past quiet()'s
        # redirects, into the cell of a fresh machine's first Step.
        shown = hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()
        try:
            model.save_pretrained(tmp, safe_serialization=True)
        finally:
            if shown:
                hf_logging.enable_progress_bar()
        for name in TOKENIZER_FILES:
            if (tok_folder / name).is_file():
                shutil.copyfile(tok_folder / name, tmp / name)
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=1))
        if folder.exists():
            shutil.rmtree(folder)
        tmp.rename(folder)
    except OSError as e:
        raise WorkbenchError(f"cannot write the tiny model to {folder}: {e.strerror or e}") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
