"""The API faces (workbench/core/faces/): one stream as a Responses and an Anthropic client
reads it. Checked here against direct calls of vLLM's own converters and the SDKs; the
real servers' streams are compared in tests/capture/test_serve_parity.py."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.support.seed import SEED_TEXT, WEATHER_TOOLS
from workbench.core import faces
from workbench.core.faces import bodies, finals, mask
from workbench.core.parsers import ParserSpec
from workbench.core.request import RequestSpec
from workbench.core.session import Session, Setup


def session_for(api: str, body: dict | None = None, tool_parser: str = "hermes", **spec) -> Session:
    return Session(Setup("qwen3", ParserSpec(tool_parser, "qwen3"), RequestSpec(tools=WEATHER_TOOLS, **spec),
                         api=api, api_request=body))


@pytest.fixture(scope="module")
def seed():
    """api -> (session, result, face) for the seed text."""
    out = {}
    for api in ("responses", "messages"):
        s = session_for(api)
        r = s.replay(s.deltas_from_text(SEED_TEXT))
        out[api] = (s, r, faces.run(s, r))
    return out


def test_each_row_owns_a_slice_of_the_events_in_order(seed):
    for api, (s, r, face) in seed.items():
        assert len(face.spans) == len(r.rows)
        assert [e for i in range(len(r.rows)) for e in face.row_events(i)] == face.events
        first, last = face.events[0]["type"], face.events[-1]["type"]
        assert (first, last) == {"responses": ("response.created", "response.completed"),
                                 "messages": ("message_start", "message_stop")}[api]
        assert face.row_events(0)[0] is face.events[0] and face.row_events(len(r.rows) - 1)[-1] is face.events[-1]


def test_message_events_are_vllms_converter_over_the_chat_chunks(seed):
    """The in-process stepping gives exactly what vLLM's async generator yields on an event
    loop over the same chat stream."""
    from workbench.core import vllm_compat as compat
    from workbench.core.faces.anthropic import chat_chunks

    s, r, face = seed["messages"]

    async def collect():
        async def source():
            for _, item in compat.anthropic_stream_items(chat_chunks(s, r)):
                yield item
        return [e async for e in compat.anthropic_serving().message_stream_converter(None, source())]

    direct = [json.loads(e.split("data: ", 1)[1]) for e in asyncio.run(collect())]
    assert mask.masked(face.events) == mask.masked(direct)  # the thinking signature is random
    # the "\n\n" delta (step 7) opens a text block holding only whitespace
    row = next(i for i, row in enumerate(r.rows) if row.text == "\n\n")
    kinds = [(e["type"], (e.get("delta") or e.get("content_block") or {}).get("type")) for e in face.row_events(row)]
    assert kinds == [("content_block_delta", "signature_delta"), ("content_block_stop", None),
                     ("content_block_start", "text"), ("content_block_delta", "text_delta")]


def test_responses_items_carry_what_the_parser_returned(seed):
    s, r, face = seed["responses"]
    parser_cls = s.parser_cls
    parser = parser_cls(s.tokenizer, s.request.tools, chat_template_kwargs={}, model_config=None)
    parser.set_prompt_token_ids(s.prompt_ids)
    reasoning, content, calls = parser.parse(r.text, s.request, enable_auto_tools=True,
                                             model_output_token_ids=r.token_ids)

    def joined(kind):
        return "".join(e["delta"] for e in face.events if e["type"] == kind)

    assert joined("response.reasoning_text.delta") == reasoning == "Weather is needed."
    assert joined("response.output_text.delta") == "\n\n"  # streamed, though parse gives no content
    assert content is None or not content.strip()
    done = [e for e in face.events if e["type"] == "response.function_call_arguments.done"]
    assert [(d["name"], json.loads(d["arguments"])) for d in done] == [
        (c.name, json.loads(c.arguments)) for c in calls]
    assert [e["sequence_number"] for e in face.events] == list(range(len(face.events)))
    # the non-streaming body has no message item: the "\n\n" reaches only streaming clients
    assert [b["kind"] for b in finals.blocks("responses", face.response)] == ["reasoning", "tool"]


def test_the_sdks_end_with_the_streams_objects(seed):
    s, r, face = seed["responses"]
    completed = face.events[-1]["response"]
    client = face.client["object"]
    assert [b for b in finals.blocks("responses", client)] == finals.blocks("responses", completed)
    assert mask.masked(client["output"])[0]["id"] == "<id#1>"
    s, r, face = seed["messages"]
    message = face.client["object"]
    assert [b["kind"] for b in finals.blocks("messages", message)] == ["reasoning", "text", "tool"]
    assert finals.whitespace_blocks("messages", message) == [1]
    assert message["stop_reason"] == "tool_use" and message["usage"]["input_tokens"] == len(s.prompt_ids)
    assert [b["kind"] for b in finals.blocks("messages", face.response)] == ["reasoning", "tool"]


def test_flags_and_api_bodies_render_the_same_prompt():
    """--messages/--tools become each API's body; vLLM's converters render it as the body
    written by hand (Responses: construct_input_messages; Anthropic: to_chat_completion_request)."""
    chat = session_for("chat")
    tool = WEATHER_TOOLS[0]["function"]
    hand = {"responses": {"input": "What is the weather in Paris?", "tools": [{"type": "function", **tool}]},
            "messages": {"max_tokens": 64, "messages": [{"role": "user", "content": "What is the weather in Paris?"}],
                         "tools": [{"name": tool["name"], "description": tool["description"],
                                    "input_schema": tool["parameters"]}]}}
    for api, body in hand.items():
        converted = session_for(api)
        assert converted.setup.api_request == bodies.body_of(api, chat.setup.request)
        assert converted.prompt_ids == session_for(api, body).prompt_ids == chat.prompt_ids


def test_anthropic_system_and_history_go_through_vllms_converter():
    body = {"max_tokens": 64, "system": [{"type": "text", "text": "Be brief."}],
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Weather?"}]},
                         {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "get_weather",
                                                            "input": {"city": "Paris"}}]},
                         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                                       "content": "sunny"}]}]}
    s = session_for("messages", body)
    roles = [m["role"] for m in s.setup.request.messages]
    assert roles == ["system", "user", "assistant", "tool"]
    assert s.setup.request.messages[0]["content"] == "Be brief."
    assert s.tokenizer.decode(s.prompt_ids).count("sunny") == 1


def test_cli_json_has_the_events_the_body_and_the_client(run_cli, tools_file):
    code, out, err = run_cli("replay", "--text", SEED_TEXT, "--tool-parser", "hermes", "--reasoning-parser",
                             "qwen3", "--tools", tools_file, "--api", "messages", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["api"] == "messages" and d["events"][0]["type"] == "message_start"
    assert [e for row in d["rows"] for e in row["api_events"]] == d["events"]
    assert d["response"]["stop_reason"] == "tool_use" and d["client"]["object"]["stop_reason"] == "tool_use"
    code, out, _ = run_cli("replay", "--text", SEED_TEXT, "--tools", tools_file, "--json")
    assert json.loads(out)["api"] == "chat" and "events" not in json.loads(out)


def test_bad_api_requests_are_one_line(run_cli, tmp_path, tools_file):
    req = tmp_path / "req.json"
    req.write_text("[1, 2]")
    code, _, err = run_cli("replay", "--text", "hi", "--api", "responses", "--request", req)
    assert code == 2 and err.count("\n") == 1 and "expected a JSON object" in err
    req.write_text(json.dumps({"input": "hi"}))
    code, _, err = run_cli("replay", "--text", "hi", "--api", "responses", "--request", req, "--tools", tools_file)
    assert code == 2 and err.count("\n") == 1 and "--tools" in err
    req.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}))  # Anthropic needs max_tokens
    code, _, err = run_cli("replay", "--text", "hi", "--api", "messages", "--request", req)
    assert code == 2 and err.count("\n") == 1 and "max_tokens" in err


def test_check_holds_each_api_to_its_client_contract(seed):
    from workbench.check import Options, check

    for api in ("responses", "messages"):
        s, r, _ = seed[api]
        report = check(s, s.deltas_from_text(SEED_TEXT), Options(fuzz=3, jobs=1, cost=False, text_budget_s=0))
        found = {(f.kind, f.field, f.severity) for f in report.findings}
        assert found == {("contract", "content", "cosmetic"), ("stream_vs_nonstream", "content", "cosmetic")}, found
        assert report.consistent and report.checked["groupings"] > 3
        ws = next(f for f in report.findings if f.kind == "contract")
        assert ws.first_step == 7 and "only whitespace" in ws.detail and ws.detail.startswith(api)


def _broken(face, drop_type: str):
    events = [e for e in face.events if e["type"] != drop_type]
    return face.with_events(events, [(0, len(events))] + [(len(events), len(events))] * (len(face.spans) - 1))


def test_the_contract_rules_catch_broken_streams(seed):
    from workbench.check import api_faces

    s, r, face = seed["messages"]
    assert api_faces.contract(face, r.rows, "token") == []
    kinds = {f.detail for f in api_faces.contract(_broken(face, "content_block_stop"), r.rows, "token")}
    assert any("starts out of order" in d for d in kinds) and any("are open" in d for d in kinds)
    assert any("aborted" in f.detail for f in api_faces.contract(_broken(face, "message_stop"), r.rows, "token"))
    s, r, face = seed["responses"]
    assert api_faces.contract(face, r.rows, "token") == []
    details = [f.detail for f in api_faces.contract(_broken(face, "response.function_call_arguments.delta"),
                                                    r.rows, "token")]
    assert any("argument deltas join to ''" in d for d in details)
    assert any("aborted" in f.detail for f in api_faces.contract(_broken(face, "response.completed"), r.rows, "t"))


HARMONY_CALL = ('<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant'
                '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>'
                '{"city": "Paris"}<|call|>')


def test_gpt_oss_on_responses_goes_through_vllms_harmony_path():
    from vllm.entrypoints.openai.responses.context import HarmonyContext  # noqa: F401  (the path it drives)

    s = Session(Setup("gpt_oss", ParserSpec("openai", "openai_gptoss"), RequestSpec(tools=WEATHER_TOOLS),
                      api="responses"))
    r = s.replay(s.deltas_from_text(HARMONY_CALL))
    face = faces.run(s, r)
    assert face.channels is not None and len(face.channels) == len(r.rows)
    seen = {c for row in face.channels for c in row}
    assert seen == {"analysis", "commentary to=functions.get_weather"}
    joined = {k: "".join(e["delta"] for e in face.events if e["type"] == k)
              for k in ("response.reasoning_text.delta", "response.function_call_arguments.delta")}
    # the chat face's HarmonyParser.parse over the same text agrees with the Harmony events
    assert joined == {"response.reasoning_text.delta": r.nonstream["reasoning"],
                      "response.function_call_arguments.delta": r.nonstream["tool_calls"][0]["arguments"]}
    assert [b["kind"] for b in finals.blocks("responses", face.client["object"])] == ["reasoning", "tool"]
    assert [b["kind"] for b in finals.blocks("responses", face.response)] == ["reasoning", "tool"]
    # the rendered prompt is Harmony's own (no chat template): the user's words are in it once
    assert s.tokenizer.decode(s.prompt_ids).count("What is the weather in Paris?") == 1


def test_api_faces_run_inside_a_lane_with_that_versions_converters(run_cli, tools_file):
    """`--api` with `--vllm 0.33.0`: the same command in the lane, over 0.33.0's serving code
    (its ResponsesResponse has fields 0.32's lacks; its message_stream_converter reads chunk
    objects instead of SSE strings)."""
    from workbench.lanes import versions

    lane_version = next(v for v in versions.listed() if not versions.is_installed(v))
    common = ["replay", "--text", SEED_TEXT, "--tool-parser", "hermes", "--reasoning-parser", "qwen3",
              "--tools", tools_file, "--json"]
    for api in ("responses", "messages"):
        code, out, err = run_cli(*common, "--api", api, "--vllm", lane_version)
        assert code == 0, err
        there = json.loads(out)
        code, out, err = run_cli(*common, "--api", api)
        here = json.loads(out)
        assert [e["type"] for e in there["events"]] == [e["type"] for e in here["events"]]
        assert [e for row in there["rows"] for e in row["api_events"]] == there["events"]
        assert finals.blocks(api, there["client"]["object"]) != []
        if api == "responses":
            created = set(there["events"][0]["response"]) - set(here["events"][0]["response"])
            assert "prompt_cache_key" in created, created


# -- diff --api: the A/B of two specs on one API, and two APIs over one stream -----------

def test_diff_on_an_api_compares_that_apis_events_and_client(run_cli, tools_file, seed):
    """`diff --api messages`: each step compares the Anthropic events each spec's server sends
    (not the chat chunks), and the final answers are what the SDK ends with and the body."""
    from workbench.core.faces.mask import masked

    code, out, err = run_cli("diff", "--text", SEED_TEXT, "--a", "hermes+qwen3", "--b", "hermes", "--tools",
                             tools_file, "--api", "messages", "--json")
    res = json.loads(out)
    assert code == 0 and (res["a"]["api"], res["b"]["api"]) == ("messages", "messages")
    _, r, face = seed["messages"]
    assert [s["a"]["events"] for s in res["steps"]] == [[masked(e) for e in face.row_events(i)]
                                                        for i in range(len(r.rows))]
    assert res["first_step"] == 1 and "events" in res["steps"][0]["output"]
    stream = res["final"]["stream"]  # the SDK's object: a thinking block on A, the raw text on B
    assert stream["reasoning"] == {"a": "Weather is needed.", "b": None, "same": False}
    assert stream["content"]["b"] == "<think>Weather is needed.</think>\n\n"
    assert stream["tool_calls"]["same"] and stream["finish_reason"]["a"] == "tool_use"
    code, out, _ = run_cli("diff", "--text", SEED_TEXT, "--a", "hermes+qwen3", "--b", "hermes+qwen3", "--tools",
                           tools_file, "--api", "responses", "--json")
    assert code == 0 and json.loads(out)["same"]  # made-up ids and timestamps do not count


def test_diff_across_two_apis_compares_what_each_client_received(run_cli, tools_file, tmp_path):
    """`--api chat --api-b messages`: the same stream through two APIs. Each step compares what
    the client received (reasoning, content, tool-call name and arguments), the end what it holds
    (the finish in one vocabulary: chat's tool_calls and Anthropic's tool_use are both a call)."""
    common = ["diff", "--text", SEED_TEXT, "--a", "hermes+qwen3", "--b", "hermes+qwen3"]
    code, out, _ = run_cli(*common, "--tools", tools_file, "--api", "chat", "--api-b", "messages", "--json")
    res = json.loads(out)
    assert code == 0 and res["same"], [s for s in res["steps"] if not s["same"]]
    assert [s["a"]["visible"] for s in res["steps"]][6]["content"] == "\n\n"  # step 7: "\n\n", both
    finish = res["final"]["stream"]["finish_reason"]
    assert (finish["a"], finish["b"], finish["outcome"]) == ("tool_calls", "tool_use",
                                                             {"a": "tool_call", "b": "tool_call"})
    # include_reasoning: false hides the thinking from a chat client; Anthropic has no such
    # field, so a Messages client of the same request sees it
    req = tmp_path / "req.json"
    req.write_text(json.dumps({"messages": [{"role": "user", "content": "Weather in Paris?"}],
                               "tools": WEATHER_TOOLS, "include_reasoning": False}))
    code, out, _ = run_cli(*common, "--request", req, "--api", "chat", "--api-b", "messages", "--json")
    res = json.loads(out)
    assert code == 0 and res["first_step"] == 2 and res["steps"][1]["output"] == ["visible"]
    assert res["steps"][1]["b"]["visible"]["reasoning"] == "Weather" and res["steps"][1]["a"]["visible"][
        "reasoning"] is None
    assert res["final"]["stream"]["reasoning"] == {"a": None, "b": "Weather is needed.", "same": False}
    code, out, err = run_cli(*common, "--tools", tools_file, "--api", "chat", "--api-b", "messages")
    assert code == 0 and "on messages" in out and "same: every step" in out, out
    code, out, err = run_cli("diff", "--text", SEED_TEXT, "--a", "hermes+qwen3@0.33.0", "--b", "hermes+qwen3",
                             "--tools", tools_file, "--api", "messages")
    assert code == 2 and err.count("\n") == 1 and "compares the chat face" in err


def test_export_api_hands_the_parser_that_apis_request(run_cli, tools_file, tmp_path):
    """export --api responses: the exported file builds vLLM's ResponsesRequest from the
    Responses body (as /v1/responses hands it to the parser) and its tests pass on the seed;
    the Responses body's include_reasoning reaches the file's non-streaming answer."""
    import importlib.util

    from workbench.export import pytest_file as export

    req = tmp_path / "req.json"
    req.write_text(json.dumps({"input": "What is the weather in Paris?", "include_reasoning": False,
                               "tools": [{"type": "function", **t["function"]} for t in WEATHER_TOOLS]}))
    out = tmp_path / "test_responses_case.py"
    code, stdout, err = run_cli("export", "--text", SEED_TEXT, "--tool-parser", "hermes", "--reasoning-parser",
                                "qwen3", "--api", "responses", "--request", req, "--fuzz", "2", "-o", out)
    assert code == 0, err
    assert "/v1/responses" in out.read_text() and "the responses events themselves" in stdout
    spec = importlib.util.spec_from_file_location("_exported_responses", out)
    module = importlib.util.module_from_spec(spec)
    import sys

    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        assert module.CASE["api"] == "responses" and "vllm_xargs" not in module.CASE["api_request"]
        _, request = module.parser_and_request()
        assert type(request).__name__ == "ResponsesRequest" and request.include_reasoning is False
        direct = session_for("responses", json.loads(req.read_text()))
        ns = module.nonstream()
        assert ns.reasoning is None and ns.tool_calls[0].name == "get_weather"
        ours = direct.replay(direct.deltas_from_text(SEED_TEXT)).nonstream_final
        assert (ours.reasoning, ours.tool_calls[0].arguments) == (None, ns.tool_calls[0].arguments)
    finally:
        sys.modules.pop(spec.name, None)
    failures = export.self_check(out)
    assert failures == [], failures
    code, _, err = run_cli("export", "--text", SEED_TEXT, "--tool-parser", "hermes", "--api", "messages",
                           "--tools", tools_file, "--format", "vllm-sample", "-o", tmp_path / "s.jsonl")
    assert code == 2 and err.count("\n") == 1 and "no --api messages" in err


def test_faces_of_a_workbench_read_its_stream_on_each_api(seed):
    """workbench.faces(wb) (notebook 06): the widget's stream on each API, the same events as
    the face of a session of that API over the same text."""
    import pandas as pd

    import workbench

    wb = workbench.Workbench(SEED_TEXT, tool_parser="hermes", reasoning_parser="qwen3", tools=WEATHER_TOOLS)
    wb.run()
    apis = workbench.faces(wb)
    for api in ("responses", "messages"):
        frame = apis.events(api)
        assert list(frame.event) == [e["type"] for e in seed[api][2].events]
    chat = apis.events("chat")
    assert set(chat.event) == {"chat.completion.chunk"} and len(chat) == sum(len(r.chunks) for r in wb.rows)
    # the frames and the widget's table component draw from one schema (api_frames.EVENT_COLUMNS)
    table = apis.table("messages")
    frame = apis.events("messages")
    assert [c["name"] for c in table.columns] == list(frame.columns)
    assert [r["event"] for r in table.records] == list(frame.event) and table.key == "n"
    assert [r["n"] for r in table.records] == list(range(1, len(frame) + 1))
    assert json.loads(table.copy_text([2]))["event"] == frame.event[1]
    finals_table = apis.finals_table()
    whitespace = [r for r in finals_table.records if r["whitespace_only_text"] != "no"]
    pairs = [(r["api"], r["mode"]) for r in whitespace]
    assert ("messages", "stream") in pairs and all(api != "chat" for api, _ in pairs)
    assert all(r["tool_calls"].startswith("[") for r in finals_table.records)
    finals_ = apis.finals().set_index(["api", "mode"])
    assert finals_.loc[("messages", "stream"), "content"] == "\n\n"
    assert pd.isna(finals_.loc[("messages", "nonstream"), "content"])
    assert finals_.loc[("messages", "stream"), "whitespace_only_text"]
    assert not finals_.loc[("chat", "stream"), "whitespace_only_text"]


def test_a_generation_error_on_responses_aborts_the_stream_as_vllm_does(run_cli, tools_file):
    """finish "error": vLLM's responses_stream_generator validates its error JSON as a stream
    event, which no event type accepts; the stream stops with neither an error event nor
    response.completed, and the client says so."""
    from pydantic import TypeAdapter, ValidationError
    from vllm.entrypoints.serve.engine.protocol import ErrorInfo, ErrorResponse
    from vllm.entrypoints.openai.responses.protocol import StreamingResponsesResponse

    vllm_error = json.dumps(ErrorResponse(error=ErrorInfo(message="x", type="InternalServerError",
                                                          code=500)).model_dump())
    with pytest.raises(ValidationError):
        TypeAdapter(StreamingResponsesResponse).validate_json(vllm_error)
    code, out, err = run_cli("replay", "--text", SEED_TEXT, "--tool-parser", "hermes", "--reasoning-parser",
                             "qwen3", "--tools", tools_file, "--tool-choice", "required", "--api", "responses",
                             "--finish-reason", "error", "--json")
    assert code in (0, 1) and "Traceback" not in err, err
    doc = json.loads(out)
    types = [e["type"] for e in doc["events"]]
    assert "response.completed" not in types and "error" not in types
    assert types[0] == "response.created"
    assert any("fails to build its error event" in n for n in doc.get("notes", [])), doc.get("notes")
    assert "response.completed" in str(doc["client"])  # the SDK: "Didn't receive a response.completed"


def test_the_messages_converters_error_log_is_a_note_not_a_printed_line(run_cli, tools_file):
    """On finish "error" vLLM's message_stream_converter logs an exception and sends an
    "error" event: the event is the face's, the log line its note, no console handler of
    vLLM's prints it (one is there once an engine has configured vLLM's logging)."""
    import io
    import logging

    console = logging.StreamHandler(io.StringIO())
    logging.getLogger("vllm").addHandler(console)
    try:
        code, out, err = run_cli("replay", "--text", SEED_TEXT, "--tool-parser", "hermes", "--reasoning-parser",
                                 "qwen3", "--tools", tools_file, "--api", "messages", "--finish-reason", "error",
                                 "--json")
    finally:
        logging.getLogger("vllm").removeHandler(console)
    assert code in (0, 1) and "Traceback" not in err, err
    assert "message stream converter" not in console.stream.getvalue()
    doc = json.loads(out)
    assert doc["events"][-1]["type"] == "error"
    assert any("Error in message stream converter" in n and "\n" not in n for n in doc["notes"]), doc["notes"]
