"""Model output in each family's own markup, for synthetic recordings and tests.

``render(cfg, scenario)`` writes a scenario (scenario ids from vLLM's trace_builder.py:
think-then-tool, parallel-tools, ...) in the wire format of a ``ParserEngineConfig``,
from its terminals alone, so every family in ``parsers/*.toml`` gets real markup.
``FAMILIES`` names, for each, the parsers vLLM registers for it and a shipped tokenizer
it runs on; ``DIVERGENCES`` are streams on which vLLM 0.32 is known to go wrong.
"""

from __future__ import annotations

import functools
import json

SCENARIOS = ["think-then-tool", "parallel-tools", "content-only", "whitespace-before-tool", "empty-tool-block"]
CALLS = [("get_weather", {"city": "Paris"}), ("get_time", {"zone": "CET"})]
TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
                   "required": ["city"]}}},
    {"type": "function", "function": {
        "name": "get_time", "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}}}}]

# family (parsers/<family>.toml, or "hermes": the seed) -> (tool parser, reasoning parser, tokenizer)
FAMILIES = {
    "hermes": ("hermes", "qwen3", "qwen3"),
    "deepseek_v32": ("deepseek_v32", "deepseek_v3", "deepseek_v4"),
    "deepseek_v4": ("deepseek_v4", "deepseek_v4", "deepseek_v4"),
    "deepseek_v41": ("deepseek_v41", "deepseek_v41", "deepseek_v4"),
    "gemma4": ("gemma4", "gemma4", "qwen3"),
    "glm47_moe": ("glm47", "glm47", "qwen3"),
    "granite": ("granite", "granite", "qwen3"),
    "granite_thinking": ("qwen3_xml", "granite_thinking_parser", "qwen3"),
    "inkling": ("inkling", "inkling", "qwen3"),
    "kimi_k2": ("kimi_k2", "kimi_k2", "qwen3"),
    "ling3": ("ling3", "ling3", "qwen3"),
    "mimo": ("mimo", "mimo", "qwen3"),
    "minicpmv": ("qwen3_xml", "minicpmv", "qwen3"),
    "minimax_m2": ("minimax_m2", "minimax_m2", "qwen3"),
    "minimax_m3": ("minimax_m3", None, "qwen3"),  # its reasoning parser needs <think> tokens qwen3's lack
    "mistral": ("mistral", None, "mistral_tekken"),
    "nemotron_v3": ("qwen3_xml", "nemotron_v3", "qwen3"),
    "plamo3": ("plamo3", "plamo3", "qwen3"),
    "qwen3": ("qwen3_xml", "qwen3", "qwen3"),
    "seed_oss": ("seed_oss", "seed_oss", "qwen3"),
    "step3p5": ("step3p5", "step3p5", "qwen3"),
    "gpt_oss": ("openai", "openai_gptoss", "gpt_oss"),
}

_HERMES_CALL = '<tool_call>{{"name": "{}", "arguments": {}}}</tool_call>'
HERMES = {
    "think-then-tool": "<think>Need the weather.</think>\n\n" + _HERMES_CALL.format("get_weather", '{"city": "Paris"}'),
    "parallel-tools": "<think>Two calls.</think>\n\n" + _HERMES_CALL.format("get_weather", '{"city": "Paris"}')
                      + "\n" + _HERMES_CALL.format("get_time", '{"zone": "CET"}'),
    "content-only": "<think>No tool needed.</think>\n\nThe weather in Paris is sunny.",
    "whitespace-before-tool": "<think>hm</think>\n\n\n" + _HERMES_CALL.format("get_weather", '{"city": "Lyon"}'),
    "empty-tool-block": "<think>hm</think><tool_call></tool_call>",
}
_MISTRAL_CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
MISTRAL = {
    "think-then-tool": f"[TOOL_CALLS][{_MISTRAL_CALL}]",
    "parallel-tools": f'[TOOL_CALLS][{_MISTRAL_CALL}, {{"name": "get_time", "arguments": {{"zone": "CET"}}}}]',
    "content-only": "The weather in Paris is sunny today, café au lait.",
    "whitespace-before-tool": f"Let me check Paris. [TOOL_CALLS][{_MISTRAL_CALL}]",
    "empty-tool-block": "[TOOL_CALLS][]",
}
_HARMONY_CALL = ('<|start|>assistant<|channel|>commentary to=functions.{} <|constrain|>json<|message|>{}<|call|>')
HARMONY = {
    "think-then-tool": "<|channel|>analysis<|message|>Need the weather.<|end|>"
                       + _HARMONY_CALL.format("get_weather", '{"city": "Paris"}'),
    "parallel-tools": "<|channel|>analysis<|message|>Two calls.<|end|>"
                      + _HARMONY_CALL.format("get_weather", '{"city": "Paris"}') + "<|start|>assistant"
                      + "<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>"
                      + '{"zone": "CET"}<|call|>',
    "content-only": "<|channel|>analysis<|message|>Sunny, say so.<|end|><|start|>assistant<|channel|>final"
                    "<|message|>It is sunny in Paris 🌞.<|return|>",
    "whitespace-before-tool": "<|channel|>commentary<|message|>Checking 東京 too.<|end|>"
                              + _HARMONY_CALL.format("get_weather", '{"city": "東京"}'),
    "empty-tool-block": "<|channel|>analysis<|message|>Nothing.<|end|>"
                        + _HARMONY_CALL.format("get_weather", "{}"),
}

# Streams vLLM 0.32 gets wrong: name -> (family parsers and tokenizer, text, finish_reason)
_DS = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
DIVERGENCES = {
    # 0.32's regexes stop at the first newline: the stream sends "{", parse() finds no call; 0.33 fixed both
    "deepseek_v3-pretty-arguments": (("deepseek_v3", None, "deepseek_v3"),
                                     _DS + '{\n  "city": "Paris"\n}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>', "stop"),
    # 0.32's non-streaming answer drops text after the calls (vLLM #56263); 0.33 keeps it
    "deepseek_v3-text-after-calls": (("deepseek_v3", None, "deepseek_v3"),
                                     _DS + '{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>Checking now.',
                                     "stop"),
    # cut by max_tokens inside the arguments: the stream sends the partial call, parse() none
    "hermes-truncated-arguments": (("hermes", "qwen3", "qwen3"),
                                   '<think>Paris, in Celsius.</think>\n\n<tool_call>\n{"name": "get_weather", '
                                   '"arguments": {"city": "Paris", "unit": "cel', "length"),
    # an empty-argument call right after another streams "{}{}" when its last tokens share a delta (#51697)
    "xlam-arguments-doubled": (("xlam", "qwen3", "qwen3"),
                               '<think>x</think>[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
                               '{"name": "get_weather", "arguments": {}}]', "stop"),
}


def _t(cfg, name: str) -> str:
    return cfg.terminal_literal(name)


def _blocks(cfg):
    """(open, one call, close) of a tool block, by grammar shape."""
    T, k = functools.partial(_t, cfg), cfg.terminals
    if "FUNC_PREFIX" in k:  # qwen3 XML
        return (T("TOOL_START") + "\n", lambda i, n, a: f"<function={n}>\n" + "".join(
            f"<parameter={p}>\n{v}\n</parameter>\n" for p, v in a.items()) + "</function>\n", T("TOOL_END"))
    if "INVOKE_PREFIX" in k:  # DeepSeek DSML
        return (T("TOOL_START") + "\n", lambda i, n, a: T("INVOKE_PREFIX") + n + T("INVOKE_NAME_END") + "\n" + "".join(
            f'{T("PARAM_START")} name="{p}" string="true">{v}{T("PARAM_CLOSE")}\n' for p, v in a.items())
            + T("INVOKE_END") + "\n", T("TOOL_END"))
    if "ARG_KEY_START" in k:  # GLM
        return ("", lambda i, n, a: T("TOOL_START") + n + "".join(
            T("ARG_KEY_START") + p + T("ARG_KEY_END") + T("ARG_VALUE_START") + v + T("ARG_VALUE_END")
            for p, v in a.items()) + T("TOOL_END"), "")
    if "INVOKE_PREFIX_DQ" in k:  # MiniMax M2 / M3
        mark = T("TOOL_START")[: -len("<tool_call>")] if "PARAM_START" not in k else ""
        param = ((lambda p, v: f'{T("PARAM_START")}"{p}">{v}{T("PARAM_END")}\n') if not mark
                 else (lambda p, v: f"{mark}<{p}>{v}{mark}</{p}>\n"))
        return (T("TOOL_START") + "\n", lambda i, n, a: T("INVOKE_PREFIX_DQ") + n + T("NAME_END_DQ") + "\n"
                + "".join(param(p, v) for p, v in a.items()) + T("INVOKE_END") + "\n", T("TOOL_END"))
    if "TOOL_SECTION_START" in k:  # Kimi K2
        return (T("TOOL_SECTION_START"), lambda i, n, a: f"{T('TOOL_START')}functions.{n}:{i}{T('ARG_START')}"
                + json.dumps(a) + T("TOOL_END"), T("TOOL_SECTION_END"))
    if "CALL_PREFIX" in k:  # Gemma 4
        return ("", lambda i, n, a: T("TOOL_START") + T("CALL_PREFIX") + n + "{" + ",".join(
            f'{p}:<|"|>{v}<|"|>' for p, v in a.items()) + "}" + T("TOOL_END"), "")
    if "TOOL_TOKEN" in k:  # Granite: one JSON array
        return (T("TOOL_TOKEN") + " [", lambda i, n, a: ", " * (i > 0) + json.dumps(
            {"name": n, "arguments": a}), "]")
    if "MSG_MODEL" in k:  # Inkling: typed message blocks
        return ("", lambda i, n, a: T("MSG_MODEL") + T("TOOL_START") + json.dumps({"name": n, "args": a})
                + T("THINK_END"), "")
    if "TOOL_REQUESTS_START" in k:  # PLaMo 3
        return (T("TOOL_REQUESTS_START"), lambda i, n, a: T("TOOL_REQUEST_START") + T("TOOL_NAME_START") + n
                + T("TOOL_NAME_END") + T("TOOL_ARGS_START") + json.dumps(a) + T("TOOL_ARGS_END")
                + T("TOOL_REQUEST_END"), T("TOOL_REQUESTS_END"))
    raise ValueError(f"no scenario renderer for {cfg.name}")


def render(cfg, scenario: str) -> str:
    """``scenario`` in the markup of ``cfg`` (a ParserEngineConfig)."""
    k = cfg.terminals
    if "MSG_MODEL" in k:
        think = _t(cfg, "MSG_MODEL") + _t(cfg, "THINK_START") + "Need the weather." + _t(cfg, "THINK_END")
        content = lambda s: _t(cfg, "MSG_MODEL") + _t(cfg, "TEXT_START") + s + _t(cfg, "THINK_END")  # noqa: E731
    else:
        think = (_t(cfg, "THINK_START") + ("thought\n" if "CALL_PREFIX" in k else "") + "Need the weather."
                 + _t(cfg, "THINK_END")) if "THINK_END" in k else ""
        content = lambda s: s  # noqa: E731
    open_, call, close = _blocks(cfg)
    tools = lambda calls: open_ + "".join(call(i, n, a) for i, (n, a) in enumerate(calls)) + close  # noqa: E731
    return think + {
        "think-then-tool": tools(CALLS[:1]),
        "parallel-tools": tools(CALLS),
        "content-only": content("The weather in Paris is sunny."),
        "whitespace-before-tool": ("\n\n" if not content("") else "") + tools(CALLS[:1]),
        "empty-tool-block": tools([]),
    }[scenario]


@functools.cache
def text(family: str, scenario: str) -> str:
    """The model output of ``scenario`` in ``family``'s format."""
    if family == "hermes":
        return HERMES[scenario]
    if family == "mistral":
        return MISTRAL[scenario]
    if family == "gpt_oss":
        return HARMONY[scenario]
    from workbench.core.config import io as config_io

    return render(config_io.load(config_io.PARSERS_DIR / f"{family}.toml"), scenario)
