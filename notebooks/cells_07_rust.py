"""The cells of notebooks/07_python_and_rust.ipynb (written by notebooks/build.py)."""

RUST = [
    ("md", """# 07 · One stream, two implementations: Python and Rust

Since 0.33 the official `vllm` wheel ships a second serving path, `vllm-rs`: with
`VLLM_USE_RUST_FRONTEND=1`, `vllm serve` hands HTTP to this Rust binary, and requests are
parsed by **its own Rust tool and reasoning parsers**, not by the Python classes the other
notebooks replay. A bug seen on such a server is not reproduced by `parse_delta`.

The workbench runs the real binary (extracted from the locked wheel, hash-checked) as
`vllm serve` starts it, with a *scripted engine core* in place of the model: the core
speaks vLLM's engine-core protocol, answers the frontend's engine request with the same
token ids the Python side gets, one engine output per delta, and reads back exactly what
the frontend streams for each. Nothing of a Rust parser is re-implemented: a Rust row says
only what the binary's SSE said. CPU only, no weights, no network."""),
    ("code", """import os

os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")  # keep vLLM's start-up log out of the cells
import pandas as pd
import workbench

pd.set_option("display.max_colwidth", 80)
TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
SEED = ('<think>Weather is needed.</think>\\n\\n<tool_call>{"name": "get_weather", '
        '"arguments": {"city": "Paris"}}</tool_call>')

seed = workbench.side_by_side(SEED, tool_parser="hermes", reasoning_parser="qwen3", tools=TOOLS)
seed"""),
    ("md", """**The seed, delta by delta.** `python` is what vLLM's Python parsers sent for each
delta, `rust` what vllm-rs sent, and `rust_sse` its SSE events exactly as written (the
role chunk goes with the first delta, `[DONE]` with the last). A blank cell: no chunk for
that delta. vllm-rs holds the whole tool-call header back until the arguments start, then
sends the name and the first arguments as two chunks of one delta."""),
    ("code", """seed.frame()"""),
    ("md", """**Where they part.** Between `</think>` and `<tool_call>` the model wrote `"\\n\\n"`.
Python's hermes streams it as `content`; vllm-rs's hermes drops it. Both non-streaming
answers drop it, so only a streaming client of the Python server holds the two newlines.
(vLLM 0.34's Python parsers do the same as 0.32's: `workbench check --vllm 0.34.0
--frontend rust` finds this one difference too.)"""),
    ("code", """seed.frame(changed=True)"""),
    ("md", """The Python side in the widget: step 7 is the `content` delta vllm-rs never sends."""),
    ("code", """wb = workbench.show(SEED, tool_parser="hermes", reasoning_parser="qwen3", tools=TOOLS, run=True)
wb"""),
    ("code", """seed.finals()"""),
    ("md", """**Cut by `max_tokens` inside the call.** The Rust parsers' non-streaming answer is
their stream plus a final flush, so the two modes cannot disagree by design. Python's do:
its stream has the (cut) call, its non-streaming answer leaves the whole call in
`content`."""),
    ("code", """cut = workbench.side_by_side(SEED[:-25], tool_parser="hermes", reasoning_parser="qwen3", tools=TOOLS,
                            finish_reason="length")
cut.finals().query("field in ['content', 'tool_calls']")"""),
    ("md", """**A few parser pairs.** Each on its own tokenizer (the frontend starts once per
tokenizer and parser pair, in a few seconds), the first step where the two implementations
part and the answer fields that differ."""),
    ("code", """CASES = {
    "qwen3_coder + qwen3": ("qwen3", "qwen3_coder", "qwen3",
        "<think>Need weather.</think>\\n\\n<tool_call>\\n<function=get_weather>\\n<parameter=city>\\nParis\\n"
        "</parameter>\\n</function>\\n</tool_call>"),
    "deepseek_v3 (text after the call)": ("deepseek_v3", "deepseek_v3", None,
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\\n```json\\n"
        "{\\"city\\": \\"Paris\\"}\\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>Checking now."),
    "kimi_k2 (no <think>)": ("kimi_k2", "kimi_k2", "kimi_k2",
        "Let me check.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
        "<|tool_call_argument_begin|>{\\"city\\": \\"Paris\\"}<|tool_call_end|><|tool_calls_section_end|>"),
}
pairs = {name: workbench.side_by_side(text, tokenizer=tok, tool_parser=tool, reasoning_parser=reasoning, tools=TOOLS)
         for name, (tok, tool, reasoning, text) in CASES.items()}
pd.DataFrame([{"pair": name, "first step": s.first_step,
               "answers differ in": ", ".join(f"{r.mode} {r.field}" for r in s.finals().itertuples() if not r.same)}
              for name, s in pairs.items()])"""),
    ("code", """pairs["kimi_k2 (no <think>)"].finals().query("not same")"""),
    ("md", """**From the command line.** The same comparisons, and a Rust-frontend server's own
capture:

```
workbench replay --text "$SEED" --tools tools.json --tool-parser hermes --reasoning-parser qwen3 --frontend rust
workbench diff   --text "$SEED" --tools tools.json --a hermes+qwen3 --b hermes+qwen3@rust
workbench check  --text "$SEED" --tools tools.json --tool-parser hermes --reasoning-parser qwen3 --frontend rust
```

A capture from a server started with `VLLM_USE_RUST_FRONTEND=1` says so in its header
(`server_frontend: "vllm-rs 0.34.0"`, from the server's `/version`), and `workbench replay`
then replays it on vllm-rs by default. vllm-rs 0.34.0 answers `/v1/messages` with 501
(not supported by the Rust frontend yet): its Anthropic rows say so."""),
]
