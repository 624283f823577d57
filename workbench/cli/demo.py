"""`make demo`: the seed example on the embedded vLLM engine, step by step.

A tiny random-weight Qwen3 made for the real qwen3 tokenizer is forced (token
by token, by a logits processor) to write the seed text; each engine step's
output goes through vLLM's hermes + qwen3 parsers exactly as the server streams
it. The first run builds the tiny model and starts the engine (seconds).
"""

from __future__ import annotations

import sys
import time

SEED_TEXT = ('<think>Weather is needed.</think>\n\n<tool_call>{"name": "get_weather", '
             '"arguments": {"city": "Paris"}}</tool_call>')
TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]


def main() -> int:
    from workbench.cli import render
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup
    from workbench.engine import EngineStepper
    from workbench.core.writing import terminal
    from workbench.errors import WorkbenchError

    con = render.console()
    try:
        t0 = time.perf_counter()
        session = Session(Setup(tokenizer="qwen3", parser=ParserSpec("hermes", "qwen3"),
                                request=RequestSpec(tools=TOOLS)))
        stepper = EngineStepper()
        stepper.start(session, SEED_TEXT)
        con.print(f"engine up in {time.perf_counter() - t0:.1f} s ({stepper.origin()['model']}); "
                  "stepping the seed example:")
        steps = 0
        while not stepper.done:
            stepper.step()
            steps += 1
        result = stepper.result()
    except WorkbenchError as e:
        terminal.say("demo: error: {}", e, err=True)
        return e.exit_code
    con.print(render.rows_table(result.rows, title=f"{len(result.rows)} deltas from {steps} engine steps"))
    con.print(render.final_table(result.stream, result.nonstream))
    con.print(f"usage: {result.usage}")
    for note in result.notes:
        con.print(f"note: {note}")
    return 0 if not result.errors and result.stream["tool_calls"] else 1


if __name__ == "__main__":
    sys.exit(main())
