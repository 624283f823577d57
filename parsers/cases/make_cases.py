"""Writes the case files under parsers/cases/<parser>/ from one table of formats.

Each format is its model's markup, as the format's documentation and vLLM's parser source
describe it: how a reasoning block opens and closes, and how a list of calls is written.
Every scenario is one intended answer (reasoning, content, calls) written in that markup;
the expected answer in the file is that intent, never a parser's output. Where vLLM gets a
case wrong on every version, the file says so (``NO_VERSION_PASSES``; ``PASSES_ON``: the versions that do);
tests/conformance/test_cases.py checks every file against vLLM's own non-streaming parse.

    .venv/bin/python parsers/cases/make_cases.py     # rewrites the generated files

A hand-written case lives beside them under another name; this script only writes the
files it names.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

Call = tuple[str, dict]
WEATHER = ("get_weather", {"city": "Paris"})
TIME = ("get_time", {"zone": "CET"})
ALERTS = ("list_alerts", {})
UNICODE = ("get_weather", {"city": "São Paulo ☀ 東京"})
ESCAPES = ("save_note", {"title": 'He said "hi"', "body": "line one\nline two\ttabbed \\ C:\\temp\\new"})
LONG_BODY = " ".join(f"word{i:04d}" for i in range(445))[:4000]
LONG = ("save_note", {"title": "long", "body": LONG_BODY})
NESTED = ("save_note", {"title": "trip", "body": "pack", "tags": ["travel", "todo"],
                        "meta": {"days": 3, "stops": [{"city": "Lyon"}, {"city": "Nice"}], "ok": True}})
THOUGHT = "The user asks about the weather in Paris."


@dataclass
class Format:
    """One markup. ``calls(list)`` writes a tool block; ``think`` (open, close) a reasoning
    block; ``strings``: argument values are text in the markup (nested values go as JSON
    text, typed by the tool's schema); ``skip``: scenarios the format has no way to say."""

    tool: str | None
    reasoning: str | None
    tokenizer: str
    calls: Callable[[list[Call]], str] | None = None
    think: tuple[str, str] | None = None
    skip: set[str] = field(default_factory=set)
    dir: str | None = None
    config: str | None = None
    sep: str = ""  # between text and a following tool block
    after: str = ""  # between a tool block and text after it
    content: Callable[[str], str] = lambda s: s  # noqa: E731  # text as the format writes an answer
    before: Callable[[str], str] | None = None  # text before a call, when the format writes it otherwise
    request: dict = field(default_factory=dict)  # more [request] fields
    append_think: bool = False  # the parser hands reasoning back inside content, "<think>" first

    @property
    def folder(self) -> str:
        return self.dir or self.tool or self.reasoning


def _json_call(key: str = "arguments") -> Callable[[Call], str]:
    return lambda c: json.dumps({"name": c[0], key: c[1]}, ensure_ascii=False)


def wrapped(open_: str, close: str, one: Callable[[Call], str], between: str = "") -> Callable[[list[Call]], str]:
    """Each call in its own open/close pair."""
    return lambda calls: between.join(open_ + one(c) + close for c in calls)


def listed(open_: str, close: str, one: Callable[[Call], str], comma: str = ", ") -> Callable[[list[Call]], str]:
    """All calls in one list."""
    return lambda calls: open_ + comma.join(one(c) for c in calls) + close


def _py(value) -> str:
    return repr(value)


def pythonic(c: Call, quote=_py) -> str:
    return f"{c[0]}(" + ", ".join(f"{k}={quote(v)}" for k, v in c[1].items()) + ")"


def _text(v) -> str:
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def engine_blocks(family: str, strings: bool, each: bool = False) -> Callable[[list[Call]], str]:
    """A parsers/<family>.toml format's tool block, by its terminals (corpus/scenarios.py);
    ``each``: every call in a block of its own, a newline between them."""
    from workbench.core.config import io as config_io
    from workbench.corpus.scenarios import _blocks

    open_, one, close = _blocks(config_io.load(config_io.PARSERS_DIR / f"{family}.toml"))
    fix = (lambda a: {k: _text(v) for k, v in a.items()}) if strings else (lambda a: a)
    if each:
        return lambda calls: "\n".join(open_ + one(i, n, fix(a)) + close for i, (n, a) in enumerate(calls))
    return lambda calls: open_ + "".join(one(i, n, fix(a)) for i, (n, a) in enumerate(calls)) + close


def engine_think(family: str) -> tuple[str, str]:
    from workbench.core.config import io as config_io

    cfg = config_io.load(config_io.PARSERS_DIR / f"{family}.toml")
    if family in ENGINE_THINK:  # a tool config whose reasoning parser is another (legacy) one
        return ENGINE_THINK[family]
    return cfg.terminal_literal("THINK_START"), cfg.terminal_literal("THINK_END")


# the reasoning markers of families whose config holds the tool side only
ENGINE_THINK = {"deepseek_v32": ("<think>", "</think>"),
                "granite": ("Here is my thought process:", "Here is my response:")}


THINK = ("<think>", "</think>")
DS_THINK = ("<think>", "</think>")
_DSV3 = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>{}\n```json\n{}\n```<｜tool▁call▁end｜>"
_DSV31 = "<｜tool▁call▁begin｜>{}<｜tool▁sep｜>{}<｜tool▁call▁end｜>"
_HARMONY = "<|channel|>commentary to=functions.{} <|constrain|>json<|message|>{}<|call|>"


def _dsv3(calls):
    return ("<｜tool▁calls▁begin｜>" + "".join(_DSV3.format(n, json.dumps(a, ensure_ascii=False)) for n, a in calls)
            + "<｜tool▁calls▁end｜>")


def _dsv31(calls):
    return ("<｜tool▁calls▁begin｜>" + "".join(_DSV31.format(n, json.dumps(a, ensure_ascii=False)) for n, a in calls)
            + "<｜tool▁calls▁end｜>")


def _harmony(calls):
    """The first message's ``<|start|>assistant`` is the prompt's last tokens, not output."""
    return "<|start|>assistant".join(_HARMONY.format(n, json.dumps(a, ensure_ascii=False)) for n, a in calls)


def _step3(calls):
    def one(n, a):
        return (f'<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="{n}">' + "".join(
            f'<steptml:parameter name="{k}">{_text(v)}</steptml:parameter>' for k, v in a.items())
            + "</steptml:invoke><｜tool_call_end｜>")
    return "<｜tool_calls_begin｜>" + "".join(one(n, a) for n, a in calls) + "<｜tool_calls_end｜>"


def _poolside(calls):
    return "".join(f"<tool_call>{n}" + "".join(f"<arg_key>{k}</arg_key><arg_value>{_text(v)}</arg_value>"
                                                for k, v in a.items()) + "</tool_call>" for n, a in calls)


def _glm45(calls):
    """GLM-4.7's tags as GLM-4.5's chat template writes them: a newline after the name and after
    each argument, a newline before each call (GLM-4.7's template writes none of them)."""
    return "\n".join(f"<tool_call>{n}\n" + "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{_text(v)}</arg_value>\n"
                                                    for k, v in a.items()) + "</tool_call>" for n, a in calls)


def _mimo(calls):
    """qwen3's XML with each parameter's value on its own line removed (parsers/mimo.toml); a
    <tool_call> block per call, back to back (vllm-rs's mimo.rs: each next call opens with
    <tool_call>, no newline before it, unlike Qwen3-Coder's)."""
    return "".join("<tool_call>\n" + f"<function={n}>\n" + "".join(
        f"<parameter={k}>{_text(v)}</parameter>\n" for k, v in a.items()) + "</function>\n</tool_call>"
        for n, a in calls)


def _k2_horizon(calls):
    return "<ifm|tool_calls>" + "".join(f"<ifm|tool_call>{n}" + "".join(
        f"<ifm|arg_key>{k}</ifm|arg_key><ifm|arg_value>{_text(v)}</ifm|arg_value>" for k, v in a.items())
        + "</ifm|tool_call>" for n, a in calls) + "</ifm|tool_calls>"


def _minicpm5(calls):
    return "".join(f'<function name="{n}">' + "".join(f'<param name="{k}">{_text(v)}</param>' for k, v in a.items())
                   + "</function>" for n, a in calls)


def _dots(calls):
    return "<dots_function_call>" + "".join(f"<invoke name={n}>" + "".join(
        f"<parameter name={k}>{_text(v)}</parameter>" for k, v in a.items()) + "</invoke>" for n, a in calls) \
        + "</dots_function_call>"


def _fgemma(calls):
    return "".join(f"<start_function_call>call:{n}{{" + ",".join(f"{k}:<escape>{_text(v)}<escape>"
                                                                for k, v in a.items()) + "}<end_function_call>"
                   for n, a in calls)


def _k3_type(v) -> str:
    """The type tag Kimi K3's template writes: string values go raw, the others as JSON."""
    return ("string" if isinstance(v, str) else "boolean" if isinstance(v, bool) else
            "number" if isinstance(v, (int, float)) else "array" if isinstance(v, list) else "object")


def _kimi_k3(calls):
    """XTML: the tools channel, a call block per call (1-based index), an argument block per key."""
    def one(i, n, a):
        return (f'<|open|>call tool="{n}" index="{i}"<|sep|>' + "".join(
            f'<|open|>argument key="{k}" type="{_k3_type(v)}"<|sep|>{_text(v)}<|close|>argument<|sep|>'
            for k, v in a.items()) + "<|close|>call<|sep|>")
    return "<|open|>tools<|sep|>" + "".join(one(i + 1, n, a) for i, (n, a) in enumerate(calls)) + "<|close|>tools<|sep|>"


def _muse_glimmer(calls):
    """ATEM: a message to the tool per call, its invoke inside function_calls, each parameter a
    text value (JSON for the others). The turn's first ``<|start|>assistant`` is the prompt's."""
    def one(n, a):
        return (f" to={n}<|message|><atem:function_calls>\n<atem:invoke name=\"{n}\">\n" + "".join(
            f'<atem:parameter name="{k}">{_text(v)}</atem:parameter>\n' for k, v in a.items())
            + "</atem:invoke>\n</atem:function_calls><|eom|>")
    return "<|start|>assistant".join(one(n, a) for n, a in calls)


_THINKING = {"chat_template_kwargs": {"thinking": True}}
_NO_TEXT = {"content-before-call", "content-after-call"}
_HERMES = wrapped("<tool_call>\n", "\n</tool_call>", _json_call(), "\n")
_PY_DQ = lambda v: json.dumps(v, ensure_ascii=False) if isinstance(v, str) else repr(v)  # noqa: E731

# folder -> its format. Tokenizers: the shipped one whose vocabulary holds the format's markers.
FORMATS = {
    "hermes": Format("hermes", "qwen3", "qwen3", _HERMES, THINK),
    "qwen3_json": Format("qwen3_json", "qwen3", "qwen3", _HERMES, THINK),
    "granite4": Format("granite4", None, "qwen3", wrapped("<tool_call>", "</tool_call>", _json_call(), "\n")),
    "ernie45": Format("ernie45", "ernie45", "qwen3", wrapped("<tool_call>\n", "\n</tool_call>\n", _json_call()),
                      THINK),
    "longcat": Format("longcat", None, "qwen3", wrapped("<longcat_tool_call>", "</longcat_tool_call>",
                                                        _json_call(), "\n")),
    "hunyuan_a13b": Format("hunyuan_a13b", None, "qwen3", listed("<tool_calls>[", "]</tool_calls>", _json_call())),
    "xlam": Format("xlam", None, "qwen3", listed("[", "]", _json_call()), skip=_NO_TEXT),
    "phi4_mini_json": Format("phi4_mini_json", None, "qwen3", listed("functools[", "]", _json_call())),
    "granite-20b-fc": Format("granite-20b-fc", None, "qwen3", wrapped("<function_call> ", "", _json_call(), " ")),
    "internlm": Format("internlm", None, "qwen3",
                       wrapped("<|action_start|><|plugin|>\n", "<|action_end|>", _json_call("parameters")),
                       skip={"parallel-calls"}),
    "apertus": Format("apertus", None, "qwen3", listed("<|tools_prefix|>[", "]<|tools_suffix|>",
                                                       lambda c: json.dumps({c[0]: c[1]}, ensure_ascii=False))),
    # the whole answer is the list: no text beside the calls (pythonic_tool_parser.py's TODO)
    "pythonic": Format("pythonic", None, "qwen3", listed("[", "]", pythonic), skip=_NO_TEXT),
    "llama4_pythonic": Format("llama4_pythonic", None, "qwen3", listed("[", "]", pythonic), skip=_NO_TEXT),
    "olmo3": Format("olmo3", "olmo3", "qwen3",
                    listed("<function_calls>", "</function_calls>", lambda c: pythonic(c, _PY_DQ), "\n"), THINK),
    "mistral": Format("mistral", None, "mistral_tekken", listed("[TOOL_CALLS][", "]", _json_call())),
    # deepseek_v3's reasoning parser reads reasoning only when the request asks for thinking
    "deepseek_v3": Format("deepseek_v3", "deepseek_v3", "deepseek_v3", _dsv3, DS_THINK, request=_THINKING),
    "deepseek_v31": Format("deepseek_v31", "deepseek_v3", "deepseek_v3", _dsv31, DS_THINK, request=_THINKING),
    "openai": Format("openai", "openai_gptoss", "gpt_oss", _harmony, ("<|channel|>analysis<|message|>", "<|end|>"),
                     sep="<|start|>assistant", after="<|start|>assistant",
                     content=lambda s: "<|channel|>final<|message|>" + s,
                     before=lambda s: "<|channel|>commentary<|message|>" + s + "<|end|>"),
    "step3": Format("step3", "step3", "qwen3", _step3, ("", "</think>")),  # the prompt opens <think>
    "poolside_v1": Format("poolside_v1", None, "qwen3", _poolside),
    "dots": Format("dots", None, "qwen3", _dots),
    "mimo": Format("mimo", "mimo", "qwen3", _mimo, THINK),
    "k2_horizon": Format("k2_horizon", None, "qwen3", _k2_horizon),
    "minicpm5": Format("minicpm5", None, "qwen3", _minicpm5),
    # one call per answer, after its marker
    "gigachat3": Format("gigachat3", None, "qwen3", wrapped("<|function_call|>", "", _json_call()),
                        skip={"parallel-calls", "content-after-call"}),
    "functiongemma": Format("functiongemma", None, "qwen3", _fgemma, skip={"nested-arguments"}),
    # the response channel always precedes the tools channel: no text after a call
    "kimi_k3": Format("kimi_k3", "kimi_k3", "qwen3", _kimi_k3, ("<|open|>think<|sep|>", "<|close|>think<|sep|>"),
                      content=lambda s: "<|open|>response<|sep|>" + s + "<|close|>response<|sep|>",
                      skip={"content-after-call"}),
    # each message names its recipient: self (reasoning), user (the answer), or a tool
    "muse_glimmer": Format("muse_glimmer", "muse_glimmer", "qwen3", _muse_glimmer, (" to=self<|message|>", "<|eom|>"),
                           sep="<|start|>assistant", after="<|start|>assistant",
                           content=lambda s: f" to=user<|message|>{s}<|eot|>",
                           before=lambda s: f" to=user<|message|>{s}<|eom|>"),
}

# engine families (parsers/<family>.toml): folder -> (tool, reasoning, tokenizer, family, strings)
ENGINE = {
    "qwen3_xml": ("qwen3_xml", "qwen3", "qwen3", "qwen3", True),
    "qwen3_coder": ("qwen3_coder", "qwen3", "qwen3", "qwen3", True),
    "deepseek_v32": ("deepseek_v32", "deepseek_v4", "deepseek_v4", "deepseek_v32", True),
    "deepseek_v4": ("deepseek_v4", "deepseek_v4", "deepseek_v4", "deepseek_v4", True),
    "deepseek_v41": ("deepseek_v41", "deepseek_v41", "deepseek_v4", "deepseek_v41", True),
    "gemma4": ("gemma4", "gemma4", "qwen3", "gemma4", True),
    "glm47": ("glm47", "glm47", "qwen3", "glm47_moe", True),
    "glm45": ("glm45", "glm45", "qwen3", "glm47_moe", True),
    "granite": ("granite", "granite", "qwen3", "granite", False),
    "inkling": ("inkling", "inkling", "qwen3", "inkling", False),
    "kimi_k2": ("kimi_k2", "kimi_k2", "kimi_k2", "kimi_k2", False),
    "ling3": ("ling3", "ling3", "qwen3", "ling3", True),
    "minimax_m2": ("minimax_m2", "minimax_m2", "qwen3", "minimax_m2", True),
    "minimax_m3": ("minimax_m3", None, "qwen3", "minimax_m3", True),
    "plamo3": ("plamo3", "plamo3", "qwen3", "plamo3", False),
    "seed_oss": ("seed_oss", "seed_oss", "qwen3", "seed_oss", True),
    "step3p5": ("step3p5", "step3p5", "qwen3", "step3p5", True),
}

# Qwen3-Coder's and Seed-OSS's chat templates write each call in a <tool_call> block of its own
# (xgrammar's qwen_3_5 structural tag: "<tool_call>\n<function=NAME>" ... "</function>\n</tool_call>"
# per call); vllm-rs's qwen_coder parser reads only that, not two functions in one block
ONE_CALL_A_BLOCK = {"qwen3_xml", "qwen3_coder", "seed_oss"}

# reasoning parsers with no tool parser of their own: folder -> (reasoning, tokenizer, think
# markers, or the parsers/<family>.toml whose terminals give them)
REASONING = {
    "deepseek_r1": ("deepseek_r1", "deepseek_v3", THINK),
    "qwen3": ("qwen3", "qwen3", THINK),
    "granite_thinking_parser": ("granite_thinking_parser", "qwen3", "granite_thinking"),
    "nemotron_v3": ("nemotron_v3", "qwen3", "nemotron_v3"),
    "minicpmv": ("minicpmv", "qwen3", "minicpmv"),
    "holo2": ("holo2", "qwen3", THINK),
    "hy_v3": ("hy_v3", "qwen3", THINK),
    "minimax_m2_append_think": ("minimax_m2_append_think", "qwen3", ("", "</think>")),
}

# Where vLLM gets a case wrong on every version (0.32.0, 0.33.0, 0.34.0 checked): the reason,
# then the folders it holds for. The link is the parser's source; an upstream issue where one exists.
_AFTER = ("the non-streaming parse drops the text after the last call (content none; the call itself is "
          "right) on 0.32.0, 0.33.0 and 0.34.0; deepseek_v3 keeps it from 0.33.0 on (vLLM #56263: "
          "https://github.com/vllm-project/vllm/issues/56263)")
_CUT_CALL = ("cut by max_tokens inside the arguments, parse() turns the unfinished call into a tool call "
             "(arguments {args}) and the answer's finish_reason becomes tool_calls: a client would run a call "
             "the model never finished (0.32.0, 0.33.0, 0.34.0)")
_CUT_DROP = ("cut by max_tokens inside the arguments, parse() drops the unfinished call's text: no call and no "
             "content, so the client gets an empty answer (0.32.0, 0.33.0, 0.34.0)")
NO_VERSION_PASSES: dict[str, tuple[str, list[str]]] = {
    "content-after-call": (_AFTER, [
        "deepseek_v31", "deepseek_v32", "deepseek_v4", "deepseek_v41", "dots", "ernie45", "functiongemma", "gemma4",
        "glm45", "glm47", "granite", "granite-20b-fc", "hermes", "hunyuan_a13b", "internlm", "kimi_k2", "ling3",
        "longcat", "mimo", "minicpm5", "minimax_m2", "minimax_m3", "mistral", "olmo3", "phi4_mini_json", "plamo3",
        "poolside_v1", "qwen3_coder", "qwen3_json", "qwen3_xml", "seed_oss", "step3p5"]),
    "cut-in-arguments": (_CUT_DROP, ["deepseek_v3", "deepseek_v31", "ernie45", "kimi_k3"]),
    "cut-in-arguments/partial": (_CUT_CALL.format(args='{"city": "Pa"}'), ["apertus", "gemma4"]),
    "cut-in-arguments/text": (_CUT_CALL.format(args='as the text {"city": "Pa, not JSON'),
                              ["granite", "inkling", "kimi_k2", "openai", "plamo3"]),
    "cut-in-arguments/empty": (_CUT_CALL.format(args="{}, the value dropped"), [
        "deepseek_v32", "deepseek_v4", "deepseek_v41", "functiongemma", "glm45", "glm47", "ling3", "mimo",
        "minimax_m2", "minimax_m3", "qwen3_coder", "qwen3_xml", "seed_oss", "step3p5"]),
    "cut-in-arguments/raises": ("cut by max_tokens inside the arguments, parse() raises JSONDecodeError on the "
                                "unfinished JSON: the request fails instead of answering (0.32.0, 0.33.0, 0.34.0)",
                                ["internlm"]),
    "cut-in-arguments/marker": ("[TOOL_CALLS] is a control token the detokenizer skips, so the unfinished call "
                                "reaches the client as bare JSON text without its marker (0.32.0, 0.33.0, 0.34.0)",
                                ["mistral"]),
    "content-before-call": ("the non-streaming parse drops the text before the call (content none) on 0.32.0, "
                            "0.33.0 and 0.34.0", ["minicpm5", "olmo3", "phi4_mini_json"]),
    "nested-arguments": ("the call regex (functools\\[(.*?)\\]) stops at the first ] inside the arguments: no "
                         "call and no content on 0.32.0, 0.33.0 and 0.34.0", ["phi4_mini_json"]),
    "no-call": ("with no call, vLLM's parser keeps the whole model output as content and drops the tool parser's "
                "own content (the user channel), so the framing ( to=user<|message|>...<|eot|>) reaches the client "
                "(0.32.0, 0.33.0, 0.34.0; vllm/parser/abstract_parser.py: https://github.com/vllm-project/vllm/blob/"
                "v0.34.0/vllm/parser/abstract_parser.py#L469)", ["muse_glimmer"]),
    "reasoning-cut": ("without its closing marker the reasoning is not found: the cut reasoning comes back as "
                      "content, opening marker included (0.32.0, 0.33.0, 0.34.0)", ["granite", "olmo3"]),
}
# case id -> the versions that pass it when the installed one does not
PASSES_ON = {
    "deepseek_v3/content-after-call": ["0.33.0", "0.34.0"],  # vLLM #56263
    "mistral/unicode-arguments": ["0.34.0"],  # 0.32/0.33 detokenize the sun as two replacement characters
    "step3/nested-arguments": ["0.34.0"],  # 0.32/0.33 leave an array parameter as its JSON text
}


def _source_link(kind: str, name: str) -> str:
    from workbench.lanes import names

    module, _ = names.declared("0.34.0")[kind][name]
    folder = "tool_parsers" if kind == "tool" else "reasoning"
    return f"https://github.com/vllm-project/vllm/blob/v0.34.0/vllm/{folder}/{module}.py"


def known(folder: str, f: Format, stem: str) -> dict:
    """The [known] table of one case: a reason no version passes it, or the versions that do."""
    if f"{folder}/{stem}" in PASSES_ON:
        return {"passes_on": PASSES_ON[f"{folder}/{stem}"]}
    for key, (reason, folders) in NO_VERSION_PASSES.items():
        if key.partition("/")[0] == stem and folder in folders:
            kind, name = ("tool", f.tool) if f.tool else ("reasoning", f.reasoning)
            return {"no_version_passes": f"{folder}: {reason}. Source: {_source_link(kind, name)}"}
    return {}


def scenarios(f: Format) -> list[tuple[str, str, list[str], str, str, dict]]:
    """(stem, title, covers, text, finish_reason, expected) for each scenario the format has."""
    t_open, t_close = f.think if (f.think and f.reasoning) else ("", "")
    think = (t_open + THOUGHT + t_close) if f.think and f.reasoning else ""
    say = f.content
    out = []

    def add(stem, title, covers, text, expected, finish="stop"):
        if stem in f.skip or set(covers) & f.skip:
            return
        if f.append_think and "reasoning" in expected:  # the whole output is content, "<think>" first
            expected = {k: v for k, v in expected.items() if k not in ("reasoning", "content")}
            expected["content"] = "<think>" + text
        out.append((stem, title, covers, text, finish, expected))

    def calls_answer(calls, **more):
        return {**more, "finish_reason": "tool_calls", "tool_calls": [{"name": n, "arguments": a} for n, a in calls]}

    if f.calls is not None:
        add("one-call", "one call, nothing around it", ["one-call"], f.calls([WEATHER]), calls_answer([WEATHER]))
        add("parallel-calls", "two calls in one answer", ["parallel-calls"], f.calls([WEATHER, TIME]),
            calls_answer([WEATHER, TIME]))
        add("no-call", "tools offered, the answer is text", ["no-call"], say("It is sunny in Paris today."),
            {"content": "It is sunny in Paris today.", "finish_reason": "stop"})
        add("content-before-call", "a sentence, then a call", ["content-before-call"],
            (f.before or say)("Let me look that up.") + f.sep + f.calls([WEATHER]),
            calls_answer([WEATHER], content="Let me look that up."))
        add("content-after-call", "a call, then a sentence", ["content-after-call"],
            f.calls([WEATHER]) + f.after + say("I asked for Paris."),
            calls_answer([WEATHER], content="I asked for Paris."))
        add("unicode-arguments", "non-ASCII text in an argument", ["unicode-arguments"], f.calls([UNICODE]),
            calls_answer([UNICODE]))
        add("escapes-in-arguments", "quotes, backslashes, newline and tab in arguments", ["escapes-in-arguments"],
            f.calls([ESCAPES]), calls_answer([ESCAPES]))
        add("long-argument", "a 4,000-character argument", ["long-argument"], f.calls([LONG]), calls_answer([LONG]))
        add("nested-arguments", "an array and nested objects in the arguments", ["nested-arguments"],
            f.calls([NESTED]), calls_answer([NESTED]))
        add("empty-arguments", "a call that takes no arguments", ["empty-arguments"], f.calls([ALERTS]),
            calls_answer([ALERTS]))
        whole = f.calls([WEATHER])
        cut = whole[: whole.index("Paris") + 2]
        # what the model wrote stays the client's: no call was finished, so none is made up
        add("cut-in-arguments", "max_tokens ends the output inside a call's arguments", ["cut-by-max-tokens"],
            cut, {"content": cut, "finish_reason": "length"}, "length")
        if think:
            add("reasoning-then-call", "a reasoning block, then a call", ["reasoning-then-call"],
                think + f.sep + f.calls([WEATHER]), calls_answer([WEATHER], reasoning=THOUGHT))
    if think:
        add("reasoning-then-content", "a reasoning block, then text", ["reasoning-then-content"],
            think + f.after + say("It is sunny in Paris."),
            {"reasoning": THOUGHT, "content": "It is sunny in Paris.", "finish_reason": "stop"})
        add("reasoning-only", "a reasoning block and nothing after it", ["reasoning-only"], think,
            {"reasoning": THOUGHT, "finish_reason": "stop"})
        add("reasoning-cut", "max_tokens ends the output inside the reasoning", ["reasoning-cut"],
            t_open + "The user asks about", {"reasoning": "The user asks about", "finish_reason": "length"}, "length")
    return out


# -- TOML writing --------------------------------------------------------------------------
def _key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k, ensure_ascii=False)


def value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(k)} = {value(x)}" for k, x in v.items()) + "}" if v else "{}"
    raise TypeError(v)


def text_value(s: str) -> str:
    """A multi-line literal string where it reads as the text itself; else a basic string."""
    literal_ok = ("'''" not in s and not s.startswith("\n") and not s.endswith("'")
                  and not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", s) and "\r" not in s)
    return f"'''{s}'''" if literal_ok and "\n" in s else (
        f"'{s}'" if literal_ok and "'" not in s else value(s))


def write(folder: str, f: Format, stem: str, title: str, covers: list[str], text: str, finish: str,
          expected: dict) -> Path:
    lines = [f"title = {value(title)}", f"covers = {value(covers)}", f"tokenizer = {value(f.tokenizer)}",
             f"finish_reason = {value(finish)}", f"text = {text_value(text)}", "", "[parser]"]
    if f.tool:
        lines.append(f"tool_parser = {value(f.tool)}")
    # the reasoning parser only where the text has a reasoning block: vLLM's reasoning
    # parsers read output without one as reasoning (the prompt opened it) or as content
    if f.reasoning and (not f.tool or stem in REASONING_STEMS):
        lines.append(f"reasoning_parser = {value(f.reasoning)}")
    lines += ["", "[request]"]
    lines += [f"{k} = {value(v)}" for k, v in f.request.items()]
    if f.tool:
        lines += ['tool_choice = "auto"', f'tools = "{"notes" if stem in NOTE_STEMS else "weather"}"']
    lines += ["", "[expected]"]
    for k in ("reasoning", "content"):
        if k in expected:
            lines.append(f"{k} = {text_value(expected[k])}")
    lines.append(f"finish_reason = {value(expected['finish_reason'])}")
    if expected.get("tool_calls"):
        calls = expected["tool_calls"]
        lines.append("tool_calls = [" + (",\n  ".join(value(c) for c in calls) if len(calls) > 1
                                          else value(calls[0])) + "]")
    note = known(folder, f, stem)
    if note:
        lines += ["", "[known]"] + [f"{k} = {value(v)}" for k, v in note.items()]
    path = HERE / folder / f"{stem}.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


REASONING_STEMS = {"reasoning-then-call", "reasoning-then-content", "reasoning-only", "reasoning-cut"}
NOTE_STEMS = {"escapes-in-arguments", "long-argument", "nested-arguments"}


def formats() -> dict[str, Format]:
    out = dict(FORMATS)
    for folder, (tool, reasoning, tok, family, strings) in ENGINE.items():
        think = engine_think(family) if reasoning else None
        out[folder] = Format(tool, reasoning, tok, engine_blocks(family, strings, folder in ONE_CALL_A_BLOCK), think,
                             dir=folder)
    for folder, (reasoning, tok, think) in REASONING.items():
        out[folder] = Format(None, reasoning, tok, None, think if isinstance(think, tuple) else engine_think(think),
                             dir=folder)
    out["glm45"].calls, out["glm45"].sep = _glm45, "\n"  # vllm-rs's glm45 needs the newline after the name
    # hy_v3 reads reasoning only when the request asks for it (no effort: "no_think")
    out["hy_v3"].request = {"chat_template_kwargs": {"reasoning_effort": "high"}}
    # MiniMax M2 writes no <think>; this variant hands the reasoning back in content, "<think>" first
    out["minimax_m2_append_think"].append_think = True
    inkling = out["inkling"]
    msg, text_start, end = "<|message_model|>", "<|content_text|>", "<|end_message|>"
    inkling.think = (msg + inkling.think[0], inkling.think[1])
    inkling.content = lambda s: msg + text_start + s + end
    return out


def main() -> None:
    import shutil

    fs = formats()
    for folder in fs:  # a scenario a format no longer has must not stay behind
        shutil.rmtree(HERE / folder, ignore_errors=True)
    n = 0
    for folder, f in fs.items():
        for stem, title, covers, text, finish, expected in scenarios(f):
            write(folder, f, stem, title, covers, text, finish, expected)
            n += 1
    print(f"wrote {n} cases")


if __name__ == "__main__":
    main()
