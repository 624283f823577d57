"""The cells of notebooks/06_one_stream_three_apis.ipynb (written by notebooks/build.py)."""

from cells_check import CHECK_MD, CHECK_TAIL

APIS = [
    ("md", """# 06 · One stream, three APIs

vLLM serves one composed parser behind three APIs, and each API turns the parser's
`DeltaMessage`s into events of its own:

- **Chat Completions** (`/v1/chat/completions`): most OpenAI clients;
- the **Responses API** (`/v1/responses`): Codex, the OpenAI Agents SDK;
- **Anthropic Messages** (`/v1/messages`): Claude Code.

The same tokens, the same parser, three streams. Here is the seed stream
(`<think>Weather is needed.</think>`, then `"\\n\\n"`, then a Hermes tool call) read by each.
`workbench.faces(wb)` replays the widget's stream once per API, each with its request
written in that API's shape and converted by vLLM's own code, and the events come from
vLLM's own event builders (`SimpleStreamingEventProcessor`, `message_stream_converter`).
`tests/capture/test_serve_parity.py` checks them against a real `vllm serve`.
`apis.table(api)` shows an API's events in the widget's own table (resize a column by its
header's edge, j/k, Ctrl+C copies rows); `apis.events(api)` is the same as a DataFrame."""),
    ("code", """import os

os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")  # keep vLLM's start-up log out of the cells
import workbench

TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
SEED = ('<think>Weather is needed.</think>\\n\\n<tool_call>{"name": "get_weather", '
        '"arguments": {"city": "Paris"}}</tool_call>')

wb = workbench.show(SEED, tool_parser="hermes", reasoning_parser="qwen3", tools=TOOLS, run=True)
apis = workbench.faces(wb)"""),
    ("md", """**Chat Completions**: one SSE chunk per delta (plus the opening role chunk and the
usage chunk), each carrying a piece of `reasoning`, `content` or a tool call's arguments."""),
    ("code", """apis.table("chat")"""),
    ("md", """**Responses**: items instead of chunks. The reasoning is a `reasoning` item; text is a
`message` item; a tool call is a `function_call` item whose arguments stream as
`response.function_call_arguments.delta`. Every item is opened (`output_item.added`),
streamed, and closed (`.done` events) before the next one starts, and
`response.completed` carries the whole response at the end."""),
    ("code", """apis.table("responses")"""),
    ("md", """**Anthropic Messages**: content blocks. `thinking` (closed with a `signature_delta`),
`text`, `tool_use` with `input_json_delta`s; `message_delta` says `stop_reason: tool_use`.

**The `signature_delta` (event 7, sent at step 7).** A thinking block is closed when the next
block starts: here at step 7, where the `"\\n\\n"` opens a text block. Just before its
`content_block_stop`, vLLM sends one `signature_delta`
(`AnthropicServingMessages.message_stream_converter`, its `stop_active_block`, in
`vllm/entrypoints/anthropic/serving.py`). On Anthropic's own API a thinking block's signature
is how the server later recognises a block a client hands back in the next turn. vLLM has
nothing to sign with: the signature is `uuid.uuid4().hex`, 32 random hex digits drawn when the
block starts, new on every run, and nothing in vLLM's Messages request conversion reads it
back. It is there so that clients which expect a signed thinking block (Claude Code) accept
the stream."""),
    ("code", """apis.table("messages")"""),
    ("md", """**Where the `"\\n\\n"` lands.** Between `</think>` and `<tool_call>` the model wrote two
newlines. The parser sends them as `content`, and each API carries them its own way:
a chat `content` delta, a whole Responses `message` item holding only whitespace, an
Anthropic `text` block holding only whitespace."""),
    ("code", """{api: list(apis.events(api).query("text == '\\\\n\\\\n'").event) for api in ("chat", "responses", "messages")}"""),
    ("md", """**What each client ends with.** `stream` is what the official SDK's accumulator holds
after reading the stream (the `openai` and `anthropic` packages, fed the predicted SSE
in-process); `nonstream` is the same request with `stream: false`. The non-streaming
answer has no content, the stream does: Claude Code shows an empty-looking text block,
a Responses client an empty message (`whitespace_only_text`). The widget's final tab shows
the same side by side, and its API picker (beside the parser pickers) shows each row's
events on the API picked."""),
    ("code", """apis.finals_table()"""),
    ("md", """**Your turn.** Take the `"\\n\\n"` out of the stream and read it on every API again:

```python
TIGHT = SEED.replace("</think>\\n\\n", "</think>")
tight = workbench.faces(workbench.show(TIGHT, tool_parser="hermes", reasoning_parser="qwen3",
                                      tools=TOOLS, run=True))
tight.events("messages").query("event == 'content_block_start'")
```

Before you run it, predict: which content blocks does the Messages stream open now, and does
any client still end with a whitespace-only text (`whitespace_only_text` in `finals()`)? The
*Check yourself* cell at the end computes both, for the seed and for `TIGHT`."""),
    ("md", """**gpt-oss on Responses takes another path.** For a Harmony model vLLM's Responses
server does not run `parse_delta` at all: it feeds the token ids to a `HarmonyContext`
and emits events per Harmony message and channel (`_process_harmony_streaming_events`).
The `analysis` channel becomes a reasoning item, `commentary to=functions.get_weather`
a function call."""),
    ("code", """HARMONY = ('<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant'
           '<|channel|>commentary to=functions.get_weather <|constrain|>json'
           '<|message|>{"city": "Paris"}<|call|>')
gpt = workbench.show(HARMONY, tokenizer="gpt_oss", tool_parser="openai", reasoning_parser="openai_gptoss",
                     tools=TOOLS, run=True)
harmony = workbench.faces(gpt)
harmony.events("responses")[["step", "event", "payload"]]"""),
    ("md", """Each row's Harmony channel (and recipient), as the Responses face read it:"""),
    ("code", """read = zip(gpt.rows, harmony.face("responses").channels)
[(row.step, channels) for row, channels in read if channels][:12]"""),
    ("md", """What each client ends with on the Harmony stream (the `blocks` and `verdict` columns of
`finals()` are long: `harmony.finals_table()` shows them whole, wrapped):"""),
    ("code", """workbench.table(harmony.finals()[["api", "mode", "reasoning", "content", "tool_calls", "finish"]])"""),
    CHECK_MD,
    ("code", """# Check yourself
# 1. Which Messages event carries the signature, and at which step is it sent?
# 2. Which content blocks does the seed's Messages stream open?
# 3. Your turn: without the "\\n\\n", which blocks, and does any client still hold only whitespace?
# 4. On the Harmony stream, at which step does the Responses function_call item open?
def blocks(faces):
    return list(faces.events("messages").query("event == 'content_block_start'").payload)


messages = apis.events("messages")
signature = messages[messages.payload.str.startswith("signature_delta")].iloc[0]
tight_wb = workbench.Workbench(SEED.replace("</think>\\n\\n", "</think>"), tool_parser="hermes",
                              reasoning_parser="qwen3", tools=TOOLS)   # not shown: your turn's stream
tight_wb.run()
tight = workbench.faces(tight_wb)
opened = harmony.events("responses").query("event == 'response.output_item.added'")
ANSWERS = {
    "1. the signature_delta: event n, step": ((int(signature.n), int(signature.step)), (7, 7)),
    "2. the seed's Messages blocks": (blocks(apis), ["thinking", "text", "tool_use get_weather"]),
    "3. without the two newlines: blocks, any whitespace-only text": (
        (blocks(tight), bool(tight.finals().whitespace_only_text.any())),
        (["thinking", "tool_use get_weather"], False)),
    "4. Harmony: the function_call item opens at step": (
        int(opened[opened.payload.str.startswith("function_call")].step.iloc[0]), 23),
}""" + CHECK_TAIL),
]
