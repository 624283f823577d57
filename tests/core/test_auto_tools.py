"""One ``enable_auto_tools`` rule (``core.parsers.auto_tools``), read from the composed class,
and equal to what vLLM's server decides: its serve arguments refuse
--enable-auto-tool-choice without --tool-call-parser, so a reasoning-only parser (a name,
or a config with no tool transition) runs without auto tools, and a tool parser with them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.seed import WEATHER_TOOLS

PARSERS_DIR = Path(__file__).resolve().parents[2] / "parsers"
REASONING_ONLY = """
name = "think_only"
initial_state = "REASONING"
transitions = [
  { from = "REASONING", on = "THINK_END", to = "CONTENT", emit = ["REASONING_END"] },
]
[terminals]
THINK_END = "</think>"
[token_id_terminals]
THINK_END = "</think>"
[content_events]
CONTENT = "TEXT_CHUNK"
REASONING = "REASONING_CHUNK"
"""
TEXT = 'hm</think>Checking. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'


@pytest.fixture(scope="module")
def served():
    """``served(*argv)``: the server's enable_auto_tools for `vllm serve ARGV`, or None
    when vLLM refuses the arguments."""
    from vllm.entrypoints.launchers.cli_args import make_arg_parser, validate_parsed_serve_args
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    parser = make_arg_parser(FlexibleArgumentParser())

    def decide(*argv: str) -> bool | None:
        args = parser.parse_args(list(argv))
        try:
            validate_parsed_serve_args(args)
        except TypeError:
            return None
        return args.enable_auto_tool_choice

    return decide


def _session(spec):
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup

    return Session(Setup(parser=spec, request=RequestSpec(tools=WEATHER_TOOLS)))


def test_a_reasoning_only_config_runs_without_auto_tools_as_vllm_serves_one(tmp_path, served):
    from workbench.core.parsers import ParserSpec

    path = tmp_path / "think_only.toml"
    path.write_text(REASONING_ONLY, encoding="utf-8")
    session = _session(ParserSpec(config=str(path)))
    # vLLM would serve this parser with --reasoning-parser alone: the flag needs a tool parser
    assert served("--reasoning-parser", "think_only", "--enable-auto-tool-choice") is None
    assert session.enable_auto_tools is served("--reasoning-parser", "think_only") is False
    session.use_parser_class(session.parser_cls)  # the widget editor's path: the same rule
    assert session.enable_auto_tools is False
    final = session.replay(session.deltas_from_text(TEXT)).nonstream_final
    assert (final.tool_calls, final.finish_reason) == ((), "stop") and "<tool_call>" in final.content
    # a config with tool transitions is served with a tool parser and the flag
    tools = _session(ParserSpec(config=str(PARSERS_DIR / "teaching.toml")))
    assert tools.enable_auto_tools is served("--tool-call-parser", "teaching", "--reasoning-parser", "teaching",
                                             "--enable-auto-tool-choice") is True


@pytest.mark.parametrize("tool, reasoning", [(None, "qwen3"), ("hermes", None), ("hermes", "qwen3")])
def test_named_parsers_follow_the_server_and_its_get_parser(tool, reasoning, served, qwen3_tokenizer):
    from vllm.parser.parser_manager import ParserManager

    from workbench.core.parsers import ParserSpec

    argv = [*(["--tool-call-parser", tool, "--enable-auto-tool-choice"] if tool else []),
            *(["--reasoning-parser", reasoning] if reasoning else [])]
    flag = served(*argv)
    vllm_cls = ParserManager.get_parser(tool_parser_name=tool, reasoning_parser_name=reasoning,
                                        enable_auto_tools=flag, tool_strict_level="auto",
                                        tokenizer=qwen3_tokenizer)
    session = _session(ParserSpec(tool, reasoning))
    assert session.enable_auto_tools is flag is (vllm_cls.tool_parser_cls is not None)
