"""Recordings: a JSONL header line, then one delta per line.

Written append-only and flushed per delta, so a crash never loses what was
already streamed: a cut last line loads as the prefix before it, and a stream
whose last delta has no finish_reason is noted as cut short. Read line by line
with every header field and delta checked; errors name the path and line; the
sizes in ``core/limits.py`` are enforced. Loading only parses JSON: a recording
can never execute code, and never loads the config or plugins it names
(``core/trust.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from workbench.core import limits
from workbench.core.deltas import Delta
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

FORMAT = "parser-workbench/recording"
VERSION = 1


@dataclass
class Recording:
    header: dict
    deltas: list[Delta] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # e.g. "cut at line N, the stream did not finish"

    @property
    def request(self) -> dict:
        return self.header.get("request") or {}

    @property
    def prompt_token_ids(self) -> list[int]:
        return list(self.header.get("prompt_token_ids") or [])

    @property
    def tokenizer(self) -> str:
        return self.header["tokenizer"]["name"]

    @property
    def text(self) -> str:
        return "".join(d.text for d in self.deltas)

    @property
    def token_ids(self) -> list[int]:
        return [t for d in self.deltas for t in d.token_ids]


def make_header(tokenizer_name: str, tokenizer_sha256: str, request: dict, prompt_ids: Sequence[int],
                origin: dict, parser: dict | None = None) -> dict:
    from workbench.core.vllm_version import vllm_version

    return {"format": FORMAT, "version": VERSION,
            "tokenizer": {"name": tokenizer_name, "sha256": tokenizer_sha256,
                          "files": _behaviour_files(tokenizer_name)},
            "vllm_version": vllm_version(), "request": request,
            "prompt_token_ids": list(prompt_ids), "origin": origin, "parser": parser}


def _behaviour_files(name: str) -> list[str]:
    """What the header's sha256 covers (``core/truth.py`` checks it)."""
    from workbench.core.tokenizers import behaviour_files, ensure_tokenizer

    return behaviour_files(ensure_tokenizer(name))


class RecordingFull(WorkbenchError):
    """The next delta would take the recording past a limit its loader enforces."""


class RecordingWriter:
    """``with RecordingWriter(path, header) as w: w.append(delta)``.

    Every line is scrubbed of the process's secrets (``core.secrets``), then checked by the
    loader's own rules (the reading door's JSON checks included) and limits before it is
    written: so whatever a writer leaves, cut short or not, is a recording ``load`` accepts.
    ``RecordingFull`` keeps ``RESERVE_BYTES`` and one delta back for a last (finishing)
    delta that says why the stream stopped; nothing may follow a finishing delta.
    """

    RESERVE_BYTES = 64 << 10

    def __init__(self, path: str | Path, header: dict, overwrite: bool = True) -> None:
        from workbench.core import outputs

        self.path = Path(path)
        line, obj = self._line({"type": "header", **header}, f"recording {self.path} header")
        _check_header(obj, f"recording {self.path} header")
        self.deltas, self.tokens, self.bytes, self.finished = 0, 0, 0, False
        self._f = outputs.create(self.path, overwrite, mkdir=True)
        self._write(line)

    @staticmethod
    def _line(obj: dict, where: str) -> tuple[str, dict]:
        """(the line, what the loader reads back from it) or WorkbenchError."""
        from workbench.core import door, secrets
        from workbench.core.writing import jsontext

        try:  # DEL, C1 and bidi controls as \uXXXX: the line reads back the same, and `cat` shows them inert
            text = jsontext.safe(json.dumps(secrets.scrub_obj(obj), ensure_ascii=False, allow_nan=False))
            size = len(text.encode("utf-8"))
        except ValueError:  # NaN/Infinity (json) or a lone surrogate (UnicodeEncodeError)
            raise WorkbenchError(f"{where}: would hold NaN, Infinity or a lone surrogate, which "
                                 f"a recording cannot") from None
        if size > limits.MAX_LINE_BYTES:
            raise RecordingFull(f"{where}: {limits.mb(size)}, over the {limits.mb(limits.MAX_LINE_BYTES)} "
                                f"a recording's line may be")
        return text + "\n", cast(dict, door.parse_json(text, where))  # a dict was dumped

    def _write(self, line: str) -> None:
        try:
            self._f.write(line)
            self._f.flush()
        except OSError as e:
            raise WorkbenchError(f"cannot write recording {self.path}: {e.strerror}") from None
        self.bytes += len(line.encode("utf-8"))

    def append(self, delta: Delta) -> None:
        where = f"recording {self.path} delta {self.deltas + 1}"
        if self.finished:
            raise WorkbenchError(f"{where}: a delta after the finishing one")
        line, obj = self._line({"type": "delta", **delta.to_dict()}, where)
        d = _check_delta(obj, where)
        last = d.finish_reason is not None  # a finishing delta may use what was kept back
        size = len(line.encode("utf-8"))
        if self.deltas + (1 if last else 2) > limits.MAX_DELTAS:
            raise RecordingFull(f"the recording reached {limits.MAX_DELTAS:,} deltas, the most one "
                                f"stream may have")
        if self.tokens + len(d.token_ids) > limits.MAX_DELTAS:  # the loader's rule too
            raise RecordingFull(f"the recording reached {limits.MAX_DELTAS:,} token ids, the most one "
                                f"stream may have")
        if self.bytes + size > limits.MAX_RECORDING_BYTES - (0 if last else self.RESERVE_BYTES):
            raise RecordingFull(f"the recording reached {limits.mb(limits.MAX_RECORDING_BYTES)}, the "
                                f"most a recording may be")
        self._write(line)
        self.deltas += 1
        self.tokens += len(d.token_ids)
        self.finished = last

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> RecordingWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def save(path: str | Path, header: dict, deltas: Sequence[Delta], overwrite: bool = True) -> None:
    with RecordingWriter(path, header, overwrite) as w:
        for d in deltas:
            w.append(d)


def load(path: str | Path) -> Recording:
    """Read and check a recording, streaming through the reading door (``core/door.py``);
    a cut last line loads as a prefix with a note."""
    from workbench.core import door

    p = Path(path)
    header: dict | None = None
    deltas: list[Delta] = []
    notes: list[str] = []
    finished_at = None
    seen = tokens = 0
    most = limits.MAX_DELTAS

    def at() -> str:  # the line being read, named only for a refusal
        return f"recording {p} line {number}"

    # The hot loop of every load (100,000 lines): a line is unpacked once, and a line's
    # name ("recording P line N") is made only when something is refused.
    for number, _, _, cut, obj in door.read_jsonl(p, "recording"):
        seen = number
        if cut is not None:
            if header is not None and deltas:
                # A crash mid-write: every earlier line was written and flushed whole.
                notes.append(f"cut at line {number}, the stream did not finish")
                break
            raise WorkbenchError(f"{at()}: invalid JSON ({cut})")
        if type(obj) is not dict:
            raise WorkbenchError(f"{at()}: expected a JSON object")
        if header is None:
            header = _check_header(obj, at())
            continue
        delta = Delta.from_dict(obj) if _valid_delta(obj) else _check_delta(obj, at())
        if finished_at is not None:
            raise WorkbenchError(f"{at()}: a delta after the finish_reason at line {finished_at}")
        if delta.finish_reason is not None:
            finished_at = number
        deltas.append(delta)
        tokens += len(delta.token_ids)
        if len(deltas) > most or tokens > most:
            limits.check_deltas(len(deltas), f"recording {p}")
            limits.check_tokens(tokens, f"recording {p}")
    if header is None:
        raise WorkbenchError(f"recording {p}: empty file" if not seen else f"recording {p}: no header line")
    if not deltas:
        raise WorkbenchError(f"recording {p}: no deltas after the header")
    if finished_at is None and not notes:
        notes.append("cut short: no delta has a finish_reason, the stream did not finish")
    return Recording(header, deltas, notes)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _ids(v: Any) -> bool:
    return isinstance(v, list) and all(_is_int(i) and i >= 0 for i in v)


def _opt_str(v: Any) -> bool:
    return v is None or isinstance(v, str)


def _plugins(v: Any) -> bool:
    return v is None or (isinstance(v, list) and all(
        isinstance(e, dict) and isinstance(e.get("file"), str) and _opt_str(e.get("sha256")) for e in v))


_HEADER = {  # field: (check, what it must be); absent fields read as None
    "tokenizer.name": (lambda v: isinstance(v, str) and bool(v), "a tokenizer name or folder"),
    "tokenizer.sha256": (_opt_str, "a sha256 string"),
    "tokenizer.files": (lambda v: v is None or (isinstance(v, list) and all(isinstance(f, str) for f in v)),
                        "a list of file names"),
    "vllm_version": (_opt_str, "a version string"),
    "prompt_token_ids": (lambda v: v is None or (_ids(v) and len(v) <= limits.MAX_PROMPT_IDS),
                         f"a list of at most {limits.MAX_PROMPT_IDS:,} token ids (ints >= 0)"),
    "origin": (lambda v: v is None or isinstance(v, dict), "an object"),
    "parser.tool_parser": (_opt_str, "a parser name or null"),
    "parser.reasoning_parser": (_opt_str, "a parser name or null"),
    "parser.config": (_opt_str, "a config path or null"),
    "parser.config_sha256": (_opt_str, "a sha256 string"),
    "parser.config_text": (_opt_str, "a string"),
    "parser.tool_strict_level": (_opt_str, "a string"),
    "parser.plugins": (_plugins, 'a list of {"file", "sha256"}'),
    "chat_template.file": (_opt_str, "a file name"),
    "chat_template.sha256": (_opt_str, "a sha256 string"),
}


def _check_header(obj: dict, where: str) -> dict:
    from workbench.core.request import RequestSpec

    if obj.get("type") != "header" or obj.get("format") != FORMAT:
        raise WorkbenchError(f"{where}: first line must be a {FORMAT} header")
    if obj.get("version") != VERSION or not _is_int(obj.get("version")):
        raise WorkbenchError(f"{where}: unsupported version {obj.get('version')!r} (expected {VERSION})")
    for key, kind in (("tokenizer", dict), ("request", dict), ("parser", dict), ("chat_template", dict)):
        if obj.get(key) is not None and not isinstance(obj[key], kind):
            raise WorkbenchError(f"{where}: header.{key} must be an object")
    if obj.get("tokenizer") is None:
        raise WorkbenchError(f"{where}: header.tokenizer.name missing")
    for path, (ok, what) in _HEADER.items():
        head, _, sub = path.partition(".")
        value = (obj.get(head) or {}).get(sub) if sub else obj.get(head)
        if not ok(value):
            raise WorkbenchError(f"{where}: header.{path} must be {what}")
    try:
        RequestSpec.from_dict(obj.get("request") or {})
    except (WorkbenchError, TypeError) as e:
        raise WorkbenchError(f"{where}: header.{e}") from None
    return {k: v for k, v in obj.items() if k != "type"}


FINISH_REASONS = ("stop", "length", "abort", "error", "repetition")  # vLLM's FINISH_REASON_STRINGS


def _valid_delta(obj: dict) -> bool:
    """``_check_delta``'s rules in one expression, the fast path of a load: True only where
    ``_check_delta`` would accept ``obj`` (it says why when this is False)."""
    ids, fr, steps, extra = obj.get("token_ids"), obj.get("finish_reason"), obj.get("engine_steps", 1), obj.get("extra")
    return (obj.get("type") == "delta" and type(ids) is list and all(type(i) is int and i >= 0 for i in ids)
            and type(obj.get("text")) is str and (fr is None or fr in FINISH_REASONS)
            and type(steps) is int and steps >= 0 and (extra is None or type(extra) is dict))


def _check_delta(obj: dict, where: str) -> Delta:
    if obj.get("type") != "delta":
        raise WorkbenchError(f"{where}: expected a delta line, got type {obj.get('type')!r}")
    ids, text = obj.get("token_ids"), obj.get("text")
    if not _ids(ids):
        raise WorkbenchError(f"{where}: token_ids must be a list of token ids (ints >= 0)")
    if not isinstance(text, str):
        raise WorkbenchError(f"{where}: text must be a string")
    fr = obj.get("finish_reason")
    if fr is not None and fr not in FINISH_REASONS:
        raise WorkbenchError(f"{where}: finish_reason must be null or one of {', '.join(FINISH_REASONS)}, "
                             f"got {fr!r}")
    steps = obj.get("engine_steps", 1)
    if not _is_int(steps) or steps < 0:
        raise WorkbenchError(f"{where}: engine_steps must be an int >= 0")
    if not isinstance(obj.get("extra") or {}, dict):
        raise WorkbenchError(f"{where}: extra must be an object")
    return Delta.from_dict(obj)
