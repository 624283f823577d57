"""`workbench matrix`: a handful of cases on the installed vLLM (Python, chat, whole), its
verdicts held against a direct call of vLLM's parsers, the JSONL and the page written,
--against and --require, and bad inputs in one line with exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.direct import _direct_vllm, _joined
from workbench.lanes import versions
from workbench.conformance import cases as cases_mod

CASES = ["parsers/cases/hermes/one-call.toml", "parsers/cases/hermes/no-call.toml",
         "parsers/cases/hermes/parallel-calls.toml", "parsers/cases/hermes/reasoning-then-content.toml"]


@pytest.fixture(scope="module")
def matrix_run(tmp_path_factory):
    from workbench.cli import main

    folder = tmp_path_factory.mktemp("matrix")
    out, page = folder / "cells.jsonl", folder / "page.html"
    code = main(["matrix", *CASES, "--chunking", "whole", "--workers", "1", "-o", str(out), "--html", str(page)])
    cells = [json.loads(line) for line in out.read_text().splitlines()]
    return code, cells, out, page


def test_one_cell_per_case_on_the_installed_vllm(matrix_run):
    code, cells, _, _ = matrix_run
    assert [c["case"] for c in cells] == [cases_mod.case_id(Path(p)) for p in CASES]
    assert {(c["vllm"], c["frontend"], c["api"], c["grouping"]) for c in cells} == {
        (versions.installed(), "python", "chat", "whole")}
    failing = [c for c in cells if c["verdict"] in ("differs", "stream≠nonstream", "error")
               and not c["allowed"] and not c["no_version_passes"]]
    assert code == (1 if failing else 0)


def test_verdicts_are_what_vllm_itself_does(matrix_run, qwen3_tokenizer):
    """What each cell's streaming client ended with is what vLLM's parser streams when called
    directly (one delta: the whole text), and the verdict is that answer against the case's."""
    _, cells, _, _ = matrix_run
    for cell, path in zip(cells, CASES):
        case = cases_mod.load_cases([path])[0]
        n = len(qwen3_tokenizer.encode(case.run.text, add_special_tokens=False)) + 1
        parser = case.run.parser
        _, msgs, _ = _direct_vllm(qwen3_tokenizer, parser.tool_parser, parser.reasoning_parser, case.run.text, [n])
        reasoning, content, calls = _joined(msgs)
        got = cell["got"]
        assert got["reasoning"] == reasoning
        assert (got["content"] or "") == (content or "")
        assert [{"name": c["name"], "arguments": c["arguments"]} for c in got["tool_calls"]] == calls
        direct = cases_mod.answer_of({"reasoning": reasoning, "content": content, "tool_calls": calls,
                                      "finish_reason": got["finish_reason"]})
        if cell["verdict"] == "match":
            assert cases_mod.compare(case.expected, direct) is None
        elif cell["verdict"] == "differs":
            assert cell["field"] == cases_mod.compare(case.expected, direct).split(":")[0].split("[")[0]
        else:
            assert cell["verdict"] == "stream≠nonstream", cell


def test_each_cell_names_its_replay_command(matrix_run):
    _, cells, out, _ = matrix_run
    for c in cells:
        assert c["recording"] and c["recording"].startswith(str(out.parent / "cells.cases"))
        assert c["replay"].startswith(f"workbench replay {c['recording']} --vllm {c['vllm']}")
        assert "--chunking whole" in c["replay"]


def test_the_page_is_self_contained(matrix_run):
    _, cells, _, page = matrix_run
    html = page.read_text()
    assert "http://" not in html and "https://" not in html.replace("https://github.com", "")
    data = html.split('id="matrix-data">', 1)[1].split("</script>", 1)[0]
    assert len(json.loads(data)["cells"]) == len(cells)


def test_require_exits_1_when_a_required_cell_fails(matrix_run, run_cli, tmp_path):
    _, cells, _, _ = matrix_run
    from workbench.conformance.cells import name_of

    passing = [c for c in cells if c["verdict"] == "match"]
    failing = [c for c in cells if c["verdict"] != "match"]
    if passing:
        req = tmp_path / "ok.txt"
        req.write_text(name_of(passing[0]) + "\n")
        code, _, _ = run_cli("matrix", f"parsers/cases/{passing[0]['case']}.toml", "--chunking", "whole",
                             "--workers", "1", "--require", req)
        assert code == 0
    if failing:
        path = "parsers/cases/" + failing[0]["case"] + ".toml"
        req = tmp_path / "bad.txt"
        req.write_text(f"# this run's required cells\n{name_of(failing[0])}\n")
        code, _, err = run_cli("matrix", path, "--chunking", "whole", "--workers", "1", "--require", req)
        assert code == 1 and "required cell" in err


def test_against_an_earlier_run_marks_new_cells(matrix_run, run_cli, tmp_path):
    _, cells, out, _ = matrix_run
    code, stdout, _ = run_cli("matrix", CASES[1], "--chunking", "whole,token", "--workers", "1",
                              "--against", out, "--json")
    got = json.loads(stdout)
    changes = {c["cell"]: c["change"] for c in got["changes"]}
    assert changes[f"hermes/no-call@{versions.installed()}/python/chat/token"] == "new"
    assert sum(1 for v in changes.values() if v == "gone") == len(CASES) - 1


@pytest.mark.parametrize("argv, message", [
    (["parsers/cases/no-such-folder"], "no case files"),
    (["BAD_PARSER"], "unknown tool parser 'no_such_parser'"),
    (["NO_TOOLS"], "give [request] tools"),
    (["parsers/cases/hermes/no-call.toml", "--require", "OVERLAP"], "both name"),
    (["parsers/cases/hermes/no-call.toml", "--api", "soap"], "--api takes"),
])
def test_bad_inputs_are_one_line_and_exit_2(run_cli, tmp_path, argv, message):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "x.toml").write_text(
        'title = "x"\ncovers = ["no-call"]\ntokenizer = "qwen3"\ntext = "hi"\n'
        '[parser]\ntool_parser = "no_such_parser"\n[request]\ntools = "weather"\n'
        '[expected]\ncontent = "hi"\nfinish_reason = "stop"\n')
    (bad / "y.toml").write_text(
        'title = "y"\ncovers = ["no-call"]\ntokenizer = "qwen3"\ntext = "hi"\n'
        '[parser]\ntool_parser = "hermes"\n[expected]\ncontent = "hi"\nfinish_reason = "stop"\n')
    overlap = tmp_path / "req.txt"
    overlap.write_text("hermes/no-call@*/python/chat/token\nhermes/*@*/python/*/token\n")
    argv = [str(bad / "x.toml") if a == "BAD_PARSER" else str(bad / "y.toml") if a == "NO_TOOLS"
            else str(overlap) if a == "OVERLAP" else a for a in argv]
    code, out, err = run_cli("matrix", *argv, "--workers", "1")
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_against_pins_a_change_between_032_and_034(run_cli, tmp_path):
    """functiongemma's stream of a call after content: 0.32 streams the whole arguments; 0.34's
    stream ends without the closing brace that its non-streaming parse has."""
    case = "parsers/cases/functiongemma/content-before-call.toml"
    old = tmp_path / "v32.jsonl"
    code, _, _ = run_cli("matrix", case, "--vllm", "0.32.0", "--workers", "1", "-o", old)
    assert json.loads(old.read_text())["verdict"] == "match"
    code, out, _ = run_cli("matrix", case, "--vllm", "0.34.0", "--workers", "1", "--against", old, "--json")
    changes = json.loads(out)["changes"]
    assert [(c["cell"], c["change"], c["now"]) for c in changes] == [
        ("functiongemma/content-before-call/python/chat/token", "broken", "stream≠nonstream")]
