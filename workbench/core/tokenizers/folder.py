"""A tokenizer folder the user names (``--tokenizer FOLDER``), held to the door's rules
before vLLM, transformers or the tokenizers library open its files themselves.

Each file a loader may read (everything but model weights) must be a regular file (not
a FIFO, a device, ``/dev/zero`` behind a link) within its cap: a vocabulary file
``limits.MAX_TOKENIZER_FILE_BYTES``, a JSON file ``limits.MAX_FOLDER_JSON_BYTES``, a
chat template ``limits.MAX_TEXT_BYTES``. Every JSON file but the vocabularies (which
Rust or mistral_common parse) is parsed through the door (nesting, digits, NaN), and
the ones transformers reads as settings must be objects. ``tokenizer_class`` must name
a tokenizer class: transformers calls ``from_pretrained`` on whatever class it names
(``AutoModelForCausalLM`` loads the folder's weights). The folder's own code
(``auto_map``) never runs: it is loaded with ``trust_remote_code=False``, as ``vllm
serve`` without ``--trust-remote-code`` loads it, and its chat template renders boxed
(core/templates.py). Once loaded, ``probe`` has the tokenizer encode ordinary text and
the long runs a backtracking pre-tokenizer regex chokes on: a folder whose regex makes
the tokenizers library panic (its regex engine's retry limit, 111 lines of Rust trace)
is refused in one line, with the panic's reason.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core import door, limits
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Iterator

WEIGHTS = (".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".gguf", ".h5", ".msgpack", ".onnx", ".npz",
           ".tflite", ".ot")
VOCABULARIES = ("tokenizer.json", "tekken.json")  # JSON that Rust / mistral_common parse, and large
SETTINGS = ("tokenizer_config.json", "special_tokens_map.json", "added_tokens.json", "chat_template.json",
            "config.json", "generation_config.json", "vocab.json", "preprocessor_config.json",
            "processor_config.json")
TEMPLATE_DIR = "additional_chat_templates"
# ordinary text, then runs of one kind of character that end in another: what makes a
# backtracking regex ("(a+)+$", "(\\w+\\s?)*$") try every way to split the run
PROBES = ("Hello, world! It's 12:30 - café ☕ <think>x</think>\n\n  {\"a\": [1, 2.5]}\tdone.",
          *(c * 512 + end for c in ("a", "1", " ", "-", "'", "\n", "é", "<", "ab") for end in ("!", "a", "\n")))

_CHECKED: set[tuple] = set()  # the folder's files' (name, size, mtime, inode), checked before


def check_folder(folder: Path) -> None:
    """WorkbenchError (one line) unless every file of ``folder`` a loader may read is fine."""
    files = _files(folder)
    key = tuple((str(p), st.st_size, st.st_mtime_ns, st.st_ino) for p, st in files)
    if key in _CHECKED:
        return
    for path, _ in files:
        _check(path)
    for file in ("tokenizer_config.json", "config.json"):
        if (folder / file).is_file():
            _check_class(folder / file)
    _CHECKED.add(key)


def _files(folder: Path) -> list[tuple[Path, os.stat_result]]:
    paths: list[Path] = []
    for top in (folder, folder / TEMPLATE_DIR):
        if top != folder and not top.is_dir():
            continue
        try:
            with os.scandir(top) as entries:
                for entry in entries:
                    if len(paths) >= limits.MAX_FOLDER_ENTRIES:
                        raise WorkbenchError(f"tokenizer folder {folder}: more than {limits.MAX_FOLDER_ENTRIES:,} "
                                             f"entries")
                    if entry.name.endswith(WEIGHTS) or (top == folder and entry.name == TEMPLATE_DIR):
                        continue
                    if entry.is_dir() and top == folder:
                        continue  # a model repository's own subfolders (original/, figures/): not read
                    paths.append(Path(entry.path))
        except OSError as e:
            raise WorkbenchError(f"tokenizer folder {top}: {e.strerror}") from None
    out = []
    for p in sorted(paths):
        try:
            out.append((p, p.stat()))
        except OSError as e:  # a dangling link
            raise WorkbenchError(f"tokenizer file {p}: {e.strerror}") from None
    return out


def _check(path: Path) -> None:
    name = path.name
    if name.endswith(".json") and name not in VOCABULARIES:
        value = door.read_json(path, "tokenizer file", limits.MAX_FOLDER_JSON_BYTES)
        if name in SETTINGS and not isinstance(value, dict):
            raise WorkbenchError(f"tokenizer file {path}: a JSON object expected, not {type(value).__name__}")
    elif name.endswith(".jinja"):
        door.read_text(path, "tokenizer file", limits.MAX_TEXT_BYTES)
    else:
        door.check_file(path, "tokenizer file", limits.MAX_TOKENIZER_FILE_BYTES)


def _check_class(path: Path) -> None:
    """transformers calls ``from_pretrained`` on the class ``tokenizer_class`` names, any
    class of its package: it must be a tokenizer's."""
    value = door.read_json(path, "tokenizer file", limits.MAX_FOLDER_JSON_BYTES).get("tokenizer_class")
    if value is None:
        return
    if not isinstance(value, str):
        raise WorkbenchError(f"tokenizer file {path}: tokenizer_class must be a string, not {type(value).__name__}")
    from transformers.models.auto.tokenization_auto import tokenizer_class_from_name
    from transformers.tokenization_utils_base import PreTrainedTokenizerBase

    name = value.removesuffix("Fast")
    try:
        found = tokenizer_class_from_name(name) or tokenizer_class_from_name(name + "Fast")
    except ImportError:  # a tokenizer whose dependency is missing: transformers' own error follows
        found = None
    if found is not None and not (isinstance(found, type) and issubclass(found, PreTrainedTokenizerBase)):
        raise WorkbenchError(f"tokenizer file {path}: tokenizer_class {value!r} is not a tokenizer class "
                             f"(transformers would call its from_pretrained on this folder)")


def probe(tokenizer: object, folder: Path) -> None:
    """``tokenizer`` encodes ``PROBES``, or the folder is refused in one line (a Rust panic
    is a BaseException that would end the command, after its trace on the terminal)."""
    reason = None
    with _quiet_stderr():
        try:
            for text in PROBES:
                tokenizer.encode(text)  # type: ignore[attr-defined]
        except BaseException as e:
            if type(e).__module__ != "pyo3_runtime":
                raise
            reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    if reason is not None:
        raise WorkbenchError(f"tokenizer folder {folder}: its tokenizer fails on ordinary text (the tokenizers "
                             f"library panicked: {reason}); check its pre_tokenizer's regex")


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """File descriptor 2 to /dev/null for the block: a Rust panic prints there, not to sys.stderr."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):  # no descriptor 2 to quiet
        yield
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)
