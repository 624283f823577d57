"""Live reload: edit a parser config's text and re-parse the same recorded stream.

``LiveConfig`` holds one Session (tokenizer, request, prompt) and one list of
deltas. ``reload(config_text)`` validates the text; a good one becomes the
parser and the deltas are replayed through it, a bad one changes nothing and
its problems are returned (and kept in ``.problems``) for the editor to show.
Widget-free: the notebook editor builds on this.
"""

from __future__ import annotations

from pathlib import Path

from workbench.core import door, limits
from workbench.core.config import io as config_io, parser as config_parser
from workbench.core.config.io import ConfigProblem
from workbench.core.deltas import Delta
from workbench.core.session import Result, Session, Setup
from workbench.errors import WorkbenchError


def started(setup: Setup, deltas: list[Delta] | None, text: str | None, prompt_token_ids: list[int] | None,
            who: str) -> tuple[Session, list[Delta]]:
    """A live editor's session and the stream it replays: ``deltas`` (a recording's) or
    ``text``, tokenized as the session's chunking says (LiveConfig, LivePlugin)."""
    session = Session(setup, prompt_token_ids=prompt_token_ids)
    if deltas is None:
        if text is None:
            raise WorkbenchError(f"{who} needs deltas or text")
        deltas = session.deltas_from_text(text)
    return session, list(deltas)


class LiveConfig:
    def __init__(self, session_setup: Setup, deltas: list[Delta] | None = None, *,
                 text: str | None = None, prompt_token_ids: list[int] | None = None,
                 base_dir: str | Path | None = None) -> None:
        """``deltas`` (a recording's) or ``text`` (tokenized as the session's chunking says).

        The setup's parser is the starting point; with ``parser.config`` set, that file's
        text is the first good config and ``extends`` in later texts resolve next to it.
        """
        self.session, self.deltas = started(session_setup, deltas, text, prompt_token_ids, "LiveConfig")
        config = session_setup.parser.config
        self.base_dir = Path(base_dir) if base_dir else (Path(config).parent if config else config_io.PARSERS_DIR)
        self.config_text: str | None = (door.read_text(config, "config", limits.MAX_CONFIG_BYTES)
                                        if config else None)
        self.problems: list[ConfigProblem] = []
        self.result: Result = self.session.replay(self.deltas)

    @property
    def parser_class(self) -> type | None:
        return self.session.parser_cls

    def reload(self, config_text: str) -> list[ConfigProblem]:
        """Re-parse the stream with ``config_text``; [] on success, else its problems
        (the last good config and ``.result`` stay)."""
        loaded = config_io.load_text(config_text, base_dir=self.base_dir, source="<editor>",
                                     policy=self.session.policy)
        cls = None
        if loaded.ok:
            try:
                cls = config_parser.build_parser_class(loaded, self.session.tokenizer)
            except WorkbenchError as e:
                loaded.problems.append(ConfigProblem("", None, str(e), "<editor>"))
        if not loaded.ok:
            self.problems = loaded.problems
            return self.problems
        previous = self.session.parser_cls
        self.session.use_parser_class(cls)
        try:
            self.result = self.session.replay(self.deltas)
        except BaseException:
            self.session.use_parser_class(previous)
            raise
        self.config_text, self.problems = config_text, []
        return []
