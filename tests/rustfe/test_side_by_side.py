"""The Python parsers and vllm-rs's on the same token ids: where they part, by `diff` and `check`.

On the seed, hermes (Python) streams the "\\n\\n" between </think> and <tool_call> as content
and vllm-rs's hermes drops it; both non-streaming answers drop it. Python 0.34.0 does what
0.32.0 does, so it is the implementation, not the version (the lane test). Cut by
max_tokens inside the call, Python's two answers part (the non-streaming one leaves the
whole call in content) while vllm-rs's agree: its non-streaming answer is its stream.
"""

from __future__ import annotations

import json

import pytest

from tests.support.seed import SEED_TEXT
from tests.support.rust import RUST_VERSION, seed_setup
from workbench.core.parsers import ParserSpec
from workbench.rustfe import side_by_side

SPEC = ParserSpec("hermes", "qwen3")
CUT = SEED_TEXT[:-25]  # max_tokens stops it inside the arguments: '{"cit'


@pytest.fixture
def tools(tools_file):
    return ["--tools", tools_file]


def test_on_the_seed_they_part_at_step_7_on_content(seed_frontend):
    result = side_by_side.compare(seed_setup(), side_by_side.Side(SPEC),
                                  side_by_side.Side(SPEC, RUST_VERSION, rust=True), text=SEED_TEXT)
    assert result.label_b == f"vllm-rs {RUST_VERSION} hermes+qwen3"
    assert result.first_step == 7
    step = result.steps[6]
    assert step.a["text"] == "\n\n" and step.a["delta"]["content"] == "\n\n" and step.a["sse"] is True
    assert step.b["delta"] is None and step.b["sse"] is False
    differs = {(mode, d.field): (d.a, d.b) for mode, ds in result.final.items() for d in ds if not d.same}
    assert differs == {("stream", "content"): ("\n\n", None)}
    [finding] = side_by_side.findings(result)
    assert (finding.kind, finding.field, finding.first_step, finding.severity) == ("frontend", "content", 7, "error")


def test_diff_shows_it(run_cli, tools, seed_frontend):
    code, out, err = run_cli("diff", "--text", SEED_TEXT, *tools, "--a", "hermes+qwen3",
                             "--b", f"hermes+qwen3@rust@{RUST_VERSION}", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["b"]["label"] == f"vllm-rs {RUST_VERSION} hermes+qwen3" and d["b"]["parser"]["frontend"] == "vllm-rs"
    assert d["first_step"] == 7 and d["steps"][6]["output"] == ["delta", "sse"]
    assert d["final"]["stream"]["content"] == {"a": "\n\n", "b": None, "same": False}
    assert d["final"]["nonstream"]["content"]["same"] is True
    code, out, _ = run_cli("diff", "--text", SEED_TEXT, *tools, "--a", "hermes+qwen3", "--b", "hermes+qwen3@rust",
                           "--changed")
    assert code == 0 and "c:'\\n\\n'" in out and "(nothing sent)" in out and "first differing step: 7" in out


def test_check_finds_it(run_cli, tools, seed_frontend):
    code, out, err = run_cli("check", "--text", SEED_TEXT, *tools, "--tool-parser", "hermes",
                             "--reasoning-parser", "qwen3", "--frontend", f"rust@{RUST_VERSION}", "--fuzz", "0",
                             "--no-cost", "--shrink-budget", "0", "--json")
    d = json.loads(out)
    mine = [f for f in d["findings"] if f["kind"] == "frontend"]
    assert code == 1 and d["checked"]["frontend"] == f"vllm-rs {RUST_VERSION}"
    assert [(f["field"], f["first_step"], f["severity"], f["mode"]) for f in mine] == [
        ("content", 7, "error", "stream")]
    assert f"vllm-rs {RUST_VERSION} hermes+qwen3 None" in mine[0]["detail"]


def test_cut_by_max_tokens_only_pythons_answers_part(run_cli, tools, seed_frontend):
    code, out, err = run_cli("check", "--text", CUT, *tools, "--tool-parser", "hermes", "--reasoning-parser",
                             "qwen3", "--finish-reason", "length", "--frontend", "rust", "--fuzz", "0",
                             "--no-cost", "--shrink-budget", "0", "--json")
    d = json.loads(out)
    python_own = [f for f in d["findings"] if f["kind"] == "stream_vs_nonstream" and f["severity"] == "error"]
    assert {f["field"] for f in python_own} >= {"tool_calls"}  # Python: a call streamed, none in the body
    mine = {(f["mode"], f["field"]): (f["stream"], f["nonstream"]) for f in d["findings"] if f["kind"] == "frontend"}
    assert mine[("nonstream", "tool_calls")][0] == []  # Python's body has no call...
    assert mine[("nonstream", "tool_calls")][1][0]["arguments"] == '{"cit'  # ...vllm-rs's has its stream's
    code, out, _ = run_cli("replay", "--text", CUT, *tools, "--tool-parser", "hermes", "--reasoning-parser", "qwen3",
                           "--finish-reason", "length", "--frontend", "rust", "--json")
    r = json.loads(out)
    assert code == 0 and r["stream"]["tool_calls"][0]["arguments"] == r["nonstream"]["tool_calls"][0]["arguments"]
    assert r["stream"]["finish_reason"] == r["nonstream"]["finish_reason"] == "length"
    assert "".join(e for row in r["rows"] for e in row["raw"]).endswith("data: [DONE]\n\n")


@pytest.mark.parametrize("value, why", [("ruby", "--frontend takes python or rust[@VERSION]"),
                                        ("rust@0.31.0", "unknown vLLM version '0.31.0'")])
def test_a_bad_frontend_is_one_line(run_cli, value, why):
    code, out, err = run_cli("replay", "--text", "hi", "--frontend", value)
    assert code == 2 and out == "" and why in err and err.count("\n") == 1


def test_same_version_python_0_34_parts_from_vllm_rs_0_34_too(run_cli, tools, seed_frontend):
    """In the 0.34.0 lane (its Python parsers) against vllm-rs 0.34.0: the same step, the same field."""
    code, out, err = run_cli("check", "--vllm", RUST_VERSION, "--text", SEED_TEXT, *tools, "--tool-parser",
                             "hermes", "--reasoning-parser", "qwen3", "--frontend", "rust", "--fuzz", "0",
                             "--no-cost", "--shrink-budget", "0", "--json")
    d = json.loads(out)
    mine = [f for f in d["findings"] if f["kind"] == "frontend"]
    assert [(f["a"], f["b"], f["field"], f["first_step"]) for f in mine] == [
        (f"python {RUST_VERSION} hermes+qwen3", f"vllm-rs {RUST_VERSION} hermes+qwen3", "content", 7)]


def test_doctor_names_the_implementation_and_vllm_rs_parsers(run_cli, tools, seed_frontend):
    from workbench.lanes import versions

    # --vllm: the installed version only (no lane runs the doctor again for "fixed in")
    code, out, err = run_cli("doctor", "--vllm", versions.installed(), "--text", CUT, *tools, "--tool-parser", "hermes", "--reasoning-parser",
                             "qwen3", "--finish-reason", "length", "--frontend", f"rust@{RUST_VERSION}", "--json")
    d = json.loads(out)
    [found] = [g for g in d["diagnoses"] if g["code"] == "frontends_differ"]
    assert code == 1 and found["severity"] == "problem"
    assert '(tool parser "hermes", reasoning parser "qwen3")' in found["message"]
    ev = found["evidence"]
    assert ev["first_step"] == 7 and ev["fields"] == ["content", "tool_calls"]
    assert ev["where"]["tool_calls"].startswith("the Python non-streaming parser (parse)")
    assert ev["where"]["content"].startswith("both: Python's two answers disagree")
    assert ev["vllm_rs"] == {"version": RUST_VERSION, "tool_parser": "hermes", "reasoning_parser": "qwen3"}


def test_corpus_checks_each_recording_against_vllm_rs(run_cli, tmp_path, seed_frontend):
    from pathlib import Path

    seed = Path(__file__).resolve().parents[2] / "parsers" / "recordings" / "hermes" / "seed_weather.jsonl"
    code, out, err = run_cli("corpus", seed, "--check", "--frontend", "rust", "--fuzz", "0", "--workers", "1",
                             "--json")
    d = json.loads(out)
    [kind] = [k for k in d["kinds"] if k["kind"].startswith("frontend")]
    assert code == 1 and kind["kind"] == "frontend content" and kind["severe"] == 1
    assert kind["examples"][0]["first_step"] == 7 and d["spec"].endswith("frontend=rust")
    code, out, err = run_cli("corpus", seed, "--diff", "--a", "hermes+qwen3", "--b", "hermes+qwen3@rust",
                             "--frontend", "rust")
    assert code == 2 and "--frontend goes with --check" in err
