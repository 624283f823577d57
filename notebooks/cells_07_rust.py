"""The cells of notebooks/07_python_and_rust.ipynb (written by notebooks/build.py)."""

from cells_check import CHECK_MD, CHECK_TAIL

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
import json

import pandas as pd
import workbench

pd.set_option("display.max_colwidth", 60)  # a long value cut at 60 characters: the tables fit a laptop
TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
SEED = ('<think>Weather is needed.</think>\\n\\n<tool_call>{"name": "get_weather", '
        '"arguments": {"city": "Paris"}}</tool_call>')

seed = workbench.side_by_side(SEED, tool_parser="hermes", reasoning_parser="qwen3", tools=TOOLS)


def short(value):
    \"\"\"A tool_calls value as name(arguments), the (made-up) ids left out; anything else as it is.\"\"\"
    if isinstance(value, str) and value.startswith("[{"):
        return "; ".join(f"{c['name']}({c['arguments']})" for c in json.loads(value))
    return value


def answers(frame):
    \"\"\"finals() with its tool calls written short.\"\"\"
    return frame.assign(**{side: pd.Series([short(v) for v in frame[side]], index=frame.index,
                                           dtype=object)
                           for side in ("python", "rust")})


seed"""),
    ("md", """**The seed, delta by delta.** `python` is what vLLM's Python parsers sent for each
delta, `rust` what vllm-rs sent, and `rust_sse` its SSE events exactly as written (the
role chunk goes with the first delta, `[DONE]` with the last). A blank cell: no chunk for
that delta. vllm-rs holds the whole tool-call header back until the arguments start, then
sends the name and the first arguments as two chunks of one delta."""),
    ("code", """workbench.table(seed.frame()[["step", "text", "python", "rust", "differs"]])"""),
    ("md", """`rust_sse` holds the raw SSE text; step 19's two chunks, in full:"""),
    ("code", """print("\\n".join(seed.frame().rust_sse[18]))"""),
    ("md", """**Where they part.** Three steps differ:

- **Step 7, the `"\\n\\n"`.** Between `</think>` and `<tool_call>` the model wrote two
  newlines. Python's hermes streams them as `content`; vllm-rs's hermes drops them. *Which is
  right:* **Rust**. Both non-streaming answers drop them (Python's in
  `DelegatingParser._extract_tool_calls`, `vllm/parser/abstract_parser.py`, which sets a
  whitespace-only content to `None` once a call is found), so only a streaming client of the
  Python server holds the two newlines. And the format says they are not content: the Qwen3 chat
  template writes a turn as `<think>\\n…\\n</think>\\n\\n` + content, and strips leading
  newlines from the content it renders: the `"\\n\\n"` is the template's separator.
- **Steps 15 and 19, when the name arrives.** Python sends the call's name as soon as it is
  whole (step 15); vllm-rs holds it until the arguments start (step 19). *Which is right:*
  **both**. The joined calls are the same, and equal the non-streaming answer; the format
  says nothing about when a client may learn the name. Python's client learns it 4 steps sooner.

(vLLM 0.34's Python parsers do the same as 0.32's: `workbench check --vllm 0.34.0
--frontend rust` finds the step-7 difference too.)"""),
    ("code", """workbench.table(seed.frame(changed=True)[["step", "text", "python", "rust", "differs"]])"""),
    ("md", """The Python side in the widget: step 7 is the `content` delta vllm-rs never sends."""),
    ("code", """wb = workbench.show(SEED, tool_parser="hermes", reasoning_parser="qwen3", tools=TOOLS, run=True)
wb.rows[6].delta"""),
    ("md", """What each side's client ends with (`stream`) and each side's non-streaming answer
(`nonstream`), field by field:"""),
    ("code", """workbench.table(answers(seed.finals()))"""),
    ("md", """**Cut by `max_tokens` inside the call.** The Rust parsers' non-streaming answer is
their stream plus a final flush, so the two modes cannot disagree by design. Python's do:
its stream has the (cut) call, its non-streaming answer leaves the whole call in
`content`.

*Which is right:* by the **non-streaming answer**, Rust agrees with itself and Python does not.
By the **format**, Python's non-streaming answer: a Hermes call is the JSON between
`<tool_call>` and `</tool_call>`, and here neither the JSON nor the tag is closed, so there is no
call; Hermes's `extract_tool_calls` cannot parse the cut JSON and returns the whole text as
content, which `DelegatingParser._extract_tool_calls` keeps (for a legacy parser, the raw text). Rust answers with a call whose
arguments, `{"cit`, are not JSON. Both streams have already sent that partial call: only
`finish_reason: "length"` tells their clients it is cut."""),
    ("code", """cut = workbench.side_by_side(SEED[:-25], tool_parser="hermes", reasoning_parser="qwen3", tools=TOOLS,
                            finish_reason="length")
workbench.table(answers(cut.finals().query("field in ['content', 'tool_calls']")))"""),
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
pairs = {name: workbench.side_by_side(text, tokenizer=tok, tool_parser=tool, reasoning_parser=reasoning,
                                      tools=TOOLS)
         for name, (tok, tool, reasoning, text) in CASES.items()}


def differs(s, mode):
    return ", ".join(r.field for r in s.finals().itertuples() if not r.same and r.mode == mode)


workbench.table(pd.DataFrame([{"pair": name, "first step": s.first_step,
                               "stream differs in": differs(s, "stream"),
                               "nonstream differs in": differs(s, "nonstream")}
                              for name, s in pairs.items()]))"""),
    ("md", """**Which is right, pair by pair** (`answers(pairs[name].finals())` shows each):

- **qwen3_coder + qwen3**: the arguments are `{"city": "Paris"}` in Python (`json.dumps`'s
  spacing) and `{"city":"Paris"}` in vllm-rs, in the stream and in the non-streaming answer
  alike. The format writes parameters as XML (`<parameter=city>\\nParis\\n</parameter>`); the
  JSON is each frontend's own writing of them, and both are the same JSON value. *Right:* **both**.
  Python streams the call piece by piece from step 13, vllm-rs sends it whole at `</tool_call>`
  (step 27); Python's joined `content` is `""` where the answer says `null`: nothing to show either way.
- **deepseek_v3, text after the call**: Python streams `"Checking now."` as content; vllm-rs
  drops it, and so do both non-streaming answers. DeepSeek V3's chat template puts a message's
  content before its calls and ends the turn with `<｜tool▁calls▁end｜><｜end▁of▁sentence｜>`:
  text after the calls has no field. *Right:* **Rust** (the non-streaming answer and the format).
- **kimi_k2, no `<think>`**: Python puts `"Let me check."` in `reasoning`, vllm-rs in
  `content`, each side the same in both modes. vLLM's Python `KimiK2Parser` (`vllm/parser/kimi_k2.py`,
  `kimi_k2_config`) starts in its reasoning state when thinking is on, its default (a request
  with `chat_template_kwargs={"thinking": false}` starts it in content). The chat template here
  (a minimal Kimi-K2-style one the workbench ships: Moonshot's is not in the tokenizer's wheel)
  ends the generation prompt at `<|im_middle|>` and lets the model open `<think>` itself, so text
  before any `<think>` is content. *Right, by this template:* **Rust**."""),
    ("code", """workbench.table(answers(pairs["kimi_k2 (no <think>)"].finals().query("not same")))"""),
    ("md", """**From the command line.** The same comparisons, and a Rust-frontend server's own
capture:

```
workbench replay --text "$SEED" --tools tools.json \\
    --tool-parser hermes --reasoning-parser qwen3 --frontend rust
workbench diff --text "$SEED" --tools tools.json --a hermes+qwen3 --b hermes+qwen3@rust
workbench check --text "$SEED" --tools tools.json \\
    --tool-parser hermes --reasoning-parser qwen3 --frontend rust
```

A capture from a server started with `VLLM_USE_RUST_FRONTEND=1` says so in its header
(`server_frontend: "vllm-rs 0.34.0"`, from the server's `/version`), and `workbench replay`
then replays it on vllm-rs by default. vllm-rs 0.34.0 answers `/v1/messages` with 501
(not supported by the Rust frontend yet): its Anthropic rows say so."""),    CHECK_MD,
    ("code", """# Check yourself
# 1. At which step do the seed's two implementations part?
# 2. On the seed, whose stream content equals the non-streaming content?
# 3. Cut by max_tokens: whose stream tool_calls equal that side's own non-streaming tool_calls?
# 4. qwen3_coder: do the two sides' arguments hold the same JSON value?
# 5. kimi_k2: in which field does each side put "Let me check."?
def value(side_by_side, mode, field, side):
    f = side_by_side.finals()
    return f[(f["mode"] == mode) & (f["field"] == field)][side].iloc[0]


def agrees(side_by_side, field, side):
    return value(side_by_side, "stream", field, side) == value(side_by_side, "nonstream", field, side)


coder = pairs["qwen3_coder + qwen3"]
kimi = pairs["kimi_k2 (no <think>)"]
ANSWERS = {
    "1. the seed parts at step": (seed.first_step, 7),
    "2. seed: stream content = non-streaming content": (
        [side for side in ("python", "rust") if agrees(seed, "content", side)], ["rust"]),
    "3. cut: stream tool_calls = its own non-streaming tool_calls": (
        [side for side in ("python", "rust") if agrees(cut, "tool_calls", side)], ["rust"]),
    "4. qwen3_coder: the same JSON arguments": (
        json.loads(json.loads(value(coder, "nonstream", "tool_calls", "python"))[0]["arguments"])
        == json.loads(json.loads(value(coder, "nonstream", "tool_calls", "rust"))[0]["arguments"]), True),
    "5. kimi_k2: python's field, rust's field": (
        tuple(next(field for field in ("reasoning", "content")
                   if value(kimi, "stream", field, side) == "Let me check.")
              for side in ("python", "rust")), ("reasoning", "content")),
}""" + CHECK_TAIL),
]
