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


def test_a_module_beside_the_config_is_found_and_loaded_again_once_edited(tmp_path):
    """``import_beside``: no installed module of the name, so the file beside; an edit (or the
    same name beside another config) loads that text, never the stale module."""
    import os
    import sys

    from workbench.core.config.plain import import_beside, resolve

    a, b = tmp_path / "a", tmp_path / "b"
    for folder, value in ((a, "1"), (b, "2")):
        folder.mkdir()
        (folder / "beside_mod.py").write_text(f"def f(raw, partial):\n    return {value!r}\n")
    try:
        with pytest.raises(ModuleNotFoundError):
            import_beside("beside_mod")
        assert resolve("beside_mod:f", [str(a)])("", False) == "1"
        (a / "beside_mod.py").write_text("def f(raw, partial):\n    return 'edited'\n")
        os.utime(a / "beside_mod.py", ns=(1, 1))  # the same size may be written in the same tick
        assert resolve("beside_mod:f", [str(a)])("", False) == "edited"
        assert resolve("beside_mod:f", [str(b)])("", False) == "2"
        assert sys.modules["beside_mod"].__file__ == str(b / "beside_mod.py")
    finally:
        sys.modules.pop("beside_mod", None)
