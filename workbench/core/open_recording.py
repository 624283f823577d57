"""Opening a recording to replay it: one way for the CLI and the widget.

The file is parsed once (``core/recording.py``), its tokenizer checked against the
header (name, sha256 of every behaviour file, every id inside the vocabulary; a
header that names a folder needs it given), the parser it replays with chosen (a
config or plugin only when this run names it: ``parsers.replay_parser``; a
recording made with ``--chat-template FILE`` and no prompt ids only with a file given again), each
delta's text checked against its ids (``core/truth.py``), and every note on the
way kept: a cut stream, another tokenizer, a changed config, text the ids disown.
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
    allow_callables: tuple[str, ...] = ()  # --allow-callable names, for a config's callables
    chat_template: str | None = None  # --chat-template FILE's text (a header without prompt ids renders)
    trust_template: bool = False
    force: bool = False  # another tokenizer, or text its ids disown: a note, not a refusal
    choose_parser: bool = True  # False: the caller names its parsers itself (diff's A and B)


@dataclass
class Opened:
    recording: recording.Recording
    tokenizer: str  # the tokenizer to replay with: the given one, else the header's
    parser: ParserSpec | None  # None: nothing given, and the header names no parser
    notes: list[str] = field(default_factory=list)
    path: str = ""  # the file opened


def read_recording(path: str | Path, given: Given | None = None) -> Opened:
    """Parse, check the tokenizer, choose the parser; the delta texts are not checked yet
    (that needs a session: ``core.prepare`` checks them with the one that replays them)."""
    from workbench.core import templates, truth
    from workbench.core.tokenizers import load_tokenizer

    given = given or Given()
    r = recording.load(path)
    tokenizer = truth.tokenizer_of(r.header, given.tokenizer)
    notes = list(r.notes)
    notes += truth.check_tokenizer(r, tokenizer, load_tokenizer(tokenizer), given.force)
    spec = None
    if given.choose_parser:
        recorded = r.header.get("parser")
        named = given.parser
        if named is None and given.config and (recorded or {}).get("config"):
            named = ParserSpec(config=given.config)
        spec, found = replay_parser(recorded, named, given.plugins)
        notes += found
    notes += templates.recorded(r.header.get("chat_template"), given.chat_template, not r.prompt_token_ids)
    return Opened(r, tokenizer, spec, notes, str(path))


def open_recording(path: str | Path, given: Given | None = None) -> Opened:
    """``read_recording``, then every delta's text checked against its ids; WorkbenchError
    (one line) on any problem that would replay wrong, notes for what replays but differs."""
    from workbench.core import truth

    given = given or Given()
    opened = read_recording(path, given)
    r = opened.recording
    r.deltas, found = truth.text_of_ids(_ids_session(r, opened.tokenizer, opened.parser, given), r.deltas,
                                        given.force)
    opened.notes += found
    return opened


def _ids_session(r: recording.Recording, tokenizer: str, spec: ParserSpec | None, given: Given):
    """The Session whose detokenizer settings made the deltas' text: the recording's own
    request and parser (this run's parser when the recorded one is code)."""
    from workbench.core import truth
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup

    setup = Setup(tokenizer=tokenizer, parser=truth.ids_parser(r.header, spec),
                  request=RequestSpec.from_dict(r.request), plugins=given.plugins,
                  allow_callables=given.allow_callables, chat_template=given.chat_template,
                  trust_template=given.trust_template)
    return Session(setup, prompt_token_ids=r.prompt_token_ids or None)
