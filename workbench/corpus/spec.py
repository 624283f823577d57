"""What a corpus run does to every recording: one `workbench check` (or `diff`) command
line, the same for all, with the files it names carried along.

The command runs in a worker that may be on another machine, so the files the options
name (tools, messages, a config, plugins) travel as their bytes with the spec and are
written next to the recording there; the argv holds ``{"file": i}`` in their place.
``key`` is what ``--resume`` matches on, with the recording's sha256: the mode, the
options, the files' contents and the versions.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from workbench.core import door, limits

# The forwarded options whose values are files (read here, written again in the worker).
FILE_OPTIONS = {"tools", "messages", "request", "config", "plugin", "chat_template"}
ALWAYS = {"fuzz"}  # passed on even at its default: the corpus's default is not check's
_AT_VERSION = re.compile(r"^(.*?)(@\d[^@/]*)?$")


@dataclass
class Spec:
    mode: str  # "check" or "diff"
    argv: list  # after `workbench MODE REC`: strings and {"file": i[, "suffix": "@0.33.0"]}
    files: list[tuple[str, bytes]] = field(default_factory=list)  # (name, bytes) per {"file": i}
    versions: list[str] = field(default_factory=list)  # check --vllm; [] is the installed one
    parser: dict = field(default_factory=dict)  # the parser flags given, for the results' label

    @property
    def key(self) -> str:
        files = [{"name": n, "sha256": hashlib.sha256(b).hexdigest()} for n, b in self.files]
        blob = json.dumps([self.mode, self.argv, files, self.versions], sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def label(self) -> str:
        """The command line, as a person reads it (files by name)."""
        words = [self.mode, "REC"]
        for a in self.argv:
            words.append(a if isinstance(a, str) else self.files[a["file"]][0] + a.get("suffix", ""))
        if self.versions:
            words += ["--vllm", ",".join(self.versions)]
        return " ".join(_quote(w) for w in words)

    def to_dict(self) -> dict:
        """JSON-safe, for a worker elsewhere (bytes as latin-1 text round-trip exactly)."""
        return {"mode": self.mode, "argv": self.argv, "versions": self.versions, "parser": self.parser,
                "files": [[n, b.decode("latin-1")] for n, b in self.files], "key": self.key}

    @classmethod
    def from_dict(cls, d: dict) -> Spec:
        return cls(d["mode"], d["argv"], [(n, t.encode("latin-1")) for n, t in d["files"]],
                   d["versions"], d.get("parser") or {})


def _quote(word: str) -> str:
    return word if re.fullmatch(r"[\w@%+=:,./-]+", word) else json.dumps(word, ensure_ascii=False)


def _read(path: str, what: str) -> tuple[str, bytes]:
    cap = limits.MAX_CODE_BYTES if what == "--plugin" else limits.MAX_TEXT_BYTES
    return Path(path).name, door.read_bytes(path, f"{what} file", max_bytes=cap)


def _value(v) -> str:
    return json.dumps(v) if isinstance(v, (dict, list)) else str(v)


def build(args, forwarded: list, mode: str) -> Spec:
    """The spec from the parsed command line. ``forwarded``: the argparse actions (as
    `add_argument` returned them) that go on to check/diff as given."""
    spec = Spec(mode, [])

    def add_file(path: str, opt: str, suffix: str = "") -> dict:
        spec.files.append(_read(path, opt))
        ref = {"file": len(spec.files) - 1}
        if suffix:
            ref["suffix"] = suffix
        return ref

    for action in forwarded:
        value, opt = getattr(args, action.dest, None), action.option_strings[0]
        if value is None or (value == action.default and (action.dest not in ALWAYS or mode != "check")):
            continue
        if action.nargs == 0:  # store_true
            spec.argv.append(opt)
            continue
        for v in value if isinstance(value, list) else [value]:
            spec.argv += [opt, add_file(v, opt) if action.dest in FILE_OPTIONS else _value(v)]
    if mode == "diff":
        for opt, text in (("--a", args.a), ("--b", args.b)):
            body, suffix = _AT_VERSION.match(text.strip()).groups()
            if body.endswith(".toml"):
                spec.argv += [opt, add_file(body.removeprefix("config:"), opt, suffix or "")]
            else:
                spec.argv += [opt, text.strip()]
    spec.parser = {k: getattr(args, k, None) for k in ("tool_parser", "reasoning_parser")}
    if getattr(args, "config", None):
        spec.parser["config"] = Path(args.config).name
    return spec
