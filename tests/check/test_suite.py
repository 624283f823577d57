"""`workbench check`, `export` and `doctor`: real divergences of the pinned vLLM are
found, clean cases pass, shrinking is minimal, exported tests fail / pass as they
should, and the doctor's diagnoses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.seed import SEED_TEXT, WEATHER_TOOLS
from workbench.check import Options, check, compare, props, shrink
from workbench.export import pytest_file as export
from workbench.check import groupings as G
from workbench.check.streams import stream
from workbench.core.deltas import deltas_from_ids, split
from workbench.core.parsers import ParserSpec
from workbench.core.request import RequestSpec
from workbench.core.session import Session, Setup

TRUNCATED = '<tool_call>{"name": "get_weather", "arguments": {"city": "Par'
CLEAN = 'Let me look. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
# xlam + qwen3: an empty-argument call right after another streams "{}{}" when its last
# tokens share a delta (the "arguments doubled at a delta boundary" class, vLLM #51697).
XLAM_TEXT = ('<think>x</think>[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
             '{"name": "get_weather", "arguments": {}}]')
FAST = Options(fuzz=30, text_budget_s=0, cost=False, jobs=1)


@pytest.fixture(scope="module")
def hermes(qwen3_tokenizer):
    return Session(Setup("qwen3", ParserSpec("hermes", "qwen3"), RequestSpec(tools=WEATHER_TOOLS)))


@pytest.fixture(scope="module")
def xlam(qwen3_tokenizer):
    return Session(Setup("qwen3", ParserSpec("xlam", "qwen3"), RequestSpec(tools=WEATHER_TOOLS)))


def _direct(session, text):
    """Stream and non-stream straight through vLLM's API, one token per delta."""
    from vllm.parser.parser_manager import ParserManager

    tok = session.tokenizer
    cls = ParserManager.get_parser(tool_parser_name="hermes", reasoning_parser_name="qwen3",
                                   enable_auto_tools=True, tokenizer=tok)
    deltas = session.deltas_from_text(text)
    parser = cls(tok, session.request.tools, chat_template_kwargs={})
    calls = []
    for d in deltas:
        msg = parser.parse_delta(d.text, list(d.token_ids), session.request, session.prompt_ids,
                                 finished=d.finished)
        calls += [tc for tc in (msg.tool_calls if msg else None) or []]
    parser = cls(tok, session.request.tools, chat_template_kwargs={})
    parser.set_prompt_token_ids(session.prompt_ids)
    ids = [t for d in deltas for t in d.token_ids]
    return calls, parser.parse(text, session.request, enable_auto_tools=True, model_output_token_ids=ids)


# -- groupings -------------------------------------------------------------------
def test_regrouped_texts_equal_vllm_detokenizer(hermes):
    text = '<think>Météo 🌞 à 東京?</think>\n\n' + CLEAN
    tokens = G.TokenStream.from_deltas(hermes, hermes.deltas_from_text(text))
    n = len(tokens)
    for _, sizes in G.whole(n) + G.k_batches(n) + G.random_groupings(n, 5) + G.two_chunk(n)[::7]:
        assert tokens.deltas(sizes) == tokens.detokenized(sizes)
    direct = list(deltas_from_ids(hermes.tokenizer, tokens.ids, hermes.prompt_ids, hermes.params,
                                  split(tokens.ids, [1] * n)))
    assert tokens.token_deltas == direct
    held = tokens.holdback(1)
    assert [d.token_ids for d in held] == [d.token_ids for d in direct]
    assert held[0].text == "" and "".join(d.text for d in held) == tokens.text


def test_random_groupings_are_seeded_like_vllms():
    a = G.random_groupings(50, 100)
    assert a == G.random_groupings(50, 100) and len({s for _, s in a}) > 90
    assert all(sum(s) == 50 and 1 <= min(s) and max(s) <= 4 for _, s in a)
    assert a[0][0] == "random:20260902#0"
    assert G.parse_merge_label(G.merge_label((1, 3, 1, 2)), 7) == (1, 3, 1, 2)


# -- pure properties ---------------------------------------------------------------
def test_contract_rules():
    steps = [{"reasoning": None, "content": "a <tool_", "tool_calls": []},
             {"reasoning": None, "content": "call>", "tool_calls": [
                 {"index": 1, "id": "x", "name": "f", "arguments": '{"a": '}]},
             {"reasoning": None, "content": None, "tool_calls": [
                 {"index": 1, "id": "x", "name": None, "arguments": "1"}]}]
    details = [p["detail"] for p in props.contract_problems(steps, ["<tool_call>"])]
    assert "new call has index 1, expected 0" in details
    assert "call 1: id sent again ('x')" in details
    assert any("do not join to valid JSON" in d for d in details)
    leak = [p for p in props.contract_problems(steps, ["<tool_call>"]) if "leaked" in p["detail"]]
    assert leak == [{"field": "content", "step": 2, "detail": "marker '<tool_call>' leaked into content"}]


def test_accumulate_equals_the_runners_stream(hermes):
    result = hermes.replay(hermes.deltas_from_text(SEED_TEXT))
    acc = props.accumulate(compare.steps_of(result.rows))
    assert acc.to_dict() == result.stream | {"finish_reason": None}


def test_ddmin_finds_the_two_merges_that_matter():
    res = shrink.minimal_grouping(lambda sizes: {3, 7} <= G.merges(sizes), 20, (20,))
    assert res.complete and res.value == G.from_merges(20, {3, 7})


# -- check -------------------------------------------------------------------------
def test_hermes_truncated_arguments_diverge(hermes):
    calls, (reasoning, content, parsed) = _direct(hermes, TRUNCATED)
    # vLLM 0.32: streaming emits the call with the partial arguments, parse() none.
    assert [c.function.name for c in calls if c.function and c.function.name] == ["get_weather"]
    assert "".join(c.function.arguments or "" for c in calls) == '{"city": "Par'
    assert not parsed and content == TRUNCATED
    report = check(hermes, hermes.deltas_from_text(TRUNCATED), FAST)
    assert not report.consistent and report.exit_code() == 1
    f = {(f.kind, f.field): f for f in report.findings}
    tc = f[("stream_vs_nonstream", "tool_calls")]
    assert tc.severity == "error" and tc.nonstream == []
    assert tc.stream == [{"name": "get_weather", "arguments": '{"city": "Par'}]
    rows = hermes.replay(hermes.deltas_from_text(TRUNCATED)).rows
    assert tc.first_step == next(r.step for r in rows if r.tool_calls)  # where the call appears
    assert f[("stream_vs_nonstream", "content")].nonstream == TRUNCATED
    assert "valid JSON" in f[("contract", "tool_calls")].detail
    assert "'<tool_call>' leaked" in f[("contract", "content")].detail  # raw markup, non-stream


def test_seed_example_is_only_cosmetic(hermes):
    report = check(hermes, hermes.deltas_from_text(SEED_TEXT), FAST)
    assert report.consistent and report.exit_code() == 0 and report.exit_code(strict=True) == 1
    [f] = report.findings
    assert (f.kind, f.field, f.severity, f.stream, f.nonstream) == \
        ("stream_vs_nonstream", "content", "cosmetic", "\n\n", None)
    assert f.normalised == {"stream": "", "nonstream": ""}


def test_clean_case_has_no_findings(hermes):
    report = check(hermes, hermes.deltas_from_text(CLEAN), Options(fuzz=20, jobs=2))
    assert report.findings == [] and report.consistent
    assert report.checked["groupings"] > 20 and report.cost["deltas"] == report.checked["tokens"]


def test_shrunk_grouping_still_fails_and_is_minimal(xlam):
    report = check(xlam, xlam.deltas_from_text(XLAM_TEXT), Options(fuzz=30, text_budget_s=3, cost=False))
    f = next(f for f in report.findings if f.kind == "chunking" and f.field == "tool_calls")
    assert f.severity == "error" and f.extra["shrink"]["complete"]
    tokens = G.TokenStream.from_deltas(xlam, xlam.deltas_from_text(XLAM_TEXT))
    n = len(tokens)
    _, base = stream(xlam, tokens.token_deltas)

    def fails(sizes):
        _, st = stream(xlam, tokens.deltas(sizes))
        return any(d.field == "tool_calls" and d.severity == "error"
                   for d in props.differences(compare.final_of(st), compare.final_of(base)))

    sizes = G.parse_merge_label(f.extra["minimal_grouping"], n)
    assert fails(sizes)
    merged = G.merges(sizes)
    for m in merged:  # removing any merge makes it pass
        assert not fails(G.from_merges(n, merged - {m}))
    assert "{}{}" in json.dumps(f.stream)
    assert f.extra["minimal_text"]["tokens"] < n


# -- CLI -----------------------------------------------------------------------------
def test_check_cli_json_and_exit_codes(run_cli, tools_file):
    common = ["--tool-parser", "hermes", "--reasoning-parser", "qwen3", "--tools", tools_file,
              "--fuzz", "10", "--no-cost", "--json"]
    code, out, _ = run_cli("check", "--text", TRUNCATED, *common)
    data = json.loads(out)
    assert code == 1 and data["consistent"] is False
    for f in data["findings"]:
        assert {"kind", "field", "first_step", "chunking", "stream", "nonstream", "severity"} <= set(f)
    assert {"tool_calls", "content"} <= {f["field"] for f in data["findings"]}
    code, out, _ = run_cli("check", "--text", SEED_TEXT, *common)
    assert code == 0 and json.loads(out)["consistent"] is True
    code, _, _ = run_cli("check", "--text", SEED_TEXT, *common, "--strict")
    assert code == 1
    code, out, _ = run_cli("check", "--text", TRUNCATED, *common[:-1])
    assert code == 1 and "INCONSISTENT" in out and "minimal text" in out


def test_export_fails_on_divergence_and_passes_when_clean(hermes, xlam, tmp_path):
    bad = export.write_pytest(tmp_path / "test_divergent.py", export.build_case(
        xlam, xlam.deltas_from_text(XLAM_TEXT), check(xlam, xlam.deltas_from_text(XLAM_TEXT), FAST)))
    good = export.write_pytest(tmp_path / "test_clean.py", export.build_case(
        hermes, hermes.deltas_from_text(SEED_TEXT), check(hermes, hermes.deltas_from_text(SEED_TEXT), FAST)))
    assert export.self_check(bad) and not export.self_check(good)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o",
                           "addopts=", "--junitxml", str(tmp_path / "r.xml"), str(bad), str(good)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    import xml.etree.ElementTree as ET

    cases = ET.parse(tmp_path / "r.xml").getroot().iter("testcase")
    outcome = {}
    for c in cases:
        failed = c.find("failure") is not None or c.find("error") is not None
        outcome.setdefault(c.get("classname"), []).append(failed)
    assert any(outcome["test_divergent"]), proc.stdout[-2000:]
    assert not any(outcome["test_clean"]), proc.stdout[-2000:]


def test_export_vllm_sample(run_cli, tools_file, tmp_path):
    out = tmp_path / "case.jsonl"
    code, _, _ = run_cli("export", "--text", TRUNCATED, "--tool-parser", "hermes", "--reasoning-parser",
                         "qwen3", "--tools", tools_file, "--format", "vllm-sample", "-o", out)
    sample = json.loads(out.read_text())
    assert code == 0 and set(sample) == {
        "id", "description", "source", "vocab", "tokens", "expected_reasoning", "expected_content",
        "expected_tool_calls", "tools", "chat_template_kwargs", "prompt_token_ids"}
    assert "".join(t for _, t in sample["tokens"]) == TRUNCATED
    assert sample["vocab"]["<tool_call>"] == sample["tokens"][0][0]
    assert sample["expected_tool_calls"] == [] and sample["expected_content"] == TRUNCATED


# -- doctor ----------------------------------------------------------------------------
def _doctor(run_cli, *argv):
    from workbench.lanes.versions import installed

    # --vllm: the installed version alone (a parser cause would otherwise ask the lanes).
    code, out, _ = run_cli("doctor", "--json", "--vllm", installed(), *argv)
    data = json.loads(out)
    return code, data, {d["code"]: d for d in data["diagnoses"]}


def test_doctor_tool_calls_and_thinking_as_content(run_cli, tools_file):
    code, data, d = _doctor(run_cli, "--text", SEED_TEXT, "--tools", tools_file)
    assert code == 1 and {"no_tool_parser", "no_reasoning_parser"} <= set(d)
    ranked = [r["parser"] for r in data["tool_parsers"]]
    assert ranked[0] == "hermes" and "qwen3_json" in ranked
    assert "--tool-call-parser hermes" in d["no_tool_parser"]["fix"]
    assert "qwen3" in {r["parser"] for r in data["reasoning_parsers"]}
    # Only parsers whose markers occur in the text are tried, and only their refusals listed:
    # deepseek_v3 cannot start on qwen3 (its markers are not in the vocabulary) and is no noise.
    failed = {f["parser"] for f in data["failures"] if f["kind"] == "tool"}
    assert not {"deepseek_v3", "llama3_json"} & failed


def test_doctor_parser_cannot_start_and_cut_off_call(run_cli, tools_file):
    code, data, d = _doctor(run_cli, "--text", SEED_TEXT, "--tools", tools_file,
                            "--tool-parser", "deepseek_v3", "--reasoning-parser", "qwen3")
    assert code == 1 and d["parser_cannot_start"]["evidence"]["broken"] == ["tool"]
    assert "could not locate tool call start/end tokens" in d["parser_cannot_start"]["message"]
    assert d["reasoning_field"]["severity"] == "note"
    code, data, d = _doctor(run_cli, "--text", TRUNCATED, "--tools", tools_file, "--tool-parser", "hermes",
                            "--reasoning-parser", "qwen3", "--finish-reason", "length")
    assert code == 1 and "cut_off_call" in d and data["setup"]["finish_reason"] == "length"
    code, data, d = _doctor(run_cli, "--text", SEED_TEXT, "--tool-parser", "hermes", "--reasoning-parser", "qwen3")
    assert code == 1 and "tools_off_in_request" in d and data["tool_parsers"][0]["parser"] == "hermes"


@pytest.mark.slow
def test_check_at_benchmark_size(hermes):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import check_throughput

    report = check(hermes, hermes.deltas_from_text(check_throughput.text()))
    assert not report.consistent and report.checked["tokens"] >= 290
    assert any(f.extra.get("minimal_grouping") for f in report.findings)


def test_cost_flags_growing_per_delta_cost_only():
    from workbench.check import cost

    flat = cost.analyse([20.0 + (i % 3) for i in range(100)], ["tool"] * 100)
    growing = cost.analyse([10.0 + i for i in range(100)], ["reasoning"] * 20 + ["tool"] * 80)
    assert not flat["superlinear"] and growing["superlinear"]
    assert growing["worst"]["phase"] == "tool" and growing["worst"]["from_step"] == 21
    assert not cost.analyse([10.0 + i for i in range(30)], ["tool"] * 30)["superlinear"]  # too short


def test_check_package_is_widget_free():
    # check and what was split out of it (the doctor, export, where a run runs); ~400 lines a
    # module is the guideline (AGENTS.md), this the wall past it
    root = Path(__file__).resolve().parents[2] / "workbench"
    files = sorted(f for pkg in ("check", "diagnosis", "export", "runs") for f in (root / pkg).rglob("*.py"))
    assert root / "diagnosis" / "diagnose.py" in files and len(files) >= 10  # the loop below ran over the packages
    for f in files:
        text = f.read_text()
        assert "ipywidgets" not in text and "IPython" not in text, f
        assert len(text.splitlines()) < 450, f


def test_long_streams_get_a_seeded_sample_of_two_chunk_splits():
    """Every split up to ALL_SPLITS tokens; above, a sample whose replays stay within
    SPLIT_TOKENS tokens (each split replays the whole stream), the same for the same seed."""
    assert G.split_positions(G.ALL_SPLITS) == list(range(1, G.ALL_SPLITS))
    for n in (G.ALL_SPLITS + 1, 30_000, 100_000):
        got = G.split_positions(n)
        assert got == sorted(set(got)) and 0 < got[0] and got[-1] < n and got == G.split_positions(n)
        assert len(got) == G.sampled_splits(n) and (len(got) * n <= G.SPLIT_TOKENS or len(got) == G.MIN_SPLITS)
        assert G.split_positions(n, seed=1) != got
        said = G.splits_checked(n)
        assert said["checked"] == len(got) and said["of"] == n - 1 and "sample" in said["which"]
    assert len(G.split_positions(2_000)) == G.SAMPLED_SPLITS and len(G.split_positions(100_000)) == 40


def test_text_dropped_is_not_checked_past_its_limit_and_says_so(run_cli):
    from workbench.core import limits

    for text, said in (("a b " * 10, "checked"), ("x" * (limits.MAX_COVERAGE_CHARS + 1), "not checked")):
        code, out, err = run_cli("check", "--text", text, "--fuzz", "0", "--no-cost", "--shrink-budget", "0", "--json")
        assert code == 0, err
        assert json.loads(out)["checked"]["text_dropped"].startswith(said)
