"""One way in: a run as data (``RunSpec``, core/run_spec.py), and ``prepare(spec)``, which
makes it ready.

Every front end only translates its own inputs into a ``RunSpec``: the CLI its flags
(files read through the door first), the widget its arguments and pickers,
``workbench.corpus(...)`` its options, a lane its wire line (``RunSpec.to_dict()``).
``prepare`` then does the rest the same way for all of them: open the recording and
check it against its tokenizer, resolve the request (the recording's or the default,
with this run's fields over it; a whole body in an API's own shape), compose the parser
in the installed vLLM or a lane's, and make the deltas. A recording replayed with its
own settings composes its parser once: the session that replays it is also the one
its delta texts are checked with.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol

from workbench.core.parsers import ParserSpec
from workbench.core.request import RequestSpec
from workbench.core.run_spec import FLAGS, RunSpec
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from workbench.core.chunking import GivenDeltas
    from workbench.core.deltas import Delta
    from workbench.core.messages import Final
    from workbench.core.recording import Recording
    from workbench.core.session import Result, Session, Setup

class Replayer(Protocol):
    """What a session offers, in this process (``core.session.Session``) or in a lane
    (``lanes.lane_session.LaneSession``)."""

    setup: Setup
    prompt_ids: list[int]
    parser_info: dict

    def request_view(self) -> dict: ...
    def deltas_from_text(self, text: str, chunking: str | None = None, finish_reason: str = "stop") -> list[Delta]: ...
    def regroup(self, deltas: list[Delta], chunking: str) -> list[Delta]: ...
    def deltas_from_given(self, given: GivenDeltas, finish_reason: str = "stop") -> tuple[list[Delta], list[str]]: ...
    def nonstream(self, text: str, token_ids: Sequence[int], finish_reason: str = "stop") -> Final: ...
    def replay(self, deltas: list[Delta]) -> Result: ...
    def machines(self) -> list[dict]: ...


@dataclass
class Prepared:
    """A run ready to go: its session, its deltas (as the spec groups them), the recording
    it came from (or None) and every note on the way (the CLI prints them, the widget shows
    them in its banner)."""

    spec: RunSpec
    session: Replayer
    deltas: list[Delta]
    recording: Recording | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def setup(self) -> Setup:
        return self.session.setup

    def deltas_for(self, session: Replayer) -> list[Delta]:
        """The same source's deltas under another session (another parser decides how the
        ids are detokenized; doctor tries several)."""
        return _deltas(self.spec, session, self.recording, [])

    def replay(self) -> Result:
        return self.session.replay(self.deltas)


def prepare(spec: RunSpec, *, what: str = "replay", with_parser: bool = True,
            sessions: Callable[[Setup, Sequence[int] | None], Replayer] | None = None) -> Prepared:
    """``spec`` made ready: WorkbenchError (one line) for anything that would run wrong.
    ``what`` names the action in "nothing to ..."; ``with_parser`` False leaves the parser
    out (diff names its two itself); ``sessions`` makes the session that replays (a lane's:
    ``workbench.lanes.lane_session.prepare``), by default this process's ``Session``."""
    if not spec.source:
        raise WorkbenchError(f"nothing to {what}: give REC.jsonl, --text, --text-file or --deltas")
    from workbench.core import truth
    from workbench.core.session import Session

    notes: list[str] = []
    recording = None
    if spec.recording is not None:
        setup, opened = _recording_setup(spec, with_parser)
        recording = opened.recording
        notes += opened.notes
        session = _session(spec, setup, recording.prompt_token_ids or None, sessions)
        ids_setup = _ids_setup(opened, setup)
        here = session if sessions is None and _same_detokenizer(ids_setup, setup) else None
        ids_session = here if isinstance(here, Session) else _local(ids_setup, recording.prompt_token_ids or None)
        recording.deltas, found = truth.text_of_ids(ids_session, recording.deltas, spec.force)
        notes += found
    else:
        setup = text_setup(spec, with_parser)
        notes += config_notes(setup.parser.config)
        session = _session(spec, setup, None, sessions)
    deltas = _deltas(spec, session, recording, notes)
    return Prepared(spec, session, deltas, recording, notes)


@dataclass
class Resolved:
    """A run's settings without its session: the Setup, the recording (texts checked) and the
    notes. For callers that compose their own parsers over the same source (diff's A and B,
    record's engine, doctor when the named parser cannot start)."""

    spec: RunSpec
    setup: Setup
    recording: Recording | None = None
    notes: list[str] = field(default_factory=list)

    def deltas_for(self, session: Replayer) -> list[Delta]:
        return _deltas(self.spec, session, self.recording, self.notes)


def resolve(spec: RunSpec, *, what: str = "replay", with_parser: bool = True) -> Resolved:
    """The Setup, recording and notes of ``spec`` (a recording's texts checked with its own
    settings' session, the one parser this composes)."""
    if not spec.source:
        raise WorkbenchError(f"nothing to {what}: give REC.jsonl, --text, --text-file or --deltas")
    if spec.recording is None:
        setup = text_setup(spec, with_parser)
        return Resolved(spec, setup, notes=config_notes(setup.parser.config))
    from workbench.core import truth

    setup, opened = _recording_setup(spec, with_parser)
    r = opened.recording
    ids_session = _local(_ids_setup(opened, setup), r.prompt_token_ids or None)
    r.deltas, found = truth.text_of_ids(ids_session, r.deltas, spec.force)
    return Resolved(spec, setup, r, opened.notes + found)


def config_notes(config: str | None) -> list[str]:
    """A config written for another vLLM: each field read in this one's spelling, once."""
    if not config:
        return []
    from workbench.core.config import io as config_io

    return [f"{config}: {line}" for line in config_io.load_file(config).notes]


def text_setup(spec: RunSpec, with_parser: bool = True) -> Setup:
    """The Setup of a text (or given deltas) run: the default request with this run's fields."""
    from workbench.core.session import Setup

    api, body = _api(spec, None)
    setup = Setup(tokenizer=spec.tokenizer or "qwen3", request=request_of(spec), chunking=spec.chunking or "token",
                  api=api, api_request=body, **_code(spec))
    setup.parser = (spec.parser or ParserSpec(None, None)) if with_parser else ParserSpec(None, None)
    return setup


def request_of(spec: RunSpec, base: dict | None = None) -> RequestSpec:
    """``base`` (a recording's request; None: the default) with this run's fields over it;
    a chat ``request_body`` is the base itself."""
    if spec.request_body is not None and (spec.api or "chat") == "chat":
        from workbench.core.faces import bodies

        request = bodies.spec_of("chat", spec.request_body)
    else:
        request = RequestSpec.from_dict(base) if base else RequestSpec()
    for name, value in spec.request.items():
        setattr(request, name, value)
    request.check()
    return request


def _api(spec: RunSpec, header: dict | None) -> tuple[str, dict | None]:
    """(api, its body or None): this run's, else what a recording was made with."""
    recorded = (header or {}).get("api") or "chat"
    api = spec.api or recorded
    if spec.request_body is not None and api != "chat":
        if spec.request:
            given = [FLAGS.get(f, f"--{f.replace('_', '-')}") for f in spec.request]
            raise WorkbenchError(f"--request holds the whole {api} request: give {', '.join(given)} in it, "
                                 f"not as flags")
        return api, spec.request_body
    if spec.request_body is None and api == recorded and api != "chat":
        return api, (header or {}).get("api_request")
    return api, None


def _code(spec: RunSpec) -> dict:
    return {"plugins": spec.plugins, "allow_callables": spec.allow_callables,
            "chat_template": spec.chat_template, "chat_template_file": spec.chat_template_file,
            "trust_template": spec.trust_template}


def _recording_setup(spec: RunSpec, with_parser: bool):
    from workbench.core.open_recording import Given, read_recording
    from workbench.core.session import Setup

    assert spec.recording is not None  # the callers' source is a recording
    opened = read_recording(spec.recording, Given(
        tokenizer=spec.tokenizer, parser=spec.parser, plugins=spec.plugins, allow_callables=spec.allow_callables,
        force=spec.force, choose_parser=with_parser, chat_template=spec.chat_template,
        trust_template=spec.trust_template))
    r = opened.recording
    api, body = _api(spec, r.header)
    setup = Setup(tokenizer=opened.tokenizer, request=request_of(spec, r.request), api=api, api_request=body,
                  chunking=spec.chunking or "token", **_code(spec))
    setup.parser = (opened.parser or spec.parser or ParserSpec(None, None)) if with_parser else ParserSpec(None, None)
    return setup, opened


def _ids_setup(opened, setup: Setup) -> Setup:
    """The Setup whose detokenizer settings made the recording's texts (its own request and
    parser; this run's parser when the recorded one is code)."""
    from workbench.core import truth

    r = opened.recording
    return replace(setup, parser=truth.ids_parser(r.header, opened.parser), request=RequestSpec.from_dict(r.request),
                   api="chat", api_request=None)


def _same_detokenizer(ids_setup: Setup, setup: Setup) -> bool:
    """Whether the replaying session detokenizes as the recording's own settings did: the same
    parser (its adjust_request decides skip_special_tokens) and the same chat request."""
    return (setup.api == "chat" and ids_setup.parser == setup.parser
            and ids_setup.request.to_dict() == setup.request.to_dict())


def _local(setup: Setup, prompt_ids: Sequence[int] | None) -> Session:
    from workbench.core.session import Session

    return Session(setup, prompt_token_ids=list(prompt_ids) if prompt_ids is not None else None)


def _session(spec: RunSpec, setup: Setup, prompt_ids: Sequence[int] | None,
             sessions: Callable[[Setup, Sequence[int] | None], Replayer] | None) -> Replayer:
    """The replaying session: ``sessions``' (a lane's), else this process's Session, which
    only runs the installed vLLM (a lane's version goes through ``workbench.lanes``)."""
    if sessions is not None:
        return sessions(setup, prompt_ids)
    from workbench.core.vllm_version import vllm_version

    if spec.vllm not in (None, vllm_version()):
        raise WorkbenchError(f"vLLM {spec.vllm} runs in a lane (workbench.lanes), not in this process "
                             f"(vLLM {vllm_version()})")
    return _local(setup, prompt_ids)


def _deltas(spec: RunSpec, session: Replayer, recording: Recording | None, notes: list[str]) -> list[Delta]:
    finish = spec.finish_reason or "stop"
    if recording is not None:
        return session.regroup(recording.deltas, spec.chunking) if spec.chunking else list(recording.deltas)
    if spec.deltas is not None:
        from workbench.core.chunking import given as given_deltas

        given = given_deltas([list(d) if isinstance(d, tuple) else d for d in spec.deltas], "the given deltas")
        if spec.text is not None and given.texts is not None and "".join(given.texts) != spec.text:
            raise WorkbenchError("the given deltas' texts do not join to the text")
        deltas, found = session.deltas_from_given(given, finish)
        notes += found
        return deltas
    if spec.text is None:
        raise WorkbenchError("nothing to replay: give REC.jsonl, --text, --text-file or --deltas")
    return session.deltas_from_text(spec.text, spec.chunking, finish_reason=finish)


__all__ = ["Prepared", "Replayer", "Resolved", "RunSpec", "prepare", "resolve", "text_setup"]
