"""The embedded default model: a tiny random-weight Qwen3 for a chosen tokenizer.

Built once per tokenizer under ``<cache>/models/<tokenizer>-tiny/`` (config.json,
model.safetensors, generation_config.json and the tokenizer's own files), with a
fixed seed so every machine gets the same weights. Its vocabulary is exactly
``len(tokenizer)``; what it says does not matter, because scripts force the
tokens. ``head_dim`` is 32: vLLM's CPU attention backend has no smaller size.
A manifest names the recipe and the tokenizer's sha256; a mismatch rebuilds.
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
MANIFEST = "workbench-tiny.json"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "generation_config.json",
                   "special_tokens_map.json", "vocab.json", "merges.txt", "tokenizer.model",
                   "chat_template.jinja", "chat_template.json")


def model_dir(tokenizer: str) -> Path:
    from workbench.core.tokenizers import cache_dir, ensure_tokenizer, main_file_sha256

    folder = ensure_tokenizer(tokenizer)
    name = tokenizer if "/" not in tokenizer and not Path(tokenizer).exists() else (
        f"{folder.name}-{main_file_sha256(folder)[:12]}")
    return cache_dir() / "models" / f"{name}-tiny"


def ensure_tiny_model(tokenizer: str, **overrides) -> Path:
    """The model folder for ``tokenizer`` (a built-in name or a folder), built if missing.

    ``overrides`` change the recipe (tests use them, e.g. an unsupported head_dim);
    such models go to a folder named after the changes.
    """
    from workbench.core.tokenizers import ensure_tokenizer, main_file_sha256

    tok_folder = ensure_tokenizer(tokenizer)
    recipe = {**RECIPE, **overrides}
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


def _build(folder: Path, tok_folder: Path, recipe: dict, manifest: dict) -> None:
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    from workbench.core.tokenizers import load_tokenizer

    tok = load_tokenizer(str(tok_folder))
    eos = getattr(tok, "eos_token_id", None)
    if eos is None:
        raise WorkbenchError(f"tokenizer {tok_folder} has no eos token: a script cannot end")
    config = Qwen3Config(
        vocab_size=len(tok), hidden_size=recipe["hidden_size"],
        intermediate_size=recipe["intermediate_size"], num_hidden_layers=recipe["num_hidden_layers"],
        num_attention_heads=recipe["num_attention_heads"],
        num_key_value_heads=recipe["num_key_value_heads"], head_dim=recipe["head_dim"],
        max_position_embeddings=recipe["max_position_embeddings"], tie_word_embeddings=True,
        bos_token_id=getattr(tok, "bos_token_id", None), eos_token_id=eos,
        pad_token_id=getattr(tok, "pad_token_id", None), dtype=recipe["dtype"],
        architectures=[recipe["architecture"]])
    tmp = folder.with_name(f".{folder.name}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        state = torch.random.get_rng_state()
        torch.manual_seed(recipe["seed"])
        try:
            model = Qwen3ForCausalLM(config).to(getattr(torch, recipe["dtype"]))
        finally:
            torch.random.set_rng_state(state)
        model.save_pretrained(tmp, safe_serialization=True)
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
