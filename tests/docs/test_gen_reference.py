"""docs/reference/*.md: the config schema and the plugin contract are generated from vLLM's
source (every version here) and a recorded run by docs/gen_reference.py; the committed pages
must be the generated ones."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("docs_gen_reference", ROOT / "docs" / "gen_reference.py")
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)


@pytest.mark.parametrize("kind", sorted(gen.PAGES))
def test_the_reference_pages_are_current(kind):
    if gen.missing_lanes():
        pytest.skip(f"the page lists every lane; these lane trees are not here: {gen.missing_lanes()}")
    current = gen.PAGES[kind].read_text(encoding="utf-8")
    assert gen.page(kind, current) == current, f"{gen.PAGES[kind]} is stale: run .venv/bin/python docs/gen_reference.py"


def test_the_schema_names_every_field_state_and_event_of_the_installed_vllm():
    import dataclasses

    from vllm.parser.engine.events import EventType
    from vllm.parser.engine.parser_engine_config import ParserEngineConfig, ParserState

    page = gen.PAGES["config"].read_text(encoding="utf-8")
    for name in [f.name for f in dataclasses.fields(ParserEngineConfig)] + list(ParserState.__members__) \
            + list(EventType.__members__):
        assert f"| `{name}` |" in page, name


def test_the_contract_records_the_calls_in_vllms_order():
    calls = gen.trace_calls()
    first_tool = next(i for i, c in enumerate(calls) if c.startswith("tool.extract_tool_calls_streaming"))
    ended = max(i for i, c in enumerate(calls[:first_tool]) if c.startswith("reasoning.is_reasoning_end"))
    assert calls[0].startswith("reasoning.is_reasoning_end(ids[")  # the prompt, first
    assert all(not c.startswith("tool.") for c in calls[:first_tool])  # no tool call before reasoning ends
    assert calls[ended + 1].startswith("reasoning.extract_content_ids")  # then the delta's content ids
    assert calls[-2:] == ["reasoning.extract_reasoning('::r::Hm.::/r::Hi<<x>>')", "tool.extract_tool_calls('Hi<<x>>')"]


def test_every_state_event_and_key_of_every_version_has_a_meaning_and_an_example():
    """The page against vLLM's own definitions: each version's ParserEngineConfig fields,
    ParserState and EventType members (read from its source; the installed one's classes too)
    each have a row with a meaning and an example, and nothing is explained that no version has."""
    import dataclasses

    from vllm.parser.engine.events import EventType
    from vllm.parser.engine.parser_engine_config import ParserEngineConfig, ParserState

    page = gen.PAGES["config"].read_text(encoding="utf-8").split(gen.MARKER)[1]
    lines = page.splitlines()
    written = gen.meanings()
    names = {"KEYS": {f.name for f in dataclasses.fields(ParserEngineConfig)},
             "STATES": set(ParserState.__members__), "EVENTS": set(EventType.__members__)}
    for v, tree in gen.trees().items():
        engine = tree / "parser" / "engine"
        names["KEYS"] |= {f["name"] for f in gen.fields(engine / "parser_engine_config.py")}
        names["STATES"] |= set(gen._members(engine / "parser_engine_config.py", "ParserState"))
        names["EVENTS"] |= set(gen._members(engine / "events.py", "EventType"))
    for table, expected in names.items():
        assert set(getattr(written, table)) == expected, (table, set(getattr(written, table)) ^ expected)
        for name in expected:
            meaning, example = getattr(written, table)[name]
            assert meaning and example, name
            rows = [line for line in lines if line.startswith(f"| `{name}` |")]
            assert any(gen._cell(meaning) in r and gen._code_cell(example) in r for r in rows), (name, rows)
