"""The author's fix for a config's argument pitfalls, each as a TOML snippet to paste.

Read from the text cut at the terminals that fired (config_where.segments) and what the
stream sent: a call whose body is raw JSON while no ``arg_converter`` is set and the streamed
arguments are not that JSON (vLLM's engine then loses the text that arrives with the tool
name: the "lost first {" trap); a converter whose answer differs from what was streamed, or
is not JSON (it names the converter's key, function and line); a terminal that fired inside a
call's open JSON arguments (config_readings.terminals_in_arguments).
"""

from __future__ import annotations

import inspect
import json
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from workbench.diagnosis.config.segments import Fired, Segment
    from workbench.core.messages import Final


def call_bodies(segs: Sequence[Segment]) -> list[str]:
    """The raw text of each call's arguments (what the engine read in TOOL_ARGS), in order."""
    out: list[str] = []
    inside = False
    for seg in segs:
        f = seg.fired
        if f is None:
            if inside and seg.state == "TOOL_ARGS":
                out[-1] += seg.text
            continue
        if f.transition and f.to == "TOOL_ARGS" and f.state != "TOOL_ARGS":
            out.append("")
            inside = True
        elif f.transition and f.state == "TOOL_ARGS" and f.to != "TOOL_ARGS":
            inside = False
    return out


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def module_name(config: Any) -> str:
    """The converter module a fix names: the config's name as a Python identifier, + _args."""
    return (re.sub(r"\W+", "_", config.name).strip("_") or "my") + "_args"


def raw_json_converter(config: Any) -> str:
    """The fix for a raw JSON body: an identity converter beside the config, as TOML."""
    name = module_name(config)
    return (f'arg_converter = "{name}:arguments"  # with {name}.py beside the config: '
            f"def arguments(raw, partial): return raw  (trust it: --allow-callable {name}:arguments)")


def raw_json(config: Any, segs: Sequence[Segment], final: Final | None) -> list[dict]:
    """A call whose body is raw JSON, streamed as something else, with no converter."""
    if config.arg_converter is not None or final is None:
        return []
    out = []
    for i, (body, call) in enumerate(zip(call_bodies(segs), final.tool_calls)):
        value = _json(body.strip())
        if isinstance(value, (dict, list)) and _json(call.arguments or "") != value:
            out.append({"kind": "raw_json_arguments", "call": i, "body": body[:80], "streamed": (call.arguments or "")[:80],
                        "detail": f"call {i}'s body is raw JSON ({body.strip()[:40]!r}) and no arg_converter is set: "
                                  f"vLLM's engine streamed its arguments as {(call.arguments or '')[:40]!r}, not that "
                                  f"JSON (the text that arrives with the tool name is lost)",
                        "fix": raw_json_converter(config), "key": "arg_converter"})
    return out


def converter_where(converter: Any) -> dict:
    """The converter's function, its file and the line it is defined on."""
    import functools

    fn = converter.func if isinstance(converter, functools.partial) else converter
    name = f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', repr(fn))}"
    try:
        return {"function": name, "file": inspect.getsourcefile(fn), "line": inspect.getsourcelines(fn)[1]}
    except (TypeError, OSError):
        return {"function": name, "file": None, "line": None}


def converter_output(config: Any, segs: Sequence[Segment], final: Final | None) -> list[dict]:
    """A converter whose final answer is not JSON, or differs from what vLLM streamed (its
    partial answers were not prefixes of it)."""
    converter = config.arg_converter
    if converter is None or final is None:
        return []
    out = []
    for i, (body, call) in enumerate(zip(call_bodies(segs), final.tool_calls)):
        try:
            answer = converter(body, False)
        except Exception as e:  # noqa: BLE001  (the author's code: what it raised is the reading)
            answer, raised = None, f"{type(e).__name__}: {e}"
        else:
            raised = None
        where = converter_where(converter)
        at = f" ({where['file']}:{where['line']})" if where["line"] else ""
        head = f"the converter arg_converter = {where['function']}{at}"
        streamed = call.arguments or ""
        if raised is not None:
            detail, fix = f"{head} raised {raised[:80]} on call {i}'s body {body[:40]!r}", None
        elif not isinstance(answer, str) or _json(answer) is None:
            detail, fix = (f"{head} returns {str(answer)[:60]!r} for call {i}'s body {body.strip()[:40]!r} "
                           f"(partial=False): not JSON", None)
        elif answer != streamed:
            detail = (f"{head} is not prefix-stable: vLLM streamed {streamed[:40]!r} for call {i}, its final answer "
                      f"is {answer[:40]!r}; each partial=True answer must be a prefix of the final one")
            fix = "stream_arg_deltas = false  # the converter's answer is sent once, when the call ends"
        else:
            continue
        out.append({"kind": "converter_output", "call": i, "key": "arg_converter", **where,
                    "detail": detail, **({"fix": fix} if fix else {})})
    return out


def terminal_in_arguments_fix(fired: Fired) -> str:
    """A terminal fires wherever its text is, inside a JSON string too."""
    return (f'{fired.terminal} = "..."  # under [terminals]: {fired.value!r} fires wherever it is written, inside a '
            f"JSON string too; spell the whole marker, text the arguments never hold")
