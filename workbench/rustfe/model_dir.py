"""The model folder ``vllm-rs`` is started on: a tokenizer folder and a config, no weights.

The frontend reads ``config.json`` (``model_type``, and ``vocab_size``, which it requires),
``generation_config.json``, ``tokenizer.json`` and ``tokenizer_config.json`` (the chat
template), and nothing else of a model (checked with strace on 0.34.0). The workbench's
tokenizer folders hold all but ``vocab_size``; the folder made here links their files and
adds it: the number of ids the tokenizer has. It lives under ``.cache/vllm-rs/models/``,
named by the tokenizer folder's sha256, and is made again if any file differs.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from vllm.tokenizers import TokenizerLike

FILES = ("tokenizer.json", "tokenizer_config.json", "generation_config.json")


def _root() -> Path:
    from workbench.rustfe.binary import cache_root

    return cache_root() / "models"


def unreadable(tokenizer_name: str) -> str | None:
    """Why vllm-rs cannot read the tokenizer ``tokenizer_name`` (None: it can)."""
    from workbench.core.tokenizers import ensure_tokenizer

    return _unreadable(Path(ensure_tokenizer(tokenizer_name)), tokenizer_name)


def _unreadable(source: Path, tokenizer_name: str) -> str | None:
    if not (source / "tokenizer.json").is_file():
        return (f"the Rust frontend reads a Hugging Face tokenizer.json; {tokenizer_name} has none "
                f"(a Mistral tokenizer folder is not supported by the Rust lane)")
    return None


def model_dir(tokenizer_name: str, tokenizer: TokenizerLike) -> Path:
    """The folder for the tokenizer ``tokenizer_name`` (a built-in name or a folder), which
    ``tokenizer`` is (as loaded by ``load_tokenizer``)."""
    from workbench.core import door
    from workbench.core.names import path_name
    from workbench.core.tokenizers import ensure_tokenizer, tokenizer_sha256

    source = Path(ensure_tokenizer(tokenizer_name))
    why = _unreadable(source, tokenizer_name)
    if why:
        raise WorkbenchError(why)
    config: dict = {}
    if (source / "config.json").is_file():
        config = door.read_json(source / "config.json", "tokenizer config.json")
        if not isinstance(config, dict):
            raise WorkbenchError(f"{source / 'config.json'}: not a JSON object")
    if not config.get("model_type"):
        from workbench.core.tokenizers import model_type

        config["model_type"] = model_type(tokenizer) or "qwen3"
    config.setdefault("vocab_size", len(tokenizer))
    text = json.dumps(config, indent=1, sort_keys=True) + "\n"
    where = f"{source / 'config.json'}: model_type"
    folder = _root() / f"{tokenizer_sha256(source)[:16]}-{path_name(config['model_type'], where)}"
    if _matches(folder, source, text):
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".model.", dir=folder.parent))
    try:
        for name in FILES:
            if (source / name).is_file():
                _link(source / name, tmp / name)
        (tmp / "config.json").write_text(text, encoding="utf-8")
        shutil.rmtree(folder, ignore_errors=True)
        try:
            os.rename(tmp, folder)
        except OSError:
            if not _matches(folder, source, text):
                raise WorkbenchError(f"vllm-rs: another process is making {folder} too; try again") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return folder


def _link(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def _matches(folder: Path, source: Path, config_text: str) -> bool:
    from workbench.core.tokenizers.wheels import sha256_file

    try:
        if sha256_file(folder / "config.json") != _sha(config_text):
            return False
        return all((folder / n).is_file() == (source / n).is_file()
                   and (not (source / n).is_file() or sha256_file(folder / n) == sha256_file(source / n))
                   for n in FILES)
    except OSError:
        return False


def _sha(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()
