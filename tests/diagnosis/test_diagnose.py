"""`workbench doctor`: causes from evidence, the file and method from the composed class,
`--report`, exact groupings (every `--chunking` name, `at:`, `--deltas`), `--finish-reason`
and `--max-tokens` over text, check's text_dropped / arguments_buffered, one stream content."""

from __future__ import annotations

import inspect
import json

import pytest

from tests.support.doctor import _installed, doctor
from tests.support.paste import paste
from tests.support.seed import SEED_TEXT, WEATHER_TOOLS

TRUNCATED = '<tool_call>{"name": "get_weather", "arguments": {"city": "Par'
AFTER = 'Sure. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call> Done, thanks.'
XLAM_TEXT = ('<think>x</think>[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
             '{"name": "get_weather", "arguments": {}}]')
HERMES = ("--tool-parser", "hermes", "--reasoning-parser", "qwen3")


# -- causes ------------------------------------------------------------------------------------
def test_modes_disagree_and_the_method_comes_from_the_composed_class(run_cli, tools_file):
    from vllm.tool_parsers import ToolParserManager

    code, d = doctor(run_cli, "--text", TRUNCATED, "--tools", tools_file, *HERMES)
    assert code == 1 and d["setup"]["tool_choice"] == "auto"  # what vLLM's validator made of it
    classes = [c["class"] for c in d["causes"]]
    # The model stopped inside the call; neither mode presents it well (raw markup as content,
    # a call with broken arguments): both paths, the non-streaming one's reading first.
    assert classes == ["model_output", "parser_nonstreaming", "parser_streaming"], d["causes"]
    where = d["causes"][2]["where"]
    cls = ToolParserManager.get_tool_parser("hermes")
    owner = next(k for k in cls.__mro__ if "extract_tool_calls_streaming" in k.__dict__)
    assert where["file"].endswith(inspect.getsourcefile(owner).split("site-packages/")[-1].split("/vllm/", 1)[-1])
    assert (where["class"], where["method"], where["vllm"]) == (owner.__name__, "extract_tool_calls_streaming", True)
    _, text, _ = run_cli("doctor", "--vllm", _installed(), "--text", TRUNCATED, "--tools", tools_file, *HERMES)
    for c in d["causes"]:  # the text output is the same structure
        assert f"{c['class']}: {c['summary']}" in text
    assert f"{where['class']}.extract_tool_calls_streaming" in text


def test_finish_reason_length_is_truncation_and_chunking_is_honoured(run_cli, tools_file):
    code, d = doctor(run_cli, "--text", TRUNCATED, "--tools", tools_file, *HERMES, "--finish-reason", "length")
    assert code == 1 and d["causes"][0]["class"] == "truncation" and d["setup"]["finish_reason"] == "length"
    code, d = doctor(run_cli, "--text", SEED_TEXT, "--tools", tools_file, *HERMES, "--chunking", "k:3")
    assert d["setup"]["chunking"] == "k:3" and d["setup"]["deltas"] == -(-27 // 3)
    assert d["causes"] == [] and d["ok"]


def test_a_cut_qwen3_coder_opener_never_crashes_and_nothing_worse_is_recommended(run_cli, tools_file):
    text = "<tool_call>\n<function"
    for parser in ([], ["--tool-parser", "qwen3_coder"]):
        code, out, err = run_cli("doctor", "--vllm", _installed(), "--text", text, "--tools", tools_file, *parser)
        assert code in (0, 1) and "Traceback" not in err and "doctor:" in out, err
        assert "arrive as plain content" not in out  # the content is empty
        code, d = doctor(run_cli, "--text", text, "--tools", tools_file, *parser)
        assert not [x for x in d["diagnoses"] if x["code"] in ("no_tool_parser", "wrong_tool_parser")]
        assert all(min(r["ok_calls"], r["ok_stream_calls"]) >= 0 and (r["ok_calls"] or r["ok_stream_calls"])
                   for r in d["tool_parsers"])


def test_no_tool_parser_names_the_one_that_reads_the_calls(run_cli, tools_file):
    code, d = doctor(run_cli, "--text", SEED_TEXT, "--tools", tools_file)
    diag = {x["code"]: x for x in d["diagnoses"]}
    assert code == 1 and d["causes"][0]["class"] == "configuration"
    assert diag["no_tool_parser"]["fix"].endswith("--tool-call-parser hermes")
    assert diag["no_tool_parser"]["message"].startswith("tool calls arrive as plain content")
    best, current = diag["no_tool_parser"]["evidence"]["best"], diag["no_tool_parser"]["evidence"]["current"]
    assert best["ok_calls"] == best["ok_stream_calls"] == 1 and current["ok_calls"] == 0
    assert len(d["failures"]) < 10  # only parsers whose markers are in the text are tried


def test_api_face_is_diagnosed(run_cli, tools_file):
    code, d = doctor(run_cli, "--text", SEED_TEXT, "--tools", tools_file, *HERMES, "--api", "responses")
    api = d["modes"]["api"]
    assert d["setup"]["api"] == "responses" and api["stream"]["tool_calls"][0]["name"] == "get_weather"
    assert api["differs"] == [] and d["causes"] == []


# -- --report ----------------------------------------------------------------------------------
def test_report_writes_markdown_and_a_failing_test_and_refuses_existing(run_cli, tools_file, tmp_path):
    from workbench.export import pytest_file as export

    bug = tmp_path / "bug.md"
    argv = ["doctor", "--vllm", _installed(), "--text", XLAM_TEXT, "--tools", tools_file,
            "--tool-parser", "xlam", "--reasoning-parser", "qwen3", "--report", bug]
    code, _, err = run_cli(*argv)
    md = bug.read_text()
    assert code == 1 and "Traceback" not in err
    for part in ("## Versions and flags", "--tool-call-parser xlam", "## Minimal reproduction", "--chunking merge:",
                 "## Expected vs actual", "## Rows where it goes wrong", "test_bug.py"):
        assert part in md, part
    assert export.self_check(tmp_path / "test_bug.py")  # it fails while the bug is there
    reproduce = md.split("Reproduce:\n\n```sh\n", 1)[1].split("\n```", 1)[0]
    assert len(reproduce.splitlines()) > 1  # broken between its options, to read whole
    [call] = paste(reproduce, tmp_path)
    assert call[:2] == ["workbench", "doctor"] and call[call.index("--tool-parser") + 1] == "xlam"
    assert call[call.index("--text-file") + 1] == str(tmp_path / "bug.minimal.txt")
    code, _, err = run_cli(*argv)
    assert code == 2 and "exists" in err and len(err.strip().splitlines()) == 1
    code, _, _ = run_cli(*argv, "--force")
    assert code == 1


HOSTILE_TEXT = ('<think>````\n# Owned\n![x](http://evil.example/think.png)\n</think>Hi <img src=http://evil.example/a.png>'
                '\n\n## Injected\n<tool_call>{"name": "get_weather", "arguments": {"city": "[x](http://evil.example) | '
                '<!-- ` ``` \u001b]0;t\u0007"}}</tool_call>`````\n# Owned too\n![y](http://evil.example/y.png)')


def test_report_model_text_never_becomes_markup(run_cli, tools_file, tmp_path):
    """Model text holding longer fences, headings, images and raw HTML stays text in every
    section of the report, as an ordinary CommonMark viewer renders it."""
    from markdown_it import MarkdownIt

    bug = tmp_path / "bug.md"
    code, _, err = run_cli("doctor", "--vllm", _installed(), "--text", HOSTILE_TEXT, "--tools", tools_file, *HERMES,
                           "--report", bug)
    assert code in (0, 1) and "Traceback" not in err, err
    text = bug.read_text()
    html = MarkdownIt("commonmark").enable("table").render(text)
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    headings = [(t.tag, tokens[i + 1].content.split(" (")[0]) for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert [h for h in headings if h[0] != "h2"] == [headings[0]] and headings[0][0] == "h1"
    assert [h for _, h in headings[1:]] == ["Versions and flags", "Cause", "Minimal reproduction",
                                            "Expected vs actual", "Rows where it goes wrong", "Test"], headings
    assert "<img" not in html and "<a " not in html and "<!--" not in html and "<think>" not in html, html
    assert "Owned" in html and "evil.example" in html  # shown, as text
    assert "\x1b" not in text and "\x07" not in text


@pytest.mark.parametrize("where", ["", "/", "."])
def test_report_to_a_path_that_names_no_file_is_one_line(run_cli, tools_file, where):
    code, out, err = run_cli("doctor", "--vllm", _installed(), "--text", SEED_TEXT, "--tools", tools_file, *HERMES,
                             "--report", where)
    assert code == 2 and err.count("\n") == 1 and "give the report's file name" in err and "Traceback" not in err


# -- exact groupings ---------------------------------------------------------------------------
def test_every_grouping_name_check_prints_replays_its_finding(run_cli, tools_file):
    common = ["--text", XLAM_TEXT, "--tools", tools_file, "--tool-parser", "xlam", "--reasoning-parser", "qwen3"]
    code, out, _ = run_cli("check", *common, "--fuzz", "10", "--no-cost", "--json")
    findings = [f for f in json.loads(out)["findings"] if f["kind"] == "chunking"]
    assert findings
    for f in findings:
        _, out, _ = run_cli("replay", *common, "--chunking", f["grouping"], "--json")
        streamed = json.loads(out)["stream"]
        got = [{"name": c["name"], "arguments": c["arguments"]} for c in streamed["tool_calls"]]
        assert (got if f["field"] == "tool_calls" else streamed[f["field"]]) == f["stream"], f["grouping"]


def test_at_offsets_and_deltas_files_give_exact_deltas(run_cli, tools_file, tmp_path, qwen3_tokenizer):
    from workbench.core import chunking

    common = ["--text", SEED_TEXT, "--tools", tools_file, *HERMES, "--json"]
    rows = lambda argv: json.loads(run_cli("replay", *argv)[1])["rows"]  # noqa: E731
    n = len(rows(common))
    by_at = rows(common + ["--chunking", "at:5,6,20"])
    assert [len(r["token_ids"]) for r in by_at] == [5, 1, 14, n - 20]
    assert [r["text"] for r in by_at] == [r["text"] for r in rows(common + ["--chunking",
                                                                            f"merge:1-5,7-20,21-{n}"])]
    texts = tmp_path / "texts.json"
    texts.write_text(json.dumps([r["text"] for r in by_at]))
    ids = tmp_path / "ids.json"
    ids.write_text(json.dumps([r["token_ids"] for r in by_at]))
    rest = ["--tools", tools_file, *HERMES, "--json"]
    def sent(r):
        delta = json.loads(json.dumps(r["delta"]))
        for call in (delta or {}).get("tool_calls", []):
            call["id"] = bool(call["id"])  # random per run
        return r["token_ids"], r["text"], delta

    for path in (texts, ids):
        assert [sent(r) for r in rows(["--deltas", path, *rest])] == [sent(r) for r in by_at]
    for bad in ("split:0", "merge:3-1", "at:9,4", "k:0", "split:99"):
        code, _, err = run_cli("replay", *common, "--chunking", bad)
        assert code == 2 and len(err.strip().splitlines()) == 1, (bad, err)
    assert chunking.sizes("random:20260902#3", 40) == dict(
        __import__("workbench.check.groupings", fromlist=["x"]).random_groupings(40, 4))["random:20260902#3"]
    assert chunking.sizes(chunking.at_label((3, 1, 2)), 6) == (3, 1, 2)


# -- replay over text: how it ends -------------------------------------------------------------
def test_finish_reason_and_max_tokens_cut_as_the_engine_does(qwen3_tokenizer):
    from types import SimpleNamespace

    from vllm.v1.core.sched.utils import check_stop
    from vllm.v1.request import RequestStatus

    from workbench.core.deltas import encode_text
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup

    text = "one two three four"
    script = encode_text(qwen3_tokenizer, text) + [qwen3_tokenizer.eos_token_id]
    for max_tokens in (2, 4, 5):  # 4 text tokens then EOS: the EOS that is token 5 still stops
        # the engine's own stop check, token by token, as the scheduler calls it
        params = SimpleNamespace(eos_token_id=qwen3_tokenizer.eos_token_id, stop_token_ids=[], min_tokens=0,
                                 repetition_detection=None)
        req = SimpleNamespace(pooling_params=None, sampling_params=params, output_token_ids=[], max_tokens=max_tokens,
                              status=None, stop_reason=None, num_tokens=0, num_output_tokens=0)
        for t in script:
            req.output_token_ids.append(t)
            req.num_tokens = req.num_output_tokens = len(req.output_token_ids)
            if check_stop(req, max_model_len=1 << 20):
                break
        session = Session(Setup("qwen3", ParserSpec(), RequestSpec(max_tokens=max_tokens)))
        replayed = session.deltas_from_text(text)
        assert [t for d in replayed for t in d.token_ids] == req.output_token_ids, max_tokens
        assert replayed[-1].finish_reason == str(RequestStatus.get_finished_reason(req.status)), max_tokens
    session = Session(Setup("qwen3", ParserSpec("hermes", "qwen3"), RequestSpec(tools=WEATHER_TOOLS)))
    cut = session.deltas_from_text(TRUNCATED, finish_reason="length")
    assert cut[-1].finish_reason == "length" and cut[-1].token_ids[-1] != qwen3_tokenizer.eos_token_id


# -- check's new findings ----------------------------------------------------------------------
def test_text_dropped_fires_where_vllm_drops_text_and_not_on_shipped_streams(run_cli, tools_file):
    from vllm.parser.parser_manager import ParserManager

    from workbench.check import Options, check
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup

    session = Session(Setup("qwen3", ParserSpec("hermes"), RequestSpec(tools=WEATHER_TOOLS)))
    cls = ParserManager.get_parser(tool_parser_name="hermes", enable_auto_tools=True, tokenizer=session.tokenizer)
    parser = cls(session.tokenizer, session.request.tools, chat_template_kwargs={})
    _, content, calls = parser.parse(AFTER, session.request, enable_auto_tools=True)
    assert "Done" not in (content or "") and [c.name for c in calls] == ["get_weather"]  # vLLM itself
    fast = Options(fuzz=5, text_budget_s=0, cost=False, jobs=1)
    report = check(session, session.deltas_from_text(AFTER), fast)
    [f] = [f for f in report.findings if f.kind == "text_dropped"]
    assert f.stream == ["Done, thanks"] and f.extra["dropped"][0]["context"].endswith("[Done, thanks].")
    clean = [("recording", "parsers/recordings/hermes/seed_weather.jsonl"),
             ("recording", "parsers/recordings/hermes/truncated_arguments.jsonl"), ("text", SEED_TEXT),
             ("text", '<think>Weather is needed.</think>Sure.<tool_call>{"name": "get_weather", '
                      '"arguments": {"city": "Paris"}}</tool_call>')]
    for kind, value in clean:
        source = [value] if kind == "recording" else ["--text", value, *HERMES, "--tools", tools_file]
        _, out, _ = run_cli("check", *source, "--fuzz", "3", "--no-cost", "--shrink-budget", "0", "--json")
        kinds = {f["kind"] for f in json.loads(out)["findings"]}
        assert not kinds & {"text_dropped", "arguments_buffered"}, (value, kinds)


def test_arguments_buffered_is_a_warning_with_the_silent_run(run_cli, tools_file, tmp_path):
    from tests.support import reports

    case = next(c for c in reports.cases() if c["id"] == "vllm-42879-deepseek-v32-arguments-buffered")
    argv = reports.argv(case, "check", tmp_path) + ["--fuzz", "3", "--no-cost", "--shrink-budget", "0", "--json"]
    code, out, _ = run_cli(*argv)
    data = json.loads(out)
    [f] = [f for f in data["findings"] if f["kind"] == "arguments_buffered"]
    assert f["severity"] == "warning" and f["silent_deltas"] >= 8 and f["chars"] >= 16
    assert data["consistent"] == (not [x for x in data["findings"] if x["severity"] == "error"])


# -- one stream content, and the noise ---------------------------------------------------------
def test_one_stream_content_everywhere(run_cli, tools_file):
    common = ["--text", TRUNCATED, "--tools", tools_file, *HERMES]
    replayed = json.loads(run_cli("replay", *common, "--json")[1])["stream"]["content"]
    checked = json.loads(run_cli("check", *common, "--fuzz", "3", "--no-cost", "--json")[1])
    [f] = [f for f in checked["findings"] if f["kind"] == "stream_vs_nonstream" and f["field"] == "content"]
    _, d = doctor(run_cli, *common)
    assert replayed == f["stream"] == d["modes"]["stream"]["content"] == ""
    assert d["modes"]["parser_content"] is None  # the role chunk's "", not the parser's
    _, text, _ = run_cli("replay", *common)
    assert "opening role chunk" in text


def test_check_json_lists_the_markers_that_matter(run_cli, tools_file):
    code, out, _ = run_cli("check", "--tokenizer", "deepseek_v4", "--tool-parser", "deepseek_v4", "--tools",
                           tools_file, "--text", "Hello there.", "--fuzz", "2", "--no-cost", "--json")
    checked = json.loads(out)["checked"]
    assert checked["special_tokens"] > 1000 and len(checked["markers"]) < 40 and len(out) < 20_000


@pytest.mark.parametrize("name", ["token", "whole", "k:3", "random:7", "random:7:2#2", "split:4", "merge:1-3",
                                  "at:2,5", "holdback:1"])
def test_chunking_names_cover_n_tokens(name):
    from workbench.core import chunking

    sizes = chunking.sizes(name, 8)
    assert sizes is None if name.startswith("holdback") else sum(sizes) == 8 and min(sizes) >= 1


def test_markup_the_model_left_unclosed_is_a_note_beside_the_parser_cause(run_cli, tmp_path):
    from workbench.check.evidence import unclosed_markup

    pairs = [("<function=", "</function>"), ("<parameter=", "</parameter>"), ("<tool_call>", "</tool_call>")]
    closed = "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>"
    assert unclosed_markup(closed, pairs) == [] and unclosed_markup("prose </tool_call> <tool_call>", pairs) == []
    assert unclosed_markup(closed.replace("1\n</parameter>", "1\n<parameter=b>\n2\n</parameter>"), pairs) == [
        "'<parameter=' at char 25 is not closed by '</parameter>' before the next '<parameter='"]
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"body": {"type": "object"}}}}}]))
    # vllm-57699: the last parameter never closed, and vLLM's parser drops its value
    text = '<tool_call>\n<function=f>\n<parameter=body>\n{"mode": "AIR_CLEAN"}\n</function>\n</tool_call>'
    code, d = doctor(run_cli, "--text", text, "--tools", tools, "--tool-parser", "qwen3_coder")
    assert code == 1 and d["causes"][0]["class"] == "parser_nonstreaming"
    note = next(x for x in d["diagnoses"] if x["code"] == "unclosed_markup")
    assert note["severity"] == "note" and "before '</function>'" in note["message"]
