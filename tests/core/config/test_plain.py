"""core/config/plain.py: the stdlib + vLLM builder that exported tests and export-config --python
plugins paste builds, from a config's data, the very config and class the workbench runs."""

from __future__ import annotations

import dataclasses
import functools

import pytest

from workbench.core.config.io import PARSERS_DIR

PARSERS = sorted(PARSERS_DIR.glob("*.toml"))


def _same(a, b) -> bool:
    if isinstance(a, functools.partial) and isinstance(b, functools.partial):
        return a.func is b.func and a.args == b.args and a.keywords == b.keywords
    return a == b


@pytest.mark.parametrize("path", PARSERS, ids=lambda p: p.stem)
def test_config_from_data_equals_the_workbench_config(path):
    from workbench.core.config import io as config_io
    from workbench.core.config.plain import config_from_data

    loaded = config_io.load_file(path)
    assert loaded.ok, loaded.problems
    mine = config_from_data(loaded.data)
    for f in dataclasses.fields(mine):
        assert _same(getattr(mine, f.name), getattr(loaded.config, f.name)), (path.name, f.name)


def test_engine_class_runs_the_config_through_vllms_parse(qwen3_tokenizer):
    from workbench.core.config import io as config_io
    from workbench.core.config.plain import config_from_data, engine_class

    loaded = config_io.load_file(PARSERS_DIR / "teaching.toml")
    cls = engine_class(config_from_data(loaded.data), loaded.parser_class)
    assert cls.__name__ == "TeachingConfigParser" and cls.tool_parser_cls.__name__.endswith("ToolAdapter")
    parser = cls(qwen3_tokenizer, None)
    assert parser.parser_engine_config.name == "teaching"
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    request = ChatCompletionRequest(model="x", messages=[], tools=[{"type": "function", "function": {
        "name": "f", "parameters": {"type": "object"}}}])
    reasoning, content, calls = parser.parse('<think>hm</think>ok<tool_call>{"name": "f", "arguments": {}}'
                                             '</tool_call>', request, enable_auto_tools=True)
    assert (reasoning, content, [c.name for c in calls or []]) == ("hm", "ok", ["f"])
