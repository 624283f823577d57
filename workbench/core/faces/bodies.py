"""A request in each API's own shape, and what vLLM builds from it.

A body is what a client POSTs: a Chat Completions body, a Responses body (``input``,
``instructions``, flat ``tools``, ``tool_choice``, ``reasoning``, ...) or an Anthropic
body (``system``, ``messages`` with content blocks, ``tools`` with ``input_schema``,
``tool_choice``, ``thinking``). From it come two things, both by vLLM's own code:
- ``parser_request``: the object the server hands the parser (a ``ResponsesRequest``;
  for Anthropic the ``ChatCompletionRequest`` of ``to_chat_completion_request``);
- ``spec_of``: the chat-shaped ``RequestSpec`` whose messages, tools and template
  kwargs the chat template renders (``construct_input_messages`` /
  ``construct_tool_dicts`` for Responses, the Anthropic converter's messages).
``body_of`` goes the other way for ``--messages`` / ``--tools``: the chat-shaped
request written as that API's body.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from workbench.core import door
from workbench.core.request import RequestSpec, build_request
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from typing import Any

    from vllm.tokenizers import TokenizerLike

ANTHROPIC_MAX_TOKENS = 4096  # Anthropic bodies must carry max_tokens; --messages has none
# Keys that build_chat_params adds and render_prompt passes (or rejects) itself.
_RENDER_KEYS = ("add_generation_prompt", "continue_final_message", "documents")


def _validated(cls: Any, body: dict, what: str) -> Any:
    from workbench.core.validation import validate

    if not isinstance(body, dict):
        raise WorkbenchError(f"{what} request must be a JSON object")
    return validate(cls, {"model": "workbench", **body}, f"{what} request")


def responses_request(body: dict) -> Any:
    from vllm.entrypoints.openai.responses.protocol import ResponsesRequest

    return _validated(ResponsesRequest, body, "Responses")


def anthropic_request(body: dict) -> Any:
    from vllm.entrypoints.anthropic.protocol import AnthropicMessagesRequest

    return _validated(AnthropicMessagesRequest, body, "Anthropic Messages")


def template_kwargs(request: Any) -> dict:
    """The chat template kwargs the server renders with (``build_chat_params``), less the
    ones the workbench's renderer sets itself and the unset (None) ones."""
    kwargs = request.build_chat_params(None, "auto").chat_template_kwargs
    return {k: v for k, v in kwargs.items() if k not in _RENDER_KEYS and v is not None}


def _text_content(messages: list) -> list[dict]:
    """Text parts joined into one string per message, as vLLM's "string" content format
    does (restated from ``_parse_chat_message_content_parts``: texts joined by "\\n")."""
    out = []
    for m in messages:
        m = dict(m)
        content = m.get("content")
        if isinstance(content, list) and all(isinstance(p, dict) and p.get("type") in
                                             ("text", "input_text", "output_text") for p in content):
            m["content"] = "\n".join(p.get("text") or "" for p in content)
        out.append(m)
    return out


def _chat_tool_choice(choice: Any) -> Any:
    if choice is None or isinstance(choice, str):
        return choice
    d = choice.model_dump() if hasattr(choice, "model_dump") else dict(choice)
    name = d.get("name") or (d.get("function") or {}).get("name")
    return {"type": "function", "function": {"name": name}}


# -- body -> what vLLM builds ---------------------------------------------------------------
def parser_request(api: str, body: dict, tokenizer: TokenizerLike | None = None, stream: bool = True) -> Any:
    """The request object the server's parser sees for ``body`` (not yet adjusted)."""
    if api == "chat":
        return build_request(spec_of("chat", body, tokenizer))
    if api == "responses":
        return responses_request({**body, "stream": stream})
    from workbench.core import vllm_compat as compat

    request = anthropic_request({**body, "stream": stream})
    try:
        return compat.anthropic_to_chat(request, merge_inline_system=_merges_system(tokenizer),
                                        disabled_thinking_effort=_disabled_effort(tokenizer, request))
    except ValueError as e:  # e.g. a tool_removal of an undeclared tool
        raise WorkbenchError(f"invalid Anthropic Messages request: {e}") from None


def spec_of(api: str, body: dict, tokenizer: TokenizerLike | None = None) -> RequestSpec:
    """The chat-shaped request vLLM renders for ``body``."""
    if api == "chat":
        if not isinstance(body, dict):
            raise WorkbenchError("Chat Completions request must be a JSON object")
        fields = dict(body)
        if fields.get("max_tokens") is None and fields.get("max_completion_tokens") is not None:
            fields["max_tokens"] = fields["max_completion_tokens"]
        return RequestSpec.from_dict(fields)
    if api == "responses":
        from vllm.entrypoints.openai.responses.utils import construct_input_messages, construct_tool_dicts

        r = responses_request(body)
        messages = construct_input_messages(request_instructions=r.instructions, request_input=r.input)
        spec = RequestSpec(messages=_text_content(messages), tools=construct_tool_dicts(r.tools, r.tool_choice),
                           tool_choice=_chat_tool_choice(r.tool_choice) if r.tools else None,
                           chat_template_kwargs=template_kwargs(r),
                           parallel_tool_calls=r.parallel_tool_calls, include_reasoning=r.include_reasoning,
                           max_tokens=r.max_output_tokens)
        spec.check()
        return spec
    c = parser_request("messages", body, tokenizer)
    spec = RequestSpec(messages=_text_content(c.messages),
                       tools=[t.model_dump() for t in c.tools] if c.tools else None,
                       tool_choice=_chat_tool_choice(c.tool_choice) if c.tools else None,
                       chat_template_kwargs=template_kwargs(c), parallel_tool_calls=c.parallel_tool_calls,
                       max_tokens=c.max_tokens,
                       stream_options={"include_usage": True, "continuous_usage_stats": True})
    spec.check()
    return spec


def _merges_system(tokenizer: TokenizerLike) -> bool:
    """Whether the template needs inline system messages merged (the server probes it)."""
    from workbench.core import vllm_compat as compat

    template = getattr(tokenizer, "chat_template", None) if tokenizer is not None else None
    if isinstance(template, dict):
        template = template.get("default") or next(iter(template.values()), None)
    return compat.anthropic_merges_inline_system(template)


def _disabled_effort(tokenizer: TokenizerLike, request: Any) -> str:
    """``thinking: disabled`` -> the reasoning_effort the server sends the template.

    Restated from ``AnthropicServingMessages._probe_disabled_thinking_effort`` (an
    async method over the server's renderer): "low" when "none" cannot render or
    renders the same prompt as a thinking effort, else "none"."""
    if request.thinking is None or request.thinking.type != "disabled" or tokenizer is None:
        return "none"
    from typing import get_args

    from vllm.entrypoints.anthropic.protocol import AnthropicEffort

    from workbench.core.request import render_prompt

    def probe(effort: str):
        spec = RequestSpec(messages=[{"role": "user", "content": "Hi"}],
                           chat_template_kwargs={"reasoning_effort": effort,
                                                 "enable_thinking": effort != "none"})
        try:
            return render_prompt(tokenizer, spec)
        except WorkbenchError:
            return None

    none = probe("none")
    if none is None or any(probe(e) == none for e in get_args(AnthropicEffort)):
        return "low"
    return "none"


# -- chat-shaped -> body --------------------------------------------------------------------
def body_of(api: str, spec: RequestSpec) -> dict:
    """``spec`` (``--messages`` / ``--tools`` / ``--tool-choice`` ...) as ``api``'s body."""
    if api == "chat":
        return {k: v for k, v in spec.to_dict().items() if v is not None}
    return _responses_body(spec) if api == "responses" else _anthropic_body(spec)


def _responses_body(spec: RequestSpec) -> dict:
    items: list[dict] = []
    for m in spec.messages:
        if m.get("role") == "tool":
            items.append({"type": "function_call_output", "call_id": m.get("tool_call_id") or "",
                          "output": m.get("content") or ""})
            continue
        if m.get("role") == "assistant" and m.get("tool_calls"):
            if m.get("content"):
                items.append({"role": "assistant", "content": m["content"]})
            for tc in m["tool_calls"]:
                fn = tc.get("function") or {}
                args = fn.get("arguments")
                items.append({"type": "function_call", "call_id": tc.get("id") or "", "name": fn.get("name"),
                              "arguments": args if isinstance(args, str) else json.dumps(args or {})})
            continue
        items.append({k: v for k, v in m.items() if k in ("role", "content")})
    body: dict = {"input": items}
    if spec.tools:
        body["tools"] = [{"type": "function", **(t.get("function") or {})} for t in spec.tools]
    if isinstance(spec.tool_choice, dict):
        body["tool_choice"] = {"type": "function", "name": spec.tool_choice["function"]["name"]}
    elif spec.tool_choice is not None:
        body["tool_choice"] = spec.tool_choice
    if spec.parallel_tool_calls is not None:
        body["parallel_tool_calls"] = spec.parallel_tool_calls
    if not spec.include_reasoning:
        body["include_reasoning"] = False
    if spec.max_tokens is not None:
        body["max_output_tokens"] = spec.max_tokens
    if spec.chat_template_kwargs:
        body["chat_template_kwargs"] = spec.chat_template_kwargs
    return body


def _anthropic_body(spec: RequestSpec) -> dict:
    system: list[str] = []
    messages: list[dict] = []
    for m in spec.messages:
        role, content = m.get("role"), m.get("content")
        if role in ("system", "developer"):
            system.append(content if isinstance(content, str) else json.dumps(content))
        elif role == "tool":
            block = {"type": "tool_result", "tool_use_id": m.get("tool_call_id") or "", "content": content or ""}
            if messages and messages[-1]["role"] == "user" and isinstance(messages[-1]["content"], list):
                messages[-1]["content"].append(block)
            else:
                messages.append({"role": "user", "content": [block]})
        elif role == "assistant" and m.get("tool_calls"):
            blocks = [{"type": "text", "text": content}] if content else []
            for call in m["tool_calls"]:
                fn = call.get("function") or {}
                args = fn.get("arguments")
                blocks.append({"type": "tool_use", "id": call.get("id") or "", "name": fn.get("name"),
                               "input": door.parse_json(args, "tool call arguments")
                               if isinstance(args, str) and args else args or {}})
            messages.append({"role": "assistant", "content": blocks})
        else:
            messages.append({"role": role, "content": content if content is not None else ""})
    body: dict = {"max_tokens": spec.max_tokens or ANTHROPIC_MAX_TOKENS, "messages": messages}
    if system:
        body["system"] = "\n".join(system)
    if spec.tools:
        body["tools"] = [{"name": f.get("name"), "description": f.get("description"),
                          "input_schema": f.get("parameters") or {"type": "object"}}
                         for f in (t.get("function") or {} for t in spec.tools)]
    choice = spec.tool_choice
    tc: dict | None = None
    if isinstance(choice, dict):
        tc = {"type": "tool", "name": choice["function"]["name"]}
    elif choice is not None:
        tc = {"type": {"auto": "auto", "required": "any", "none": "none"}.get(choice, choice)}
    if spec.parallel_tool_calls is False:
        tc = {**(tc or {"type": "auto"}), "disable_parallel_tool_use": True}
    if tc is not None:
        body["tool_choice"] = tc
    if spec.chat_template_kwargs:
        body["chat_template_kwargs"] = spec.chat_template_kwargs
    return body
