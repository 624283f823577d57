"""Opening a recording to replay it: one way for the CLI and the widget.

The file is parsed once (``core/recording.py``), its tokenizer checked against the
header (name, sha256, every id inside the vocabulary), the parser it replays with
chosen (a config or plugin only when this run names it: ``parsers.replay_parser``),
and every note on the way kept: a cut stream, another tokenizer, a changed config.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from workbench.core import recording
from workbench.core.parsers import ParserSpec, replay_parser


@dataclass(frozen=True)
class Given:
    """What this run names itself; None leaves it to the recording."""

    tokenizer: str | None = None
    parser: ParserSpec | None = None  # the parser flags (CLI)
    # A config picked for a recording made with one (the widget's picker): used only then.
    config: str | None = None
    plugins: tuple[str, ...] = ()  # plugin files loaded on this run
    force: bool = False  # another tokenizer than the header's: a note, not a refusal
    choose_parser: bool = True  # False: the caller names its parsers itself (diff's A and B)


@dataclass
class Opened:
    recording: recording.Recording
    tokenizer: str  # the tokenizer to replay with: the given one, else the header's
    parser: ParserSpec | None  # None: nothing given, and the header names no parser
    notes: list[str] = field(default_factory=list)
    path: str = ""  # the file opened


def open_recording(path: str | Path, given: Given | None = None) -> Opened:
    """Parse, check the tokenizer, choose the parser; WorkbenchError (one line) on any
    problem that would replay wrong, notes for what replays but differs."""
    from workbench.core.tokenizers import load_tokenizer

    given = given or Given()
    r = recording.load(path)
    tokenizer = given.tokenizer or r.tokenizer
    notes = list(r.notes)
    notes += recording.check_tokenizer(r, tokenizer, load_tokenizer(tokenizer), given.force)
    spec = None
    if given.choose_parser:
        recorded = r.header.get("parser")
        named = given.parser
        if named is None and given.config and (recorded or {}).get("config"):
            named = ParserSpec(config=given.config)
        spec, found = replay_parser(recorded, named, given.plugins)
        notes += found
    return Opened(r, tokenizer, spec, notes, str(path))
