"""Recordings for the widget: settings from a header, and saving the stream so far."""

from __future__ import annotations

from dataclasses import replace

from workbench.core.request import RequestSpec
from workbench.errors import WorkbenchError
from workbench.ui.inputs import Inputs


def inputs_from(inputs: Inputs, path: str) -> Inputs:
    """``inputs`` with the tokenizer, parser, request and prompt a recording was made with."""
    from workbench.core import recording as rec

    r = rec.load(path)
    req = RequestSpec.from_dict(r.request)
    p = r.header.get("parser") or {}
    tc = req.tool_choice
    parser = ({"tool_parser": p.get("tool_parser"), "reasoning_parser": p.get("reasoning_parser"),
               "config": p.get("config")} if p else {})
    return replace(inputs, source="recording", recording=str(path), tokenizer=r.tokenizer,
                   messages=req.messages, tools=req.tools,
                   tool_choice=tc["function"]["name"] if isinstance(tc, dict) else tc,
                   prompt_token_ids=r.prompt_token_ids or None, config_text=None, **parser)


def save(model, path: str) -> int:
    """The model's stream so far (a recording in progress included) as JSONL."""
    from workbench.core import recording as rec
    from workbench.core.tokenizers import ensure_tokenizer, tokenizer_sha256

    deltas = model.recorded()
    if not deltas:
        raise WorkbenchError("nothing to save: Step or Run first")
    session = model.ensure_session()
    i = model.inputs
    origin = {"kind": "text"}
    if model.source is not None and model.source.kind == "engine":
        from workbench.ui import engine_adapter

        origin = engine_adapter.origin() or {"kind": "engine"}
    elif i.source == "recording":
        origin = {"kind": "recording", "path": i.recording}
    parser = session.setup.parser.to_dict()
    if i.config_text is not None:
        parser["config_text"] = i.config_text
    header = rec.make_header(i.tokenizer, tokenizer_sha256(ensure_tokenizer(i.tokenizer)),
                             session.setup.request.to_dict(), session.prompt_ids, origin, parser)
    rec.save(path, header, deltas)
    return len(deltas)
