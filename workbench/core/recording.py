"""Recordings: a JSONL header line, then one delta per line.

Written append-only and flushed per delta, so a crash never loses what was
already streamed. Read with validation; errors name the path and line. Loading
only parses JSON: a recording can never execute code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from workbench.core.deltas import Delta
from workbench.errors import WorkbenchError

FORMAT = "parser-workbench/recording"
VERSION = 1


@dataclass
class Recording:
    header: dict
    deltas: list[Delta] = field(default_factory=list)

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


def make_header(tokenizer_name: str, tokenizer_sha256: str, request: dict, prompt_ids,
                origin: dict, parser: dict | None = None) -> dict:
    from workbench.core.versions import vllm_version

    return {"format": FORMAT, "version": VERSION,
            "tokenizer": {"name": tokenizer_name, "sha256": tokenizer_sha256},
            "vllm_version": vllm_version(), "request": request,
            "prompt_token_ids": list(prompt_ids), "origin": origin, "parser": parser}


class RecordingWriter:
    """``with RecordingWriter(path, header) as w: w.append(delta)``."""

    def __init__(self, path: str | Path, header: dict) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._f = self.path.open("w", encoding="utf-8")
        except OSError as e:
            raise WorkbenchError(f"cannot write recording {self.path}: {e.strerror}") from None
        self._write({"type": "header", **header})

    def _write(self, obj: dict) -> None:
        self._f.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self._f.flush()

    def append(self, delta: Delta) -> None:
        self._write({"type": "delta", **delta.to_dict()})

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> RecordingWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def save(path: str | Path, header: dict, deltas) -> None:
    with RecordingWriter(path, header) as w:
        for d in deltas:
            w.append(d)


def load(path: str | Path) -> Recording:
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise WorkbenchError(f"recording {p}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise WorkbenchError(f"recording {p}: not UTF-8 text") from None
    if not lines:
        raise WorkbenchError(f"recording {p}: empty file")
    header, deltas = None, []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise WorkbenchError(f"recording {p} line {n}: invalid JSON ({e.msg} at column {e.colno})") from None
        if not isinstance(obj, dict):
            raise WorkbenchError(f"recording {p} line {n}: expected a JSON object")
        if header is None:
            header = _check_header(obj, p, n)
            continue
        deltas.append(_check_delta(obj, p, n))
    if header is None:
        raise WorkbenchError(f"recording {p}: no header line")
    if not deltas:
        raise WorkbenchError(f"recording {p}: no deltas after the header")
    return Recording(header, deltas)


def _check_header(obj: dict, p: Path, n: int) -> dict:
    if obj.get("type") != "header" or obj.get("format") != FORMAT:
        raise WorkbenchError(f"recording {p} line {n}: first line must be a {FORMAT} header")
    if obj.get("version") != VERSION:
        raise WorkbenchError(f"recording {p} line {n}: unsupported version {obj.get('version')!r} (expected {VERSION})")
    tok = obj.get("tokenizer")
    if not isinstance(tok, dict) or not isinstance(tok.get("name"), str):
        raise WorkbenchError(f"recording {p} line {n}: header.tokenizer.name missing")
    if not isinstance(obj.get("request", {}), dict):
        raise WorkbenchError(f"recording {p} line {n}: header.request must be an object")
    ids = obj.get("prompt_token_ids", [])
    if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
        raise WorkbenchError(f"recording {p} line {n}: header.prompt_token_ids must be a list of ints")
    return {k: v for k, v in obj.items() if k != "type"}


def _check_delta(obj: dict, p: Path, n: int) -> Delta:
    if obj.get("type") != "delta":
        raise WorkbenchError(f"recording {p} line {n}: expected a delta line, got type {obj.get('type')!r}")
    ids, text = obj.get("token_ids"), obj.get("text")
    if not isinstance(ids, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        raise WorkbenchError(f"recording {p} line {n}: token_ids must be a list of ints")
    if not isinstance(text, str):
        raise WorkbenchError(f"recording {p} line {n}: text must be a string")
    fr = obj.get("finish_reason")
    if fr is not None and not isinstance(fr, str):
        raise WorkbenchError(f"recording {p} line {n}: finish_reason must be a string or null")
    return Delta.from_dict(obj)
