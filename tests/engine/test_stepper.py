"""The real in-process vLLM engine (tiny random qwen3 model, scripted output).

One engine for the whole run (the session-scoped ``engine_stepper`` fixture);
each test starts its own request on it. Rows must equal what replaying the same
text gives, and the grammar view must be what the engine's own structured-output
manager decided.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.support.seed import SEED_TEXT, WEATHER_TOOLS
from workbench.core.parsers import ParserSpec
from workbench.core.request import RequestSpec, tool_choice_arg
from workbench.core.session import Session, Setup
from workbench.engine import EngineSpec, instance
from workbench.errors import WorkbenchError

pytestmark = pytest.mark.engine

CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
# What the required / named structural tag allows right after </think>: the call itself.
CONSTRAINED_TEXT = "<think>Weather is needed.</think>" + CALL


def session(tool_choice=None, parser=("hermes", "qwen3"), **request) -> Session:
    spec = RequestSpec(tools=WEATHER_TOOLS, tool_choice=tool_choice_arg(tool_choice), **request)
    return Session(Setup(tokenizer="qwen3", parser=ParserSpec(*parser), request=spec))


def comparable(rows) -> list[str]:
    """Rows without timings, engine-only fields and the random tool-call ids."""
    out = []
    for r in rows:
        d = r.to_dict() if hasattr(r, "to_dict") else dict(r)
        for key in ("parser_us", "engine_steps", "extra"):
            d.pop(key, None)
        out.append(re.sub(r"chatcmpl-tool-[0-9a-f]+", "ID", json.dumps(d, sort_keys=True)))
    return out


def without_ids(answer: dict) -> dict:
    answer = json.loads(re.sub(r"chatcmpl-tool-[0-9a-f]+", "ID", json.dumps(answer)))
    answer.pop("logs", None)
    return answer


def test_seed_example_streams_the_same_rows_as_replay(engine_stepper):
    s = session()
    engine_stepper.start(s, SEED_TEXT)
    first = engine_stepper.step(until_output=True)
    assert len(first) == 1 and first[0].token_ids == [s.tokenizer.convert_tokens_to_ids("<think>")]
    result = engine_stepper.run()
    replay = s.replay(s.deltas_from_text(SEED_TEXT))

    assert comparable(result.rows) == comparable(replay.rows)
    assert result.token_ids == replay.token_ids == engine_stepper.script
    assert without_ids(result.stream) == without_ids(replay.stream)
    assert without_ids(result.nonstream) == without_ids(replay.nonstream)
    assert result.stream["tool_calls"][0]["arguments"] == '{"city": "Paris"}'
    assert result.stream["finish_reason"] == "tool_calls"
    # auto tool choice with hermes: no grammar, nothing engine-specific in the rows
    assert result.constraint is None and not any(r.extra for r in result.rows)
    assert sum(r.engine_steps for r in result.rows) == result.engine_steps
    assert result.usage["completion_tokens"] == len(replay.token_ids)
    assert result.usage["completion_tokens_details"]["reasoning_tokens"] == 4
    assert result.notes == []


def test_vllm_logs_after_the_engine_start_reach_stderr_not_a_closed_file(engine_stepper, capfd):
    """The start's chatter goes to a log file that is closed after it; vLLM's handlers
    made meanwhile must not keep writing there ("--- Logging error ---", a traceback)."""
    import logging
    import sys

    engine_stepper.start(session(), SEED_TEXT)
    engine_stepper.run()
    vllm_handlers = [h for h in logging.getLogger("vllm").handlers if isinstance(h, logging.StreamHandler)]
    assert vllm_handlers and not any(getattr(h.stream, "closed", False) for h in vllm_handlers)
    logging.getLogger("vllm.tool_parsers.hermes_tool_parser").error("after the start")
    sys.stderr.flush()
    assert "Logging error" not in capfd.readouterr().err
    # A parser's logged exception is on its row, and one line on stderr: not a traceback.
    bad = '<tool_call>{"name": "get_weather", "arguments": {"city": "Par</tool_call>'
    s = session()
    result = s.replay(s.deltas_from_text(bad))
    sys.stderr.flush()
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Logging error" not in err
    assert "Error in extracting tool call from response. [JSONDecodeError" in err
    assert any("Error in extracting tool call" in line for line in result.nonstream_final.logs)


@pytest.mark.parametrize("choice, finish", [("required", "tool_calls"), ("get_weather", "stop")])
def test_tool_choice_constraint_and_grammar_rows(engine_stepper, choice, finish):
    s = session(choice)
    engine_stepper.start(s, CONSTRAINED_TEXT)
    result = engine_stepper.run()

    assert result.constraint["kind"] == "structural_tag"
    assert "get_weather" in result.constraint["spec"]
    assert [("constraint" in r.extra) for r in result.rows] == [True] + [False] * (len(result.rows) - 1)
    grammar = [r.extra["grammar"] for r in result.rows]
    assert all(g["source"] == "engine" for g in grammar)
    gates = [g["gate_open"][0] for g in grammar]
    end = result.token_ids.index(s.tokenizer.convert_tokens_to_ids("</think>"))
    # the qwen3 reasoning parser in the engine core keeps the gate shut while thinking
    assert gates == [False] * (end + 1) + [True] * (len(grammar) - end - 1)
    for g in grammar[end + 1:]:
        assert 0 < g["allowed"][0] < len(s.tokenizer) and g["emitted_allowed"] == [True]
    assert result.stream["tool_calls"][0]["name"] == "get_weather"
    assert result.stream["finish_reason"] == finish == result.nonstream["finish_reason"]
    replay = s.replay(engine_stepper.deltas)  # the same deltas, as a recording would hold them
    assert comparable(replay.rows) == comparable(result.rows)


def test_script_the_grammar_forbids_is_reported_not_raised(engine_stepper):
    s = session("required")
    engine_stepper.start(s, SEED_TEXT)  # "\n\n" after </think> is not a tool call
    result = engine_stepper.run()
    last = result.rows[-1]
    assert last.finish_reason == "error"
    assert last.extra["grammar"]["gate_open"] == [True]
    assert last.extra["grammar"]["emitted_allowed"] == [False]
    assert any("grammar rejected" in line for line in last.extra.get("engine_logs", []))
    assert any("did not allow token 271" in n for n in result.notes)
    engine_stepper.start(s, CONSTRAINED_TEXT)  # the engine carries on
    assert engine_stepper.run().stream["tool_calls"]


def test_max_tokens_inside_a_call_is_length_and_incomplete(engine_stepper):
    s = session(max_tokens=20)
    engine_stepper.start(s, SEED_TEXT)
    result = engine_stepper.run()
    assert len(result.token_ids) == 20
    assert result.rows[-1].finish_reason == "length" == result.stream["finish_reason"]
    assert result.nonstream["finish_reason"] == "length"
    assert result.stream["tool_calls"][0]["arguments"] == '{"city'
    assert any("arguments are incomplete" in n for n in result.notes)


def test_template_that_closed_thinking_starts_in_content(engine_stepper):
    s = session("required", chat_template_kwargs={"enable_thinking": False})
    assert s.tokenizer.decode(s.prompt_ids).endswith("<think>\n\n</think>\n\n")
    engine_stepper.start(s, CALL)
    assert engine_stepper.reasoning_ended is True
    result = engine_stepper.run()
    assert result.rows[0].phase_before != "reasoning"
    assert result.rows[0].extra["grammar"]["gate_open"] == [True]
    assert result.stream["reasoning"] is None and result.stream["tool_calls"]


def test_parser_change_reuses_the_engine_and_moves_the_gate(engine_stepper):
    engine_stepper.start(session(), SEED_TEXT)
    engine = instance.current()
    s = session("required", parser=("hermes", None))  # no reasoning parser: constrained at once
    engine_stepper.start(s, CALL)
    result = engine_stepper.run()
    assert instance.current() is engine
    assert result.rows[0].extra["grammar"]["gate_open"] == [True]
    assert result.stream["tool_calls"]


def test_reset_mid_request_then_a_new_request(engine_stepper):
    s = session()
    engine_stepper.start(s, SEED_TEXT)
    engine_stepper.step(until_output=True)
    engine_stepper.step(until_output=True)
    engine_stepper.reset()
    assert engine_stepper.rows == [] and not instance.current().llm.has_unfinished_requests()
    engine_stepper.start(s, SEED_TEXT)
    assert engine_stepper.run().stream["tool_calls"]


def test_record_then_replay_gives_the_same_rows(engine_stepper, run_cli, tools_file, tmp_path):
    rec = tmp_path / "rec.jsonl"
    code, out, err = run_cli("record", "--text", CONSTRAINED_TEXT, "--tool-parser", "hermes",
                             "--reasoning-parser", "qwen3", "--tools", tools_file,
                             "--tool-choice", "get_weather", "-o", rec, "--json")
    assert code == 0, err
    recorded = json.loads(out)
    header = json.loads(rec.read_text().splitlines()[0])
    assert header["origin"]["kind"] == "engine" and header["origin"]["script"] is True
    assert header["origin"]["engine_args"]["reasoning_parser"] == "qwen3"
    code, out, err = run_cli("replay", rec, "--json")
    assert code == 0, err
    replayed = json.loads(out)
    assert comparable(replayed["rows"]) == comparable(recorded["rows"])
    assert [r["extra"] for r in replayed["rows"]] == [r["extra"] for r in recorded["rows"]]
    assert [r["engine_steps"] for r in replayed["rows"]] == [r["engine_steps"] for r in recorded["rows"]]


def test_model_path_free_generation(engine_stepper, run_cli, tmp_path):
    engine_stepper.start(session(), SEED_TEXT)  # make sure the tiny model and engine exist
    folder = instance.current().model
    rec = tmp_path / "free.jsonl"
    code, out, err = run_cli("record", "--model", folder, "--tokenizer", "qwen3",
                             "--reasoning-parser", "qwen3", "--max-tokens", "4",
                             "--temperature", "0.7", "--top-p", "0.9", "--seed", "1",
                             "-o", rec, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["origin"]["script"] is False and data["origin"]["model"] == folder
    assert data["usage"]["completion_tokens"] == 4
    assert data["stream"]["finish_reason"] == "length"
    assert len(rec.read_text().splitlines()) == 1 + len(data["rows"])


def test_bad_input_is_one_line_and_the_stepper_stays_usable(engine_stepper, run_cli, tmp_path):
    s = session()
    bad_vocab = tmp_path / "small-vocab"
    bad_vocab.mkdir()
    (bad_vocab / "config.json").write_text(json.dumps({"model_type": "qwen3", "vocab_size": 1000}))
    cases = [
        (EngineSpec(model=str(tmp_path / "missing")), "no such folder"),
        (EngineSpec(model=str(bad_vocab)), "vocabulary of 1000 tokens"),
    ]
    for spec, message in cases:
        with pytest.raises(WorkbenchError, match=message) as info:
            engine_stepper.load(s, spec)
        assert "\n" not in str(info.value)
    long = session(messages=[{"role": "user", "content": "weather " * 5000}])
    with pytest.raises(WorkbenchError, match="max_model_len is 4096"):
        engine_stepper.start(long, SEED_TEXT)
    code, _, err = run_cli("record", "--model", tmp_path / "missing", "-o", tmp_path / "x.jsonl")
    assert code == 2 and err.count("\n") == 1 and "no such folder" in err
    # With vLLM's logging configured by the engine, its ERROR lines while probing a
    # broken tokenizer folder are not printed beside the workbench's one line.
    broken = tmp_path / "broken-tok"
    broken.mkdir()
    (broken / "tokenizer.json").write_text(json.dumps({"model": {"type": "BPE"}}))
    code, _, err = run_cli("replay", "--tokenizer", broken, "--text", "hi")
    assert code == 2 and err.count("\n") == 1 and "cannot be loaded" in err, err
    engine_stepper.start(s, SEED_TEXT)
    assert engine_stepper.run().stream["tool_calls"]


def test_unsupported_head_size_fails_to_start_then_recovers(engine_stepper):
    """Last: it costs a failed engine start and a rebuild of the good one."""
    s = session()
    with pytest.raises(WorkbenchError, match="engine start failed") as info:
        engine_stepper.load(s, EngineSpec(tiny={"head_dim": 16}))
    assert "\n" not in str(info.value)
    assert engine_stepper.spec == EngineSpec()
    engine_stepper.start(s, SEED_TEXT)
    assert engine_stepper.run().stream["tool_calls"][0]["arguments"] == '{"city": "Paris"}'


def test_ids_that_do_not_round_trip_are_forced_with_a_note(engine_stepper):
    s = session()
    tok = s.tokenizer
    ids = [t for piece in ("<", "think", ">", "ok") for t in tok.encode(piece, add_special_tokens=False)]
    engine_stepper.start(s, token_ids=ids + [tok.eos_token_id])
    result = engine_stepper.run()
    assert result.token_ids == ids + [tok.eos_token_id]
    assert any("not how the tokenizer encodes" in n for n in result.notes)
    assert result.text == "<think>ok"


def test_a_script_made_again_equals_a_fresh_one_and_is_the_callers_own(qwen3_tokenizer):
    """script_ids keeps the last script (Run again skips the tokenizer's round trip): the
    same ids and notes as a fresh encode, lists the caller may change, a new text anew."""
    from workbench.engine import script

    tok, vocab = qwen3_tokenizer, len(qwen3_tokenizer)
    fresh = script._script_ids(tok, SEED_TEXT, None, vocab)
    ids, notes = script.script_ids(tok, SEED_TEXT, None, vocab)
    ids.append(-1)
    notes.append("changed by the caller")
    assert script.script_ids(tok, SEED_TEXT, None, vocab) == fresh
    other = script.script_ids(tok, "<think>ok</think>", None, vocab)
    assert other == script._script_ids(tok, "<think>ok</think>", None, vocab) != fresh


def replayed(s: Session, text: str):
    return s.replay(s.deltas_from_text(text))


def test_two_steppers_on_one_engine_each_see_only_their_own_stream(engine_stepper):
    """One engine, two requests stepped in turn: vLLM steps both at once, and each
    stepper gets its own outputs (the other's wait for it) and its own grammar gate."""
    from workbench.engine import EngineStepper

    a_session = session("required")  # qwen3 reasoning: the gate opens after </think>
    b_session = session("required", parser=("hermes", None))  # no reasoning: open at once
    engine_stepper.start(a_session, CONSTRAINED_TEXT)
    other = EngineStepper()
    other.start(b_session, CALL)
    assert other.engine is engine_stepper.engine is instance.current()
    # both requests on the one engine (counted by id: another test's widget may hold one too)
    assert {engine_stepper._internal_id, other._internal_id} <= set(instance.current().llm.output_processor.request_states)
    while not (engine_stepper.done and other.done):
        engine_stepper.step(until_output=True)
        other.step(until_output=True)
    a, b = engine_stepper.result(), other.result()
    assert a.token_ids == engine_stepper.script and b.token_ids == other.script
    assert comparable(a.rows) == comparable(replayed(a_session, CONSTRAINED_TEXT).rows)
    assert comparable(b.rows) == comparable(replayed(b_session, CALL).rows)
    assert a.stream["reasoning"] == "Weather is needed." and b.stream["reasoning"] is None
    assert a.rows[-1].finish_reason == b.rows[-1].finish_reason == "tool_calls"
    assert a.rows[0].extra["grammar"]["gate_open"] == [False]
    assert b.rows[0].extra["grammar"]["gate_open"] == [True]
    assert all(ok is not False for r in a.rows + b.rows
               for ok in r.extra.get("grammar", {}).get("emitted_allowed", []))


def test_a_reset_of_one_stepper_does_not_disturb_another(engine_stepper):
    import gc

    from workbench.engine import EngineStepper

    s = session()
    engine_stepper.start(s, SEED_TEXT)
    other = EngineStepper()
    other.start(s, CALL)
    for _ in range(3):
        engine_stepper.step(until_output=True)
        other.step(until_output=True)
    other_id = other._internal_id
    other.reset()
    states = instance.current().llm.output_processor.request_states
    # by id: another test's widget may hold a request on the run's one engine too
    assert engine_stepper._internal_id in states and other_id not in states
    other.start(s, CALL)
    abandoned = EngineStepper()  # a widget dropped mid-stream, 3 steps behind the first
    abandoned.start(s, SEED_TEXT)
    dropped, dropped_id = abandoned.request_id, abandoned._internal_id
    del abandoned
    gc.collect()
    result = engine_stepper.run()
    assert comparable(result.rows) == comparable(replayed(s, SEED_TEXT).rows)
    # the dropped one was aborted, not left to run to its end
    assert not {engine_stepper._internal_id, other._internal_id, dropped_id} & set(states)
    assert dropped not in instance.current().router.boxes
    assert comparable(other.run().rows) == comparable(replayed(s, CALL).rows)  # it waited


def test_the_engine_takes_the_workbench_tokenizer(engine_stepper):
    """An engine started on a built-in tokenizer reuses the instance the session loaded
    (vLLM's own tokenizer cache, under the key its ModelConfig looks it up with), and
    loads no second copy."""
    from vllm.tokenizers import cached_tokenizer_from_config

    from workbench.core.tokenizers import load_tokenizer

    s = session()
    engine_stepper.load(s)
    llm = instance.current().llm
    assert cached_tokenizer_from_config(llm.model_config) is load_tokenizer("qwen3") is s.tokenizer
    assert instance.current().engine_args["use_tqdm_on_load"] is False  # no progress widget in a cell
