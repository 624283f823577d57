"""What a corpus run does to every recording: one run (a ``RunSpec`` with no recording yet),
the same for all, as ``check`` (check's Options, and the vLLM versions) or ``diff`` (parsers
A and B), with the files it names carried along.

A run may go to a worker on another machine (Ray), so the files its spec names by path (a
config, plugins, an A/B config) travel as their bytes and are written next to the recording
there (``for_recording``). ``key`` is what ``--resume`` matches on, with the recording's
sha256: the mode, the run, the options, the files' contents and the versions.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.core import door, limits
from workbench.core.prepare import RunSpec
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Mapping

_AT_VERSION = re.compile(r"^(.*?)(@\d[^@/]*)?$")
CORPUS_FUZZ = 20  # check's 100 is for one stream; a corpus multiplies it
# check's options a corpus passes on, with a corpus's defaults (its parallelism is the pool,
# and cost profiles are timings, so neither is passed)
CHECK_DEFAULTS = {"fuzz": CORPUS_FUZZ, "seed": 20260902, "max_chunk": 4, "holdback": 1, "shrink_budget": 5.0,
                  "splits": "all"}


@dataclass
class Spec:
    mode: str  # "check" or "diff"
    run: dict  # RunSpec.to_dict(), its recording None
    options: dict = field(default_factory=dict)  # check: Options' fields; diff: {"a", "b", "api_b"}
    files: list[tuple[str, str, bytes]] = field(default_factory=list)  # (what, file name, bytes)
    versions: list[str] = field(default_factory=list)  # check: the vLLM versions; [] the installed one

    @property
    def key(self) -> str:
        files = [[what, name, hashlib.sha256(b).hexdigest()] for what, name, b in self.files]
        blob = json.dumps([self.mode, _portable(self.run), self.options, files, self.versions], sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    @property
    def parser(self) -> dict:
        """The parser the run names (for the results' label): {} when each recording's own."""
        return dict(self.run.get("parser") or {})

    def label(self) -> str:
        """What runs, as a person reads it (files by name)."""
        run = RunSpec.from_dict(self.run)
        words = [self.mode, "REC"]
        if self.mode == "diff":
            words += [f"A={self.options['a']}", f"B={self.options['b']}"]
        elif run.parser is not None:
            words.append(f"parser={_name(run.parser.label())}")
        if run.tokenizer:
            words.append(f"tokenizer={_name(run.tokenizer)}")
        if run.request.get("tools") is not None:
            words.append(f"tools={len(run.request['tools'])}")
        words += [f"{k}={v}" for k, v in sorted(run.request.items()) if k not in ("tools", "messages")]
        if run.chunking:
            words.append(f"chunking={run.chunking}")
        if run.api:
            words.append(f"api={run.api}")
        if self.mode == "check" and "fuzz" in self.options:
            words.append(f"fuzz={self.options['fuzz']}")
        if self.options.get("frontend"):
            words.append(f"frontend={self.options['frontend']}")
        if self.versions:
            words.append("vllm=" + ",".join(self.versions))
        return " ".join(_quote(w) for w in words)

    def to_dict(self) -> dict:
        """JSON-safe, for a worker elsewhere (bytes as latin-1 text round-trip exactly)."""
        return {"mode": self.mode, "run": self.run, "options": self.options, "versions": self.versions,
                "files": [[w, n, b.decode("latin-1")] for w, n, b in self.files], "key": self.key}

    @classmethod
    def from_dict(cls, d: dict) -> Spec:
        return cls(d["mode"], d["run"], d.get("options") or {},
                   [(w, n, t.encode("latin-1")) for w, n, t in d["files"]], d.get("versions") or [])

    def for_recording(self, recording: str, folder: Path) -> tuple[RunSpec, dict]:
        """(the RunSpec of ``recording``, the options) with the carried files written into
        ``folder`` and named there."""
        run = RunSpec.from_dict(self.run)
        options = dict(self.options)
        paths: dict[str, str] = {}
        for i, (what, name, blob) in enumerate(self.files):
            path = folder / f"f{i}" / name
            path.parent.mkdir(parents=True)
            path.write_bytes(blob)
            paths[what] = str(path)
        plugins = tuple(paths[f"plugin:{i}"] for i in range(len(run.plugins)))
        parser = run.parser
        if parser is not None and parser.config:
            parser = replace(parser, config=paths["config"])
        for side in ("a", "b"):
            if side in paths:
                options[side] = paths[side] + options.get(f"{side}_version", "")
        return replace(run, recording=recording, plugins=plugins, parser=parser), options


def _portable(run: dict) -> dict:
    """The run without the paths of the files that travel (their contents are in the key)."""
    out = dict(run)
    if out.get("parser") and out["parser"].get("config"):
        out["parser"] = dict(out["parser"], config=Path(out["parser"]["config"]).name)
    out["plugins"] = [Path(p).name for p in out.get("plugins") or []]
    return out


def _name(text: str) -> str:
    return Path(text).name if text.endswith((".toml", ".json")) or "/" in text else text


def _quote(word: str) -> str:
    return word if re.fullmatch(r"[\w@%+=:,./-]+", word) else json.dumps(word, ensure_ascii=False)


def _read(path: str, what: str) -> tuple[str, bytes]:
    cap = limits.MAX_CODE_BYTES if what == "--plugin" else limits.MAX_TEXT_BYTES
    return Path(path).name, door.read_bytes(path, f"{what} file", max_bytes=cap)


def build(options: Mapping[str, Any], mode: str, versions: list[str] | None = None) -> Spec:
    """The spec from the corpus's options, by name (the CLI's flags, ``workbench.corpus(...)``'s
    keyword arguments): the run's (core/run_options.py), check's fuzz options, diff's A and B."""
    from workbench.core.run_options import spec_from_options

    run = spec_from_options({k: v for k, v in options.items() if k not in ("recording", "text", "text_file",
                                                                            "deltas")})
    files: list[tuple[str, str, bytes]] = []
    if run.parser is not None and run.parser.config:
        files.append(("config", *_read(run.parser.config, "--config")))
    for i, plugin in enumerate(run.plugins):
        files.append((f"plugin:{i}", *_read(plugin, "--plugin")))
    if mode == "diff":
        opts: dict = {"api_b": options.get("api_b")}
        for side in ("a", "b"):
            body, version = _AT_VERSION.match(str(options[side]).strip()).groups()
            if body.endswith(".toml"):
                files.append((side, *_read(body.removeprefix("config:"), f"--{side}")))
                opts[f"{side}_version"] = version or ""
            opts[side] = str(options[side]).strip()
    else:
        opts = {k: options[k] if options.get(k) is not None else v for k, v in CHECK_DEFAULTS.items()}
        if opts["fuzz"] < 0 or opts["max_chunk"] < 1 or opts["holdback"] < 0:
            raise WorkbenchError("--fuzz and --holdback must be >= 0, --max-chunk >= 1")
        if options.get("frontend"):
            opts["frontend"] = options["frontend"]
    if run.chunking:
        from workbench.core.deltas import parse_chunking

        parse_chunking(run.chunking)
    return Spec(mode, run.to_dict(), opts, files, list(versions or []))


