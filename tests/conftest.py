"""Shared fixtures. vLLM is imported once per test run; expensive objects are
session-scoped (one tokenizer load, one engine per run)."""

from __future__ import annotations

import json

import pytest

import workbench.core.env  # noqa: F401  (offline defaults before vLLM loads)

SEED_TEXT = ('<think>Weather is needed.</think>\n\n<tool_call>{"name": "get_weather", '
             '"arguments": {"city": "Paris"}}</tool_call>')

WEATHER_TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"},
                                                     "unit": {"type": "string"}},
                   "required": ["city"]}}}]


@pytest.fixture(scope="session")
def qwen3_tokenizer():
    from workbench.core.tokenizers import load_tokenizer

    return load_tokenizer("qwen3")


@pytest.fixture
def tools_file(tmp_path):
    p = tmp_path / "tools.json"
    p.write_text(json.dumps(WEATHER_TOOLS))
    return p


@pytest.fixture
def run_cli(capsys):
    """Run `workbench ARGS...` in-process; returns (exit code, stdout, stderr)."""
    from workbench.cli import main

    def run(*argv):
        code = main([str(a) for a in argv])
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


@pytest.fixture(scope="session")
def engine_stepper():
    """The run's one in-process vLLM engine (tiny qwen3 model), as an EngineStepper.

    Tests start their own requests on it; it is shut down at the end of the run."""
    from workbench.engine import EngineStepper

    stepper = EngineStepper()
    yield stepper
    stepper.close()
