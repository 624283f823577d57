"""Recordings for the widget: settings from a header, a recording's deltas opened once, the
stream written as one."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from workbench.core.request import RequestSpec
from workbench.ui.inputs import Inputs, resolve

if TYPE_CHECKING:
    from workbench.core.deltas import Delta
    from workbench.core.open_recording import Opened


def inputs_from(inputs: Inputs, path: str) -> tuple[Inputs, Opened]:
    """(``inputs`` with the tokenizer, parser, request and prompt a recording was made with,
    and ``path`` kept as given (the picker lists it once); the opened recording, notes
    included). The script stays: it is the text's and the engine's, not the recording's.

    A recording made with a config or plugin never loads it (``core.trust``): the
    config picked in the widget is kept, and without one loading says what to pick.
    The tokenizer is the header's; one that differs from the recorded build is a note."""
    from workbench.core.open_recording import Given, open_recording

    opened = open_recording(resolve(path), Given(config=inputs.parser().config if inputs.config else None,
                                                 force=True))
    r, spec = opened.recording, opened.parser
    req = RequestSpec.from_dict(r.request)
    tc = req.tool_choice
    parser = ({"tool_parser": spec.tool_parser, "reasoning_parser": spec.reasoning_parser,
               "config": inputs.config if spec.config else None} if spec else {})
    return replace(inputs, source="recording", recording=str(path), tokenizer=opened.tokenizer,
                   messages=req.messages, tools=req.tools,
                   tool_choice=tc["function"]["name"] if isinstance(tc, dict) else tc,
                   prompt_token_ids=r.prompt_token_ids or None, config_text=None, plugin_text=None,
                   **parser), opened


def open_deltas(inputs: Inputs) -> Opened:
    """The recording ``inputs`` name, parsed and checked against their tokenizer (the
    parser is the one the inputs already hold)."""
    from workbench.core.open_recording import Given, open_recording

    return open_recording(resolve(inputs.recording), Given(tokenizer=inputs.tokenizer, force=True,
                                                           choose_parser=False))


def write(path: str, i: Inputs, session, origin: dict, deltas: list[Delta], force: bool = False) -> None:
    """``deltas`` as a JSONL recording whose header holds the settings ``i`` and what
    ``session`` composed (its parser's provenance, request and prompt ids) and ``origin``."""
    from workbench.core import recording as rec, trust
    from workbench.core.tokenizers import ensure_tokenizer, tokenizer_sha256

    parser = trust.provenance(session.setup.parser, session.setup.plugins, i.config_text)
    if i.config_text is not None:
        parser["config_text"] = i.config_text
    header = rec.make_header(i.tokenizer, tokenizer_sha256(ensure_tokenizer(i.tokenizer)),
                             session.setup.request.to_dict(), session.prompt_ids, origin, parser)
    rec.save(path, header, deltas, overwrite=force)
