"""The finish_reason a client is told, against what the engine did: the doctor's serving
causes around a cut call, and a "tool_calls" that carries no call.

vLLM's serving layer relabels the engine's finish_reason: "tool_calls" once calls were
made (chat_completion_full_generator does it whatever the engine said; the stream only
over "stop"). When max_tokens cut the output inside a call, the stream ends with
"length" and the non-streaming answer can say "tool_calls" over a call whose cut
parameter the parser dropped: valid JSON, incomplete, and nothing tells that client so.
That relabel is the serving layer's, named beside the truncation itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.diagnosis.facts import Facts

SERVING_FILE = "vllm/entrypoints/openai/chat_completion/serving.py"
WHERE = {"stream": {"file": SERVING_FILE, "method": "chat_completion_stream_generator", "role": "serving"},
         "non-stream": {"file": SERVING_FILE, "method": "chat_completion_full_generator", "role": "serving"}}
ADVICE_CUT = ("streaming clients: treat finish_reason \"length\" as a call that is not complete and do not run it; "
              "non-streaming clients are told {told!r}: compare usage.completion_tokens with the request's "
              "max_tokens before running a call; both: raise max_tokens")


def _answers(facts: Facts) -> list[tuple[str, object]]:
    return [("stream", facts.stream), ("non-stream", facts.nonstream)]


def relabelled_cut(facts: Facts) -> list[tuple[str, str]]:
    """(mode, the finish_reason it says) for each mode that hides the engine's "length"."""
    if facts.finish != "length":
        return []
    return [(name, f.finish_reason) for name, f in _answers(facts) if f.finish_reason not in (None, "length")]


def cut_causes(facts: Facts, Cause: type) -> list:
    """Serving causes for a cut the finish_reason hides (one per mode that hides it)."""
    out = []
    for name, told in relabelled_cut(facts):
        calls = len(getattr(dict(_answers(facts))[name], "tool_calls", ()))
        out.append(Cause("serving", f"the {name} answer says finish_reason {told!r} although max_tokens cut the output "
                         f"(the engine's finish_reason is \"length\"): its client cannot tell that the "
                         f"{'call is' if calls == 1 else f'{calls} calls are' if calls else 'answer is'} incomplete",
                         [ADVICE_CUT.format(told=told),
                          "vLLM's serving layer relabels \"length\" as \"tool_calls\" when the parser returned calls"],
                         where=WHERE[name], findings=[{"kind": "stream_vs_nonstream", "field": "finish_reason"}]))
    return out


def empty_tool_calls(facts: Facts, Cause: type) -> list:
    """A mode that says "tool_calls" while it carries no call."""
    out = []
    for name, f in _answers(facts):
        if f.finish_reason == "tool_calls" and not f.tool_calls:
            out.append(Cause("serving", f"the {name} answer says finish_reason \"tool_calls\" and carries no call",
                             ["a client that runs the calls when finish_reason is \"tool_calls\" finds none; the "
                              "engine's finish_reason was " + repr(facts.finish)], where=WHERE[name]))
    return out


def cut_answers(facts: Facts) -> str:
    """What each mode answered over a cut call: its calls (arguments clipped) and finish_reason."""
    def one(name: str, f: object) -> str:
        calls = ", ".join(f"{c.name}({(c.arguments or '')[:40]!r}{'…' if len(c.arguments or '') > 40 else ''})"
                          for c in f.tool_calls) or "no call"
        return f"{name}: {calls}, finish_reason {f.finish_reason!r}"
    return "; ".join(one(n, f) for n, f in (("stream", facts.stream), ("non-stream", facts.nonstream)))
