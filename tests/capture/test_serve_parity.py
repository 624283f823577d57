"""Serve parity: the workbench's rows predict a real `vllm serve`'s SSE stream, chunk by chunk,
and its API faces predict the same server's /v1/responses and /v1/messages events.

One server per parser pair (tiny model, scripted tokens: hermes+qwen3, qwen3_coder+qwen3,
and gpt-oss's openai+openai_gptoss on a tiny GptOssForCausalLM), each serving all three
APIs. The first pair's server starts in the background when collection ends (conftest's
``pytest_collection_finish``), so it comes up while the tests before this module run; the later
pairs' servers start while the first pair's cases run. For each case the in-process engine runs the same
request and script (once per stream, shared by the APIs). Chat: the rows' chunks must equal
the server's (ids, timestamps, model names and tool-call ids aside), the joined stream what
the OpenAI SDK's own accumulator ends with, the non-streaming answer the server's; then
`workbench capture` + replay of the capture must reproduce the server's chunks. Responses
and Messages: the face's events must equal the server's (made-up ids and timestamps
masked), the SDK's final object and the non-streaming body too. make test runs the DEFAULT
cases (one for each branch the matrix drives), make test-slow all 51.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from tests.support.seed import SEED_TEXT, WEATHER_TOOLS
from workbench.capture.chunk_compare import normal
from workbench.core.parsers import ParserSpec
from workbench.core.request import RequestSpec, tool_choice_arg
from workbench.core.session import Session, Setup

# timing: the server paces its steps 20 ms apart so that no two outputs merge into one event;
# another busy process on the machine can stretch a step past that (make test runs these alone)
pytestmark = pytest.mark.serial

CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
CALL2 = '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo", "unit": "C"}}</tool_call>'
UNICODE = '<tool_call>{"name": "get_weather", "arguments": {"city": "Zürich 東京 🌧"}}</tool_call>'


def xml(city: str) -> str:
    return ("<tool_call>\n<function=get_weather>\n<parameter=city>\n" + city
            + "\n</parameter>\n</function>\n</tool_call>")


# (id, pair, text, request fields)
CASES = [
    ("content-then-call", "hermes", "<think>Need data.</think>Let me check.\n" + CALL, {}),
    ("parallel-calls", "hermes", "<think>Two.</think>" + CALL + "\n" + CALL2, {}),
    ("required", "hermes", "<think>Weather is needed.</think>" + CALL, {"tool_choice": "required"}),
    ("named", "hermes", "<think>Weather is needed.</think>" + CALL, {"tool_choice": "get_weather"}),
    ("tool-choice-none", "hermes", "<think>No tools.</think>" + CALL, {"tool_choice": "none"}),
    ("parallel-false", "hermes", "<think>Two.</think>" + CALL + "\n" + CALL2,
     {"parallel_tool_calls": False}),
    ("max-tokens-cut", "hermes", SEED_TEXT, {"max_tokens": 20}),
    ("unclosed-think", "hermes", "<think>Still thinking about the weather", {}),
    ("unicode-arguments", "hermes", "<think>Städte.</think>" + UNICODE, {}),
    ("grammar-rejection", "hermes", SEED_TEXT, {"tool_choice": "required"}),
    ("no-token-ids", "hermes", SEED_TEXT, {"return_token_ids": False}),
    ("coder-content-then-call", "qwen3_coder", "<think>Need data.</think>Checking.\n" + xml("Paris"), {}),
    ("coder-parallel", "qwen3_coder", "<think>Two.</think>" + xml("Paris") + "\n" + xml("Oslo"), {}),
    ("coder-unicode", "qwen3_coder", "<think>Städte.</think>" + xml("Zürich 東京 🌧"), {}),
    ("coder-max-tokens-cut", "qwen3_coder", "<think>x</think>" + xml("Paris"), {"max_tokens": 14}),
]


PACE_MS = 20  # the server's engine waits this long per step: no two outputs merge into one event


class Servers:
    """One real server per parser pair, each serving all three APIs. The cases run grouped by
    pair; once the first pair's server is up, the later pairs' servers start in the background
    while its cases run (a case mostly waits on the server's paced steps), so their start-up,
    ~40 s of imports each, overlaps the cases instead of adding to them. A pair's server stops
    when the next pair's cases begin."""

    PAIRS = {"hermes": ("hermes", "qwen3", "qwen3"), "qwen3_coder": ("qwen3_coder", "qwen3", "qwen3"),
             "gpt_oss": ("openai", "openai_gptoss", "gpt_oss")}

    def __init__(self, folder, pairs: list[str]) -> None:
        self.folder, self.pairs, self.current = folder, pairs, None
        self.launched: dict[str, object] = {}
        self.waited: dict[str, float] = {}

    def _launch(self, pair: str):
        from workbench.capture import serve

        if pair not in self.launched:
            tool, reasoning, tokenizer = self.PAIRS[pair]
            self.launched[pair] = serve.start(tool, reasoning, self.folder / f"{pair}.log",
                                              tokenizer=tokenizer, wait=False)
        return self.launched[pair]

    def get(self, pair: str):
        if self.current is None or self.current[0] != pair:
            self.stop()
            t0 = time.perf_counter()
            served = self._launch(pair).ready()
            self.waited[pair] = time.perf_counter() - t0
            print(f"\nvllm serve ({'+'.join(self.PAIRS[pair][:2])}) up in {served.start_s:.1f} s, "
                  f"of which the cases waited {self.waited[pair]:.1f} s")
            self.current = (pair, served)
            for later in self.pairs[self.pairs.index(pair) + 1:] if pair in self.pairs else ():
                self._launch(later)
        return self.current[1]

    def stop(self) -> None:
        if self.current is not None:
            self.current[1].stop()
            self.launched.pop(self.current[0], None)
            self.current = None

    def stop_all(self) -> None:
        self.stop()
        for served in self.launched.values():
            served.stop()
        self.launched.clear()


def _pair_of(item) -> str | None:
    params = getattr(getattr(item, "callspec", None), "params", {})
    if "case" not in params:
        return None
    return "gpt_oss" if params["api"] == "harmony" else params["case"][1]


EARLY: list[Servers] = []  # the one started when collection ended, if this module was selected


def _selected_pairs(items) -> list[str]:
    import sys

    here = sys.modules[__name__]
    return list(dict.fromkeys(p for p in (_pair_of(i) for i in items if getattr(i, "module", None) is here) if p))


def start_early(items) -> None:
    """Launch the first selected pair's server now (its logs in a folder of its own, removed
    with it); the ``servers`` fixture takes it over, ``stop_early`` stops it if no case ran."""
    pairs = _selected_pairs(items)
    if pairs and not EARLY:
        EARLY.append(Servers(Path(tempfile.mkdtemp(prefix="wbserve-")), pairs))
        EARLY[0]._launch(pairs[0])


def stop_early() -> None:
    while EARLY:
        s = EARLY.pop()
        s.stop_all()
        shutil.rmtree(s.folder, ignore_errors=True)


@pytest.fixture(scope="module")
def servers(tmp_path_factory, request):
    if EARLY:
        yield EARLY[0]
        stop_early()
        return
    s = Servers(tmp_path_factory.mktemp("serve"), _selected_pairs(request.session.items))
    yield s
    s.stop_all()


def spec_for(fields: dict) -> RequestSpec:
    spec = RequestSpec(tools=WEATHER_TOOLS, return_token_ids=fields.get("return_token_ids", True),
                       stream_options={"include_usage": True})
    for k in ("max_tokens", "parallel_tool_calls"):
        if k in fields:
            setattr(spec, k, fields[k])
    if "tool_choice" in fields:
        spec.tool_choice = tool_choice_arg(fields["tool_choice"])
    return spec


def body_for(spec: RequestSpec, model: str, script: list[int]) -> dict:
    body = {"model": model, "messages": spec.messages, "tools": spec.tools,
            "stream_options": spec.stream_options, "vllm_xargs": {"workbench_script": script}}
    if spec.return_token_ids:
        body["return_token_ids"] = True
    for k in ("tool_choice", "max_tokens", "parallel_tool_calls"):
        if getattr(spec, k) is not None:
            body[k] = getattr(spec, k)
    return body


def sse(url: str, body: dict) -> list[str]:
    import httpx

    out = []
    with httpx.stream("POST", url + "/chat/completions", json={**body, "stream": True}, timeout=120) as r:
        assert r.status_code == 200, r.read()
        for line in r.iter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                out.append(line[6:])
    return out


def sdk_final(chunks: list[str], tools) -> dict:
    """What the OpenAI SDK's own stream accumulator ends with."""
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    state = ChatCompletionStreamState(input_tools=tools)
    for c in chunks:
        obj = json.loads(c)
        if "error" in obj:
            return {"error": obj["error"]["message"]}
        state.handle_chunk(ChatCompletionChunk.model_validate(obj))
    choice = state.current_completion_snapshot.choices[0]  # (final() refuses "length")
    msg = choice.message
    return {"content": msg.content, "reasoning": getattr(msg, "reasoning", None),
            "tool_calls": [(tc.function.name, tc.function.arguments) for tc in msg.tool_calls or []],
            "finish_reason": choice.finish_reason}


def predict(session, result, chunks: list[str]):
    """The engine's rows, or, where the server folded several engine outputs into one chunk
    (its output collector merges them when the client lags), the same ids replayed in the
    server's grouping: the rows for that grouping are what must predict its chunks."""
    from workbench.core.deltas import deltas_from_ids

    groups = [json.loads(c)["choices"][0].get("token_ids") for c in chunks[1:]
              if json.loads(c).get("choices")]
    ids = list(result.token_ids)
    if None in groups or groups == [list(r.token_ids) for r in result.rows]:
        return result
    if result.finish_reason == "error":  # the rejected token's output became the error chunk
        groups.append(ids[sum(map(len, groups)):])
    assert [t for g in groups for t in g] == ids
    eos = session.tokenizer.eos_token_id
    deltas = list(deltas_from_ids(session.tokenizer, ids, session.prompt_ids, session.params, groups,
                                  finish_reason=result.finish_reason,
                                  stop_terminated=result.finish_reason == "stop" and ids[-1] == eos))
    return session.replay(deltas)


def ours_final(result) -> dict:
    s = result.stream
    if s["finish_reason"] == "error":
        return {"error": "Internal server error"}
    return {"content": s["content"], "reasoning": s["reasoning"],
            "tool_calls": [(c["name"], c["arguments"]) for c in s["tool_calls"]],
            "finish_reason": s["finish_reason"]}


class Engine:
    """The run's in-process engine, once per stream: a case's chat and API requests share its
    rows when the text, what constrains the engine (tool_choice's grammar, max_tokens) and
    return_token_ids (under it the server sends a chunk for every output) agree."""

    def __init__(self, stepper) -> None:
        self.stepper, self.runs = stepper, {}

    def run(self, session, text: str):
        r = session.request
        key = (session.setup.parser.tool_parser, text, repr(r.tool_choice), r.max_tokens, r.parallel_tool_calls,
               bool(getattr(r, "return_token_ids", False)),
               json.dumps(session.setup.request.chat_template_kwargs, sort_keys=True))
        if key not in self.runs:
            self.stepper.start(session, text)
            result = self.stepper.run()
            self.runs[key] = (result, list(self.stepper.script), list(self.stepper.deltas))
        return self.runs[key]


@pytest.fixture(scope="module")
def engine(engine_stepper):
    return Engine(engine_stepper)


def chat_case(servers, case, engine, tmp_path, run_cli, capsys):
    import httpx

    name, tool_parser, text, fields = case
    served = servers.get(tool_parser)
    spec = spec_for(fields)
    session = Session(Setup("qwen3", ParserSpec(tool_parser, "qwen3"), spec))
    result, script, _ = engine.run(session, text)
    body = body_for(spec, served.model, script)

    for attempt in range(3):
        chunks = sse(served.url, body)
        predicted = predict(session, result, chunks)
        ours = [c for r in predicted.rows for c in r.chunks]
        if spec.return_token_ids or [normal(c) for c in ours] == [normal(c) for c in chunks]:
            break
        # without token ids a chunk the server merged under load cannot be told apart: retry
    assert [normal(c) for c in ours] == [normal(c) for c in chunks]
    assert ours_final(predicted) == sdk_final(chunks, WEATHER_TOOLS)

    plain = {k: v for k, v in body.items() if k != "stream_options"}
    answer = httpx.post(served.url + "/chat/completions", json=plain, timeout=120).json()
    if result.finish_reason == "error":
        assert answer["error"]["code"] == 500
    else:
        ns, choice = result.nonstream, answer["choices"][0]
        assert (ns["reasoning"], ns["content"], ns["finish_reason"]) == (
            choice["message"]["reasoning"], choice["message"]["content"], choice["finish_reason"])
        assert [(c["name"], c["arguments"]) for c in ns["tool_calls"]] == [
            (c["function"]["name"], c["function"]["arguments"])
            for c in choice["message"].get("tool_calls") or []]
    assert result.token_ids  # the engine emitted tokens

    if spec.return_token_ids:  # capture, then replay the capture here
        req = tmp_path / "req.json"
        req.write_text(json.dumps({k: v for k, v in body.items() if k != "model"}))
        rec = tmp_path / "cap.jsonl"
        capsys.readouterr()  # the engine's start-up logs, not the command's output
        code, out, err = run_cli("capture", "--url", served.url, "--request", req, "-o", rec,
                                 "--tool-parser", tool_parser, "--reasoning-parser", "qwen3", "--json")
        assert code == (2 if result.finish_reason == "error" else 0), err
        assert json.loads(out)["origin"]["server_vllm_version"]
        code, out, err = run_cli("replay", rec, "--json")
        replayed = json.loads(out)["server"]
        assert replayed["first_difference"] is None, replayed["cause"]
        assert replayed["steps"] and all(step["same"] for step in replayed["steps"])


# -- the other API faces: /v1/responses and /v1/messages from the same servers -------------
# One line per case: (id, pair, text, request fields as for CASES, the APIs it runs on).
# "include_reasoning": False hides the reasoning on Responses; "thinking": "disabled" is
# Anthropic's (the template then closes the thinking in the prompt, so the text has none).
BOTH = ("responses", "messages")
API_CASES = [
    ("seed", "hermes", SEED_TEXT, {}, BOTH),
    ("content-then-call", "hermes", "<think>Need data.</think>Let me check.\n" + CALL, {}, BOTH),
    ("content-only", "hermes", "<think>Easy.</think>It is sunny in Paris.", {}, BOTH),
    ("two-calls", "hermes", "<think>Two.</think>" + CALL + "\n" + CALL2, {}, BOTH),
    ("content-between-calls", "hermes", "<think>Two.</think>" + CALL + "\nAnd Oslo:\n" + CALL2, {}, BOTH),
    ("required", "hermes", "<think>Weather is needed.</think>" + CALL, {"tool_choice": "required"}, BOTH),
    ("named", "hermes", "<think>Weather is needed.</think>" + CALL, {"tool_choice": "get_weather"}, BOTH),
    ("max-tokens-cut", "hermes", SEED_TEXT, {"max_tokens": 20}, BOTH),
    ("unclosed-think", "hermes", "<think>Still thinking about the weather", {}, BOTH),
    ("unicode-arguments", "hermes", "<think>Städte.</think>" + UNICODE, {}, BOTH),
    ("hidden-reasoning", "hermes", SEED_TEXT, {"include_reasoning": False}, ("responses",)),
    ("thinking-disabled", "hermes", "Checking.\n" + CALL, {"thinking": "disabled"}, ("messages",)),
    ("coder-seed", "qwen3_coder", "<think>Weather is needed.</think>\n\n" + xml("Paris"), {}, BOTH),
    ("coder-content-then-call", "qwen3_coder", "<think>Need data.</think>Checking.\n" + xml("Paris"), {}, BOTH),
    ("coder-two-calls", "qwen3_coder", "<think>Two.</think>" + xml("Paris") + "\n" + xml("Oslo"), {}, BOTH),
    ("coder-max-tokens-cut", "qwen3_coder", "<think>x</think>" + xml("Paris"), {"max_tokens": 14}, BOTH),
    ("coder-unicode", "qwen3_coder", "<think>Städte.</think>" + xml("Zürich 東京 🌧"), {}, BOTH),
]
# gpt-oss on /v1/responses: vLLM's Harmony path (the tiny model is a GptOssForCausalLM, whose
# model_type makes the server take it); the tokens are Harmony's own, one per engine step.
HARMONY_CASES = [
    ("gptoss-call", "seed", {}),
    ("gptoss-final", "final", {}),
    ("gptoss-preamble-unicode", "preamble", {}),
    ("gptoss-max-tokens-cut", "truncated", {"max_tokens": "all"}),
]


def api_body(api: str, spec: RequestSpec, model: str, script: list[int], fields: dict) -> dict:
    from workbench.core.faces import bodies
    from workbench.engine.scripted import PACE_KEY, SCRIPT_KEY

    body = {**bodies.body_of(api, spec), "model": model,
            "vllm_xargs": {SCRIPT_KEY: script, PACE_KEY: PACE_MS}}
    if fields.get("thinking"):
        body["thinking"] = {"type": fields["thinking"]}
    return body


def api_case(servers, case, api, engine, tmp_path, run_cli, capsys):
    """The workbench's events equal the server's in order, type and payload (made-up ids and
    timestamps masked); the SDK ends with the same object; the non-streaming bodies agree."""
    name, tool_parser, text, fields, _ = case
    served = servers.get(tool_parser)
    spec = spec_for({**fields, "return_token_ids": False})
    spec.stream_options = None
    if "include_reasoning" in fields:
        spec.include_reasoning = fields["include_reasoning"]
    parser = ParserSpec(tool_parser, "qwen3")
    shaped = Session(Setup("qwen3", parser, RequestSpec(), api=api,
                           api_request=api_body(api, spec, served.model, [], fields)))
    _, script, deltas = engine.run(Session(Setup("qwen3", parser, shaped.setup.request)), text)
    body = api_body(api, spec, served.model, script, fields)
    session = Session(Setup("qwen3", parser, RequestSpec(), api=api, api_request=body))
    theirs = assert_face_is_the_servers(session, deltas, served, api, body, name)
    if name in API_CAPTURED:
        capture_then_replay(served, api, body, tool_parser, theirs, tmp_path, run_cli, capsys)


# Captured with `workbench capture --api`, then replayed: Responses carries the token ids
# (enable_response_messages), so the replay's events must be the server's; Anthropic carries
# none, so the capture keeps the server's events exactly and says its ids are reconstructed.
API_CAPTURED = {"seed", "max-tokens-cut", "coder-seed", "content-between-calls"}


def capture_then_replay(served, api, body, tool_parser, theirs, tmp_path, run_cli, capsys):
    from workbench.capture import api_compare
    from workbench.core import recording
    from workbench.core.faces.mask import masked

    req = tmp_path / f"{api}.json"
    req.write_text(json.dumps({k: v for k, v in body.items() if k != "model"}))
    rec = tmp_path / f"{api}.jsonl"
    capsys.readouterr()
    code, out, err = run_cli("capture", "--api", api, "--url", served.url, "--request", req, "-o", rec,
                             "--tool-parser", tool_parser, "--reasoning-parser", "qwen3", "--json")
    assert code == 0, err
    origin = json.loads(out)["origin"]
    assert origin["token_ids"] == ("server" if api == "responses" else "reconstructed")
    kept = [e.obj for e in api_compare.stored(recording.load(rec))]
    if api == "messages":  # the capture asked for nothing more: the same request, the same events
        assert masked(kept) == masked(theirs)
    code, out, err = run_cli("replay", rec, "--json")
    server = json.loads(out)["server"]
    if api == "responses":
        assert server["first_difference"] is None, server["cause"]
        assert masked(server["client"]["server"]) == masked(server["client"]["here"])
    else:
        assert "token ids reconstructed" in (server["cause"] or "")


def harmony_case(servers, case):
    from tests.support.direct import HARMONY_TEXTS
    from workbench.core import vllm_compat as compat

    name, text_name, fields = case
    served = servers.get("gpt_oss")
    text = HARMONY_TEXTS[text_name]
    parser = ParserSpec("openai", "openai_gptoss")
    local = Session(Setup("gpt_oss", parser, RequestSpec(tools=WEATHER_TOOLS), api="responses"))
    cut = fields.get("max_tokens") == "all"
    deltas = local.deltas_from_text(text, finish_reason="length" if cut else "stop")
    script = [t for d in deltas for t in d.token_ids]
    spec = RequestSpec(tools=WEATHER_TOOLS, max_tokens=len(script) if cut else None)
    body = api_body("responses", spec, served.model, script, {})
    session = Session(Setup("gpt_oss", parser, RequestSpec(), api="responses", api_request=body))
    assert compat.is_harmony_class(session.parser_cls)  # the face takes vLLM's Harmony path too
    assert_face_is_the_servers(session, deltas, served, "responses", body, name)


def assert_face_is_the_servers(session, deltas, served, api, body, name):
    from tests.support import sdk_streams
    from workbench.core import faces
    from workbench.core.faces import clients
    from workbench.core.faces.mask import masked

    face = faces.run(session, session.replay(list(deltas)))
    read = sdk_streams.responses if api == "responses" else sdk_streams.messages
    for attempt in range(3):
        raw, sdk_object = read(served.url, body)
        theirs = sdk_streams.events_of(raw)
        if masked(face.events) == masked(theirs):
            break
    print(f"\n{name} on {api}: {len(theirs)} events, equal after {attempt + 1} request(s)")
    assert masked(face.events) == masked(theirs)
    if api == "responses":  # responses.create(stream=True) hands back events; ResponseStream accumulates
        assert sdk_object is not None and sdk_object["status"] == face.events[-1]["response"]["status"]
        sdk_object = clients.of_sse(api, raw, body.get("tools"))["object"]
    assert masked(face.client["object"]) == masked(sdk_object)
    assert masked(face.response) == masked(sdk_streams.nonstream(served.url, api, body))
    return theirs


# make test runs these 23 of the 51 (make test-slow all of them): a set of cases whose runs
# cover every branch that the 51 cover in workbench/ and in vLLM (in-process: its parsers, serving
# converters, detokenizer and engine), measured with coverage.py per case (branch arcs) and a greedy
# set cover; every other case drives only branches that these drive too, with other data.
DEFAULT = {
    "chat-content-then-call": "chat: rows -> SSE chunks, the SDK's accumulator, the non-streaming answer, capture + replay",
    "chat-required": "chat: tool_choice required (the engine's grammar, the serving policy's required branch)",
    "chat-parallel-false": "chat: parallel_tool_calls false (the serving layer's cut after the first call)",
    "chat-tool-choice-none": "chat: tool_choice none (no tool parser on the stream)",
    "chat-grammar-rejection": "chat: a script the grammar forbids (the error chunk, the 500 answer, capture exit 2)",
    "chat-parallel-calls": "chat: a second call's index",
    "chat-coder-content-then-call": "chat on qwen3_coder (its XML parser's streaming path)",
    "chat-coder-max-tokens-cut": "chat: max_tokens cutting a call (finish length, qwen3_coder's cut call)",
    "responses-seed": "Responses: reasoning item, whitespace message, function_call; capture --api + replay",
    "responses-named": "Responses: a named tool_choice (the request conversion, the named-function path)",
    "responses-required": "Responses: tool_choice required",
    "responses-max-tokens-cut": "Responses: an incomplete response (max_tokens cut)",
    "responses-hidden-reasoning": "Responses: include_reasoning false",
    "responses-coder-unicode": "Responses on qwen3_coder, multi-byte arguments held back by the detokenizer",
    "messages-seed": "Messages: thinking + signature, whitespace text block, tool_use; capture --api (ids reconstructed)",
    "messages-named": "Messages: a named tool_choice",
    "messages-required": "Messages: tool_choice any (required)",
    "messages-max-tokens-cut": "Messages: stop_reason max_tokens inside a call; capture + replay",
    "messages-thinking-disabled": "Messages: thinking disabled (the template closes the thinking in the prompt)",
    "messages-coder-seed": "Messages on qwen3_coder",
    "responses-gptoss-call": "gpt-oss on Responses: vLLM's Harmony path, analysis then a commentary call",
    "responses-gptoss-final": "gpt-oss: the final channel",
    "responses-gptoss-max-tokens-cut": "gpt-oss: a cut Harmony stream",
}
SLOW = pytest.mark.slow(reason="drives only branches that a DEFAULT case drives too (make test-slow runs it)")


def _items():
    """Every (api, case), grouped by parser pair so that each server starts once; the cases
    outside DEFAULT are marked slow."""
    out = []
    for pair in Servers.PAIRS:
        out += [("chat", c, f"chat-{c[0]}") for c in CASES if c[1] == pair]
        out += [(api, c, f"{api}-{c[0]}") for api in BOTH for c in API_CASES if c[1] == pair and api in c[4]]
        if pair == "gpt_oss":
            out += [("harmony", c, f"responses-{c[0]}") for c in HARMONY_CASES]
    return [pytest.param(api, c, id=name, marks=() if name in DEFAULT else SLOW) for api, c, name in out]


def test_default_cases_are_in_the_matrix():
    """A renamed case cannot drop out of make test unseen."""
    names = {p.id for p in _items()}
    assert set(DEFAULT) <= names and len(names) == 51


@pytest.mark.parametrize("api, case", _items())
def test_serve_parity(servers, engine, api, case, tmp_path, run_cli, capsys):
    if api == "chat":
        chat_case(servers, case, engine, tmp_path, run_cli, capsys)
    elif api == "harmony":
        harmony_case(servers, case)
    else:
        api_case(servers, case, api, engine, tmp_path, run_cli, capsys)
