"""The request side: what the user asked, built into vLLM's own request objects.

``RequestSpec`` is plain data (it goes into recording headers). ``build_request``
turns it into the ``ChatCompletionRequest`` vLLM's server would validate, and
``render_prompt`` gives the prompt token ids its renderer would hand the engine.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TYPE_CHECKING

from workbench.errors import WorkbenchError
from workbench.core.clip import clip

if TYPE_CHECKING:
    from vllm.tokenizers import TokenizerLike

DEFAULT_MESSAGES = [{"role": "user", "content": "What is the weather in Paris?"}]


@dataclass
class RequestSpec:
    messages: list[dict] = field(default_factory=lambda: [dict(m) for m in DEFAULT_MESSAGES])
    tools: list[dict] | None = None
    # None lets vLLM's validator pick: "auto" with tools, "none" without.
    tool_choice: str | dict | None = None
    chat_template_kwargs: dict[str, Any] = field(default_factory=dict)
    # The request's own Jinja template (vLLM's request.chat_template): data, rendered only
    # with --trust-template (core/templates.py).
    chat_template: str | None = None
    parallel_tool_calls: bool | None = None
    include_reasoning: bool = True
    max_tokens: int | None = None
    # Sampling, as the request carries it (None: the model's generation config, else vLLM's
    # defaults). Only an engine run samples; a replay keeps them as what was asked.
    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    seed: int | None = None
    # Streaming-only fields: every delta gets a chunk with its ids; the usage chunk.
    return_token_ids: bool = False
    stream_options: dict | None = None

    def to_dict(self) -> dict:
        d = asdict(self)
        for name in ("chat_template", *SAMPLING):  # absent, so recordings without them stay as they were
            if d[name] is None:
                del d[name]
        return d

    @classmethod
    def from_dict(cls, data: dict) -> RequestSpec:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        spec = cls(**known)
        spec.check()
        return spec

    def check(self) -> None:
        """Types vLLM's validator would coerce ("yes" -> True) or crash on later."""
        for name, (ok, what) in _FIELD_CHECKS.items():
            value = getattr(self, name)
            if not ok(value):
                raise WorkbenchError(f"request.{name} must be {what}, got {clip(value, 60)}")


SAMPLING = ("temperature", "top_p", "top_k", "seed")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and abs(v) != float("inf")


def _dicts(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, dict) for x in v)


_FIELD_CHECKS = {
    "messages": (lambda v: _dicts(v) and bool(v), "a non-empty list of message objects"),
    "tools": (lambda v: v is None or _dicts(v), "a list of tool objects or null"),
    "tool_choice": (lambda v: v is None or isinstance(v, (str, dict)), "a string, an object or null"),
    "chat_template_kwargs": (lambda v: isinstance(v, dict), "an object"),
    "chat_template": (lambda v: v is None or isinstance(v, str), "a string or null"),
    "parallel_tool_calls": (lambda v: v is None or isinstance(v, bool), "true, false or null"),
    "include_reasoning": (lambda v: isinstance(v, bool), "true or false"),
    "max_tokens": (lambda v: v is None or (_is_int(v) and v >= 1), "an integer >= 1 or null"),
    "temperature": (lambda v: v is None or (_is_number(v) and 0 <= v <= 100), "a number from 0 to 100 or null"),
    "top_p": (lambda v: v is None or (_is_number(v) and 0 < v <= 1), "a number in (0, 1] or null"),
    "top_k": (lambda v: v is None or (_is_int(v) and (v == -1 or v >= 0)), "-1, 0 or a positive integer, or null"),
    "seed": (lambda v: v is None or (_is_int(v) and -2**63 <= v < 2**64), "an integer or null"),
    "return_token_ids": (lambda v: isinstance(v, bool), "true or false"),
    "stream_options": (lambda v: v is None or isinstance(v, dict), "an object or null"),
}


def tool_choice_arg(value: str | None) -> str | dict | None:
    """CLI spelling -> request field: auto|required|none, or a function name."""
    if value is None or value in ("auto", "required", "none"):
        return value
    return {"type": "function", "function": {"name": value}}


def load_json_file(path: str | Path, what: str) -> Any:
    """A JSON file through the reading door; errors name the file and the position."""
    from workbench.core import door

    return door.read_json(path, f"{what} file")


def build_request(spec: RequestSpec) -> Any:
    """A validated ``ChatCompletionRequest``, exactly as vLLM's server builds it."""
    spec.check()
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    fields: dict[str, Any] = {"model": "workbench", "messages": spec.messages,
                              "include_reasoning": spec.include_reasoning}
    if spec.tools is not None:
        fields["tools"] = spec.tools
    if spec.tool_choice is not None:
        fields["tool_choice"] = spec.tool_choice
    if spec.chat_template_kwargs:
        fields["chat_template_kwargs"] = spec.chat_template_kwargs
    if spec.chat_template is not None:
        fields["chat_template"] = spec.chat_template
    if spec.parallel_tool_calls is not None:
        fields["parallel_tool_calls"] = spec.parallel_tool_calls
    if spec.max_tokens is not None:
        fields["max_tokens"] = spec.max_tokens
    for name in SAMPLING:
        if getattr(spec, name) is not None:
            fields[name] = getattr(spec, name)
    if spec.return_token_ids:
        fields["return_token_ids"] = True
    if spec.stream_options is not None:  # vLLM accepts stream_options only with stream: true
        fields.update(stream=True, stream_options=spec.stream_options)
    from workbench.core.validation import validate

    return validate(ChatCompletionRequest, fields, "request")


def render_prompt(tokenizer: TokenizerLike, spec: RequestSpec, chat_template: str | None = None,
                  trust_template: bool = False) -> list[int]:
    """Prompt token ids from the tokenizer's chat template (tools, kwargs included).

    Tools go in as the server renders them: validated, then ``model_dump()`` (so a
    missing description is rendered as null, exactly as vLLM's renderer does).
    ``chat_template`` (``--chat-template FILE``'s text) or a template the request
    carries (``chat_template``, ``chat_template_kwargs.chat_template``; only with
    ``trust_template``) renders boxed (``core/templates.py``), and so does the template of a
    tokenizer folder the user names (only the built-ins' pinned templates render here)."""
    from workbench.core import templates
    from workbench.core.tokenizers import is_pinned, model_type

    if model_type(tokenizer) == "gpt_oss":
        return render_harmony_prompt(spec)
    boxed, kwargs = templates.choose(spec.chat_template, spec.chat_template_kwargs, chat_template, trust_template)
    tools = spec.tools
    if tools:
        tools = [t.model_dump() for t in build_request(spec).tools or []]
    if boxed is not None or not is_pinned(tokenizer):
        # a folder's own template is as unknown as a request's: the same box (None: its own)
        return templates.render_boxed(tokenizer, spec.messages, tools, boxed, kwargs)
    try:
        ids = tokenizer.apply_chat_template(
            spec.messages,
            tools=tools,
            add_generation_prompt=True,
            tokenize=True,
            **kwargs,
        )
    except Exception as e:  # jinja errors, missing template, bad message shapes
        raise WorkbenchError(f"chat template failed: {type(e).__name__}: {e}") from None
    if hasattr(ids, "keys"):  # transformers 5 may return a BatchEncoding
        ids = ids["input_ids"]
    return list(ids)


def render_harmony_prompt(spec: RequestSpec) -> list[int]:
    """gpt-oss prompt ids as vLLM's OnlineRenderer._make_request_with_harmony renders
    them: no chat template, Harmony's own system/developer preamble and messages."""
    from vllm.entrypoints.openai.parser.harmony_utils import (
        build_harmony_preamble,
        extract_instructions_from_messages,
        parse_chat_inputs_to_harmony_messages,
        render_for_completion,
    )
    from vllm.utils.mistral import mt

    request = build_request(spec)
    mt.maybe_serialize_tool_calls(request)
    instructions, messages = extract_instructions_from_messages(list(request.messages))
    # The server's default (no --exclude-tools-when-tool-choice-none): tools whenever given.
    with_tools = request.tools is not None
    try:
        harmony = build_harmony_preamble(instructions=instructions,
                                         tools=request.tools if with_tools else None,
                                         reasoning_effort=request.reasoning_effort,
                                         with_custom_tools=with_tools)
        harmony += parse_chat_inputs_to_harmony_messages(messages)
        return list(render_for_completion(harmony))
    except Exception as e:  # bad message shapes, Harmony render errors
        raise WorkbenchError(f"harmony prompt failed: {type(e).__name__}: {e}") from None


def sampling_params(request: Any, max_tokens: int) -> Any:
    """The server's ``SamplingParams`` for this (adjusted) request."""
    return request.to_sampling_params(max_tokens, {})  # positional: Responses names it default_max_tokens
