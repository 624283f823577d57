"""Could the engine have produced this text under the request's constraint?

``adjust_request`` sets structured outputs for a forced ``tool_choice`` (a JSON schema
for ``required`` / a named function, or the tool parser's structural tag). The v1 engine
then masks every token the grammar does not allow. This check builds that grammar the
way the engine does (vLLM's own ``get_structured_output_key`` and ``XgrammarBackend``,
for this tokenizer) and feeds it the output's token ids from where the engine starts
constraining (after reasoning ends, as ``StructuredOutputManager`` decides with the
request's reasoning parser). A token the grammar refuses is one the engine could never
have sampled: the text was not generated under this request's constraint (structured
outputs off on the server, another request, a hand-edited paste), so what the parser
makes of it is no evidence against the parser.
"""

from __future__ import annotations

import functools
from types import SimpleNamespace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from workbench.core.session import Session


@functools.lru_cache(maxsize=4)
def _backend(tokenizer: object) -> object:
    from vllm.config import StructuredOutputsConfig
    from vllm.v1.structured_output.backend_xgrammar import XgrammarBackend

    # The backend reads these three settings of the engine's VllmConfig; building a whole
    # VllmConfig costs seconds and a model (here: vLLM's defaults, no speculation).
    config = SimpleNamespace(structured_outputs_config=StructuredOutputsConfig(), model_config=None,
                             speculative_config=None)
    return XgrammarBackend(config, tokenizer=tokenizer, vocab_size=len(tokenizer.get_vocab()))


def _reasoner(session: Session) -> object | None:
    cls = session.parser_cls.reasoning_parser_cls if session.parser_cls is not None else None
    if cls is None:
        return None
    kwargs = session.setup.request.chat_template_kwargs or {}
    try:
        return cls(tokenizer=session.tokenizer, chat_template_kwargs=kwargs)
    except TypeError:  # an older reasoning parser without the keyword
        return cls(session.tokenizer)


def grammar_start(reasoner: object | None, prompt_ids: Sequence[int], ids: Sequence[int]) -> int | None:
    """The first output token the engine constrains, one token a step; None when reasoning
    never ends (the grammar never applied)."""
    if reasoner is None or reasoner.is_reasoning_end(list(prompt_ids)):
        return 0
    finder = getattr(reasoner, "find_reasoning_end", None)
    engine_ends = bool(getattr(reasoner, "reasoning_end_token_ids", None)) and finder is not None
    seen = list(prompt_ids)
    for i, tok in enumerate(ids):
        seen.append(tok)
        if engine_ends:
            end = finder([tok])  # "not in this window" is an end at the window's length
            if end is not None and end.offset < 1:
                return i if end.implicit else i + 1
        elif reasoner.is_reasoning_end_streaming(seen, [tok]):
            return i + 1
    return None


def check(session: Session, ids: Sequence[int], text: str) -> dict | None:
    """Where the request's constraint refuses the output, or None (no constraint, or followed)."""
    from vllm.v1.structured_output.request import get_structured_output_key

    params = getattr(session.request, "structured_outputs", None)
    if params is None:
        return None
    try:
        kind, spec = get_structured_output_key(params)
    except ValueError:
        return None
    start = grammar_start(_reasoner(session), session.prompt_ids or [], ids)
    if start is None:
        return None
    matcher = _backend(session.tokenizer).compile_grammar(kind, spec).matcher
    skipped = 0
    for at in range(start, len(ids)):
        if matcher.is_terminated() or matcher.accept_token(ids[at]):
            continue
        token = session.tokenizer.decode([ids[at]])
        # Whitespace the grammar leaves out (a paste's "\n\n" after </think>) says nothing of the words.
        if not token.strip():
            skipped += 1
            continue
        before = session.tokenizer.decode(list(ids[:at]))
        return {"constraint": kind.name.lower(), "token": at + 1, "char": len(before), "refused": token,
                "before": before[-60:], "after": text[len(before):len(before) + 40], "from_token": start + 1,
                "whitespace_skipped": skipped}
    return None


def describe(found: dict, choice: object) -> str:
    what = {"json": "the JSON schema", "structural_tag": "the structural tag"}.get(found["constraint"],
                                                                                found["constraint"])
    if isinstance(choice, dict):
        choice = (choice.get("function") or {}).get("name") or choice
    return (f"tool_choice {choice!r}: vLLM constrains the output to {what} adjust_request set, and the grammar refuses "
            f"token {found['token']} ({found['refused']!r} after {found['before'][-30:]!r}): the engine could not "
            "have generated this text under this request")
