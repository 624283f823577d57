"""What vLLM does, written straight against its API (no workbench code): the yardstick the
conformance tests hold the workbench to, and the family texts they share."""

from __future__ import annotations

from tokenizers.decoders import DecodeStream

from tests.support.seed import WEATHER_TOOLS

CHUNKINGS = ["token", "k:3", "random:7"]


def _skip_special(request) -> bool:
    """What the detokenizer gets: vLLM 0.33's request field defaults to None, which
    ``to_sampling_params`` resolves (to True); 0.32's field is a bool already."""
    return request.to_sampling_params(max_tokens=1, default_sampling_params={}).skip_special_tokens


def _direct_vllm(tok, tool, reasoning, text, sizes):
    """What vLLM does, written straight against its API (no workbench code)."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.parser.parser_manager import ParserManager

    messages = [{"role": "user", "content": "What is the weather in Paris?"}]
    cls = ParserManager.get_parser(tool_parser_name=tool, reasoning_parser_name=reasoning,
                                   enable_auto_tools=True, tokenizer=tok)
    request = ChatCompletionRequest(model="x", messages=messages, tools=WEATHER_TOOLS)
    request = cls(tok, request.tools, chat_template_kwargs={}).adjust_request(request=request)
    prompt = tok.apply_chat_template(messages, tools=WEATHER_TOOLS, add_generation_prompt=True,
                                     tokenize=True)
    prompt = list(prompt["input_ids"] if hasattr(prompt, "keys") else prompt)
    ids = tok.encode(text, add_special_tokens=False) + [tok.eos_token_id]
    stream = DecodeStream(ids=prompt, skip_special_tokens=_skip_special(request))
    pieces = [stream.step(tok._tokenizer, t) or "" for t in ids[:-1]] + [""]  # EOS not in text
    return _stream_then_parse(cls, tok, request, prompt, ids, pieces, sizes)


def _stream_then_parse(cls, tok, request, prompt, ids, pieces, sizes):
    """The serving loop by hand: one parser fed ``sizes`` groups of (ids, text), then
    a fresh one parsing the whole text. Returns (deltas, DeltaMessages, parse result)."""
    parser = cls(tok, request.tools, chat_template_kwargs={})
    deltas, messages_out, i = [], [], 0
    for n, size in enumerate(sizes):
        group, dtext = ids[i:i + size], "".join(pieces[i:i + size])
        i += size
        deltas.append((group, dtext))
        messages_out.append(parser.parse_delta(dtext, group, request, prompt_token_ids=prompt,
                                               finished=n == len(sizes) - 1))
    full = cls(tok, request.tools, chat_template_kwargs={})
    full.set_prompt_token_ids(prompt)
    nonstream = full.parse("".join(pieces), request, enable_auto_tools=True, model_output_token_ids=ids)
    return deltas, messages_out, nonstream


def _joined(messages):
    reasoning = content = None
    calls = {}
    for m in messages:
        if m is None:
            continue
        if m.reasoning is not None:
            reasoning = (reasoning or "") + m.reasoning
        if m.content is not None:
            content = (content or "") + m.content
        for tc in m.tool_calls or []:
            c = calls.setdefault(tc.index, {"name": "", "arguments": ""})
            c["name"] += (tc.function.name or "") if tc.function else ""
            c["arguments"] += (tc.function.arguments or "") if tc.function else ""
    return reasoning, content, [calls[k] for k in sorted(calls)]


HARMONY_TEXTS = {
    "seed": ('<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant'
             '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>'
             '{"city": "Paris"}<|call|>'),
    "final": ('<|channel|>analysis<|message|>Sunny, say so.<|end|><|start|>assistant'
              '<|channel|>final<|message|>It is sunny in Paris 🌞.<|return|>'),
    "preamble": ('<|channel|>commentary<|message|>Checking 東京 too.<|end|><|start|>assistant'
                 '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>'
                 '{"city": "東京", "unit": "celsius"}<|call|>'),
    "truncated": ('<|channel|>analysis<|message|>ok<|end|><|start|>assistant<|channel|>commentary'
                  ' to=functions.get_weather <|constrain|>json<|message|>{"city": "Par'),
    "unknown_channel": ('<|channel|>thoughts<|message|>hidden?<|end|><|start|>assistant'
                        '<|channel|>final<|message|>ok<|return|>'),
}
MISTRAL_CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
MISTRAL_TEXTS = {
    "call": f"[TOOL_CALLS][{MISTRAL_CALL}]",
    "parallel": (f'[TOOL_CALLS][{MISTRAL_CALL}, {{"name": "get_weather", "arguments": '
                 f'{{"city": "Lyon", "unit": "celsius"}}}}]'),
    "content_first": f"Let me check Paris. [TOOL_CALLS][{MISTRAL_CALL}]",
    "no_call": "The weather in Paris is sunny today, café au lait.",
    # The v11+ format on a pre-v11 tokenizer: [ARGS] is plain text there.
    "v11_on_pre_v11": '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
}
