"""Recordings for the widget: settings from a header, and saving the stream so far."""

from __future__ import annotations

from dataclasses import replace

from workbench.core.request import RequestSpec
from workbench.errors import WorkbenchError
from workbench.ui.inputs import Inputs, resolve


def inputs_from(inputs: Inputs, path: str) -> Inputs:
    """``inputs`` with the tokenizer, parser, request and prompt a recording was made with,
    its text in the script box (the last script would be stale), and ``path`` kept as
    given (the picker lists it once).

    A recording made with a config or plugin never loads it (``core.trust``): the
    config picked in the widget is kept, and without one loading says what to pick."""
    from workbench.core import recording as rec
    from workbench.core.parsers import replay_parser

    r = rec.load(resolve(path))
    req = RequestSpec.from_dict(r.request)
    made_with_config = bool((r.header.get("parser") or {}).get("config"))
    given = inputs.parser() if inputs.config and made_with_config else None
    spec, _ = replay_parser(r.header.get("parser"), given)
    tc = req.tool_choice
    parser = ({"tool_parser": spec.tool_parser, "reasoning_parser": spec.reasoning_parser,
               "config": inputs.config if spec.config else None} if spec else {})
    return replace(inputs, source="recording", recording=str(path), tokenizer=r.tokenizer,
                   text="".join(d.text for d in r.deltas),
                   messages=req.messages, tools=req.tools,
                   tool_choice=tc["function"]["name"] if isinstance(tc, dict) else tc,
                   prompt_token_ids=r.prompt_token_ids or None, config_text=None, **parser)


def save(model, path: str) -> int:
    """The model's stream so far (a recording in progress included) as JSONL."""
    from workbench.core import recording as rec, trust
    from workbench.core.tokenizers import ensure_tokenizer, tokenizer_sha256

    deltas = model.recorded()
    if not deltas:
        raise WorkbenchError("nothing to save: Step or Run first")
    session = model.ensure_session()
    i = model.inputs
    origin = model.origin or {"kind": "text"}
    parser = trust.provenance(session.setup.parser, session.setup.plugins, i.config_text)
    if i.config_text is not None:
        parser["config_text"] = i.config_text
    header = rec.make_header(i.tokenizer, tokenizer_sha256(ensure_tokenizer(i.tokenizer)),
                             session.setup.request.to_dict(), session.prompt_ids, origin, parser)
    rec.save(path, header, deltas)
    return len(deltas)
