"""core/prepare.py: the one way in. A RunSpec is plain data (it round-trips through JSON, as the
lane wire and the corpus results carry it), and a recording's run composes its parser once
(the session that replays it also checks its delta texts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.seed import SEED_TEXT, WEATHER_TOOLS
from workbench.core.parsers import ParserSpec
from workbench.core.prepare import RunSpec, prepare, resolve
from workbench.errors import WorkbenchError

SEED_REC = Path(__file__).resolve().parents[2] / "parsers" / "recordings" / "hermes" / "seed_weather.jsonl"
HERMES = ParserSpec("hermes", "qwen3")


def test_a_run_spec_round_trips_through_json():
    spec = RunSpec(text="hi", deltas=("h", "i"), parser=ParserSpec(config="x.toml"), plugins=("p.py",),
                   request={"tools": WEATHER_TOOLS, "max_tokens": 7}, api="responses", force=True, vllm="0.33.0")
    back = RunSpec.from_dict(json.loads(json.dumps(spec.to_dict())))
    assert back == spec
    ids = RunSpec(text="x", deltas=((1, 2), (3,)))
    assert RunSpec.from_dict(json.loads(json.dumps(ids.to_dict()))) == ids


@pytest.mark.parametrize("kw, message", [
    ({"text": "a", "recording": "r.jsonl"}, "not both"),
    ({"recording": "r.jsonl", "deltas": ("a",)}, "not both"),
    ({"text": "a", "deltas": ("a",), "chunking": "k:2"}, "drop --chunking"),
    ({"text": "a", "request": {"model": "x"}}, "unknown request field"),
])
def test_a_run_spec_refuses_what_cannot_run_in_one_line(kw, message):
    with pytest.raises(WorkbenchError, match=message):
        RunSpec(**kw)
    with pytest.raises(WorkbenchError, match="unknown field"):
        RunSpec.from_dict({"text": "a", "argv": ["--text", "a"]})


def test_nothing_to_run_is_one_line():
    with pytest.raises(WorkbenchError, match="nothing to check"):
        prepare(RunSpec(), what="check")


def test_a_text_run_is_the_sessions_own_deltas(qwen3_tokenizer):
    done = prepare(RunSpec(text=SEED_TEXT, parser=HERMES, request={"tools": WEATHER_TOOLS}))
    assert done.recording is None and done.setup.parser == HERMES
    assert [d.text for d in done.deltas] == [d.text for d in done.session.deltas_from_text(SEED_TEXT)]
    result = done.replay()
    assert result.stream["tool_calls"][0]["name"] == "get_weather"


def test_a_recording_takes_this_runs_fields_over_its_own_request():
    done = prepare(RunSpec(recording=str(SEED_REC), request={"max_tokens": 9}))
    assert done.setup.parser == HERMES  # the recording's own parser (vLLM's, by name)
    assert done.setup.request.max_tokens == 9 and done.setup.request.tools == done.recording.request["tools"]


@pytest.fixture
def compositions(monkeypatch):
    """Every ParserSpec composed (``core.parsers.compose``) while the test runs."""
    from workbench.core import parsers

    seen: list[ParserSpec] = []
    real = parsers.compose

    def counting(spec, *a, **kw):
        seen.append(spec)
        return real(spec, *a, **kw)

    monkeypatch.setattr(parsers, "compose", counting)
    return seen


def test_preparing_a_recording_composes_its_parser_once(compositions):
    prepare(RunSpec(recording=str(SEED_REC)))
    assert compositions == [HERMES]


def test_a_recording_replayed_with_another_parser_checks_its_texts_with_its_own(compositions):
    # the recorded parser's adjust_request decided how the ids were detokenized: two parsers, each once
    prepare(RunSpec(recording=str(SEED_REC), parser=ParserSpec("hermes")))
    assert sorted(compositions, key=repr) == sorted([HERMES, ParserSpec("hermes")], key=repr)


def test_resolve_composes_only_the_recordings_own_parser(compositions):
    resolve(RunSpec(recording=str(SEED_REC)), with_parser=False)
    assert compositions == [HERMES]


@pytest.mark.parametrize("command", ["replay", "check", "doctor"])
def test_a_command_on_a_recording_composes_its_parser_once(run_cli, compositions, command):
    from workbench.lanes.versions import installed

    extra = {"check": ["--fuzz", "2", "--no-cost", "--jobs", "1"], "doctor": ["--vllm", installed()]}.get(command, [])
    code, out, err = run_cli(command, SEED_REC, *extra)
    assert "Traceback" not in err, err
    # doctor also tries other parsers on the text (its rankings): those are not the recording's
    assert compositions.count(HERMES) == 1, compositions
