"""What a tokenizer folder is, as a hash: the files that change what it does and one
sha256 over them (what a recording's header carries and every open checks), and the
main file's own sha256 (what older headers carry)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core.tokenizers.wheels import sha256_bytes

if TYPE_CHECKING:
    from collections.abc import Iterable

# The file a folder's sha256 (recordings, `workbench tokenizers`) is taken from.
MAIN_FILES = ("tokenizer.json", "tekken.json", "tokenizer.model.v7", "tokenizer.model.v3")


def main_file(files: Iterable[str] | dict) -> str:
    return next((f for f in MAIN_FILES if f in files), "tokenizer.json")


# Every file of a tokenizer folder that changes what it does: the vocabulary, the
# chat template, special tokens, stop ids (generation_config.json) and the
# model_type that picks Harmony (config.json). A recording's header hashes them all.
BEHAVIOUR_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
                   "chat_template.jinja", "chat_template.json", "generation_config.json", "config.json",
                   "vocab.json", "merges.txt", "tokenizer.model", *MAIN_FILES[1:], "o200k_base.tiktoken")


def behaviour_files(folder: Path) -> list[str]:
    folder = Path(folder)
    return [f for f in BEHAVIOUR_FILES if (folder / f).exists()]


_FOLDER_SHA: dict[tuple, str] = {}  # the folder's files' (name, size, mtime, inode) -> sha256


def tokenizer_sha256(folder: Path) -> str:
    """One sha256 over every behaviour file of the folder (name and content), read
    through the reading door (a FIFO or /dev/zero named tokenizer.json is refused).
    Every recording opened checks it (~35 ms for qwen3's): hashed again only when a file
    changed, so `workbench corpus` opens thousands cheaply."""
    from workbench.core import door, limits

    folder = Path(folder)
    names = behaviour_files(folder)
    key = tuple((str(folder.resolve() / n), st.st_size, st.st_mtime_ns, st.st_ino)
                for n in names for st in [(folder / n).stat()])
    if key not in _FOLDER_SHA:
        _FOLDER_SHA[key] = behaviour_sha256({
            name: sha256_bytes(door.read_bytes(folder / name, "tokenizer file",
                                                limits.MAX_TOKENIZER_FILE_BYTES))
            for name in names})
    return _FOLDER_SHA[key]


def behaviour_sha256(file_sha256: dict[str, str]) -> str:
    """One sha256 over the behaviour files' own (name -> sha256): of a folder on disk,
    or of a lock entry's outputs, so `workbench tokenizers` shows what headers carry."""
    digest = hashlib.sha256()
    for name in BEHAVIOUR_FILES:
        if name in file_sha256:
            digest.update(f"{name}\0{file_sha256[name]}\n".encode())
    return digest.hexdigest()


def main_file_sha256(folder: Path) -> str:
    """The sha256 of the main file only (tokenizer.json, or Mistral's): what recordings
    made before the header hashed every behaviour file carry."""
    from workbench.core import door, limits

    folder = Path(folder)
    main = folder / main_file({p.name for p in folder.iterdir()})
    return sha256_bytes(door.read_bytes(main, "tokenizer file", limits.MAX_TOKENIZER_FILE_BYTES))
