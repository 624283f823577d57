"""ai-dynamo's fixtures-stream-v2 files: read as cases (their chunks the deltas, the calls they
assemble to the expected answer), run as cells, and our cases written in that shape with what
vLLM's parsers emit per chunk, which reads back as the same answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.core import door
from workbench.errors import WorkbenchError
from workbench.conformance import dynamo, run as run_mod
from workbench.conformance.cases import load_cases

EXAMPLE = Path(__file__).parent / "fixtures" / "hermes" / "TOOLCALLING.example.yaml"


def test_a_fixture_is_cases_with_its_chunks_and_assembled_calls():
    cases = dynamo.load(str(EXAMPLE))
    assert [c.id for c in cases] == ["dynamo-hermes/weather.split", "dynamo-hermes/two.calls"]
    split = cases[0]
    doc = door.read_yaml(EXAMPLE, "fixture")["cases"]["weather.split"]
    assert split.run.deltas == tuple(ch["delta_text"] for ch in doc["chunks"])
    assert split.run.text == "".join(split.run.deltas)
    assert split.run.parser.tool_parser == "hermes"
    assert split.expected.tool_calls == (("get_weather", {"city": "Paris"}),)
    assert split.expected.content == "Checking. "
    assert [n for n, _ in cases[1].expected.tool_calls] == ["get_weather", "get_weather"]


def test_fixture_cells_run_on_their_own_chunks():
    cases = dynamo.load(str(EXAMPLE))
    got = run_mod.run(cases, run_mod.Options(groupings=["token", "whole"], workers=1))
    assert [(c["grouping"], c["chunking"]) for c in got.cells] == [(run_mod.FIXTURE, "")] * 2
    # what hermes streams for these chunks on the installed vLLM is what the fixture says it emitted
    assert [c["verdict"] for c in got.cells] == ["match", "match"], [c["detail"] for c in got.cells]


def test_export_writes_what_vllm_emits_per_chunk_and_reads_back(tmp_path):
    from workbench.conformance import runs

    case = load_cases(["parsers/cases/hermes/parallel-calls.toml"])[0]
    written = dynamo.export([case], str(tmp_path), run_mod.check_options(run_mod.Options()))
    assert [p.relative_to(tmp_path) for p in written] == [Path("hermes/TOOLCALLING.parallel-calls.yaml")]
    doc = door.read_yaml(written[0], "fixture")
    chunks = doc["cases"]["parallel-calls"]["chunks"]
    python = runs.outcome(case.run.with_(chunking="token"), doc["captured_with"]["vllm_python"], "python", "chat")
    assert [ch["delta_text"] for ch in chunks] == [s["text"] for s in python["steps"]]
    assert [ch["delta_token_ids"] for ch in chunks] == [s["ids"] for s in python["steps"]]
    back = dynamo.load(str(written[0]))[0]
    from workbench.conformance.cases import answer_of

    streamed = answer_of(python["stream"])
    assert back.expected.tool_calls == streamed.tool_calls


@pytest.mark.parametrize("text, message", [
    ("a: &x [1]\nb: *x\n", "aliases"),
    ("a: !!python/object/apply:os.system ['true']\n", "not YAML"),
    ("cases: {}\n", "no `cases:`"),
])
def test_bad_fixtures_are_one_line(tmp_path, text, message):
    path = tmp_path / "f.yaml"
    path.write_text(text)
    with pytest.raises(WorkbenchError) as e:
        dynamo.load(str(path), parser="hermes")
    assert message in str(e.value) and "\n" not in str(e.value)
