"""The one message model (core/messages.py): one tool-call shape for stream and
non-stream, one JSON per type, and the exported test file inlines it unchanged."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import pytest

from tests.support.seed import SEED_TEXT, WEATHER_TOOLS
from workbench.check import compare, props
from workbench.export import pytest_file as export
from workbench.core import messages, runner
from workbench.core.parsers import ParserSpec
from workbench.core.request import RequestSpec
from workbench.core.rows import Row
from workbench.core.session import Session, Setup

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def hermes(qwen3_tokenizer):
    return Session(Setup("qwen3", ParserSpec("hermes", "qwen3"), RequestSpec(tools=WEATHER_TOOLS)))


def test_stream_and_nonstream_tool_calls_have_one_shape(hermes):
    result = hermes.replay(hermes.deltas_from_text(SEED_TEXT))
    [s], [n] = result.stream["tool_calls"], result.nonstream["tool_calls"]
    assert list(s) == list(n) == ["index", "id", "name", "arguments"]
    assert (s["index"], s["name"], s["arguments"]) == (n["index"], n["name"], n["arguments"]) == \
        (0, "get_weather", '{"city": "Paris"}')
    assert s["id"].startswith("chatcmpl-tool-") and n["id"].startswith("chatcmpl-tool-")
    assert messages.Final.of(result.stream) == result.stream_final
    assert messages.Final.of(result.nonstream) == result.nonstream_final
    direct = hermes.parser_cls(hermes.tokenizer, hermes.request.tools, chat_template_kwargs={},
                               model_config=None).count_reasoning_tokens(result.token_ids)
    assert result.nonstream_final.reasoning_tokens == direct > 0


def test_a_stream_rows_lazy_delta_and_tokens_are_what_vllm_sent(hermes):
    """StreamRow makes its MessageDelta and token texts on first access; they must be
    what an eager row held: vLLM's sent DeltaMessage read as a MessageDelta, and the
    tokenizer's own token texts. The run's accumulator, which reads the DeltaMessages
    themselves, must join what the rows' deltas join."""
    run = hermes.stream()
    rows = [run.feed(d) for d in hermes.deltas_from_text(SEED_TEXT)]
    for r in rows:
        for slot in ("delta", "tokens"):  # not made yet: the slot is empty until read
            with pytest.raises(AttributeError):
                Row.__dict__[slot].__get__(r)
    sent = [r for r in rows if r.sse]
    assert sent and any(r.tool_calls for r in sent) and any(r.reasoning for r in sent)
    joined = messages.Accumulator()
    joined.add(messages.MessageDelta(content=""))  # the opening chunk's
    joined.finish_reason = run.result.finish_reason
    for r in rows:
        assert r.delta == messages.MessageDelta.from_vllm(r._sent)
        assert (r.delta is None) == (not r.sse)
        assert r.tokens == hermes.tokenizer.convert_ids_to_tokens(r.token_ids)
        if r.sse:
            joined.add(r.delta)
    assert joined.final() == run.result.final()
    assert [r.to_dict() for r in rows] == [r.to_dict() for r in run.rows]


def test_a_nonstream_parse_error_keeps_the_message_shape(hermes):
    class Raising(hermes.parser_cls):
        def parse(self, *args, **kwargs):
            raise ValueError("boom")

    deltas = hermes.deltas_from_text(SEED_TEXT)
    ids = [t for d in deltas for t in d.token_ids]
    ok = runner.nonstream(hermes.parser_cls, hermes.tokenizer, hermes.request, hermes.prompt_ids, {},
                          SEED_TEXT, ids, True).to_dict()
    bad = runner.nonstream(Raising, hermes.tokenizer, hermes.request, hermes.prompt_ids, {},
                           SEED_TEXT, ids, True).to_dict()
    assert bad["error"] == "ValueError: boom" and set(bad) == set(ok) | {"error"}
    assert bad["reasoning_tokens"] == ok["reasoning_tokens"] > 0
    assert (bad["reasoning"], bad["content"], bad["tool_calls"], bad["finish_reason"]) == (None, None, [], None)


def test_one_difference_type_keeps_each_json_shape(hermes):
    result = hermes.replay(hermes.deltas_from_text(SEED_TEXT))
    [finding] = compare.stream_vs_nonstream(result, "token")
    assert isinstance(finding, messages.Difference)
    assert list(finding.to_dict()) == ["kind", "field", "first_step", "chunking", "stream", "nonstream",
                                       "severity", "detail", "normalised"]
    step = messages.Difference(messages.STEP, None, 3, {"text": "a"}, {"text": "b"}, fields=("text",))
    assert step.to_dict() == {"step": 3, "a": {"text": "a"}, "b": {"text": "b"}, "output": ["text"],
                              "machine": False, "same": False}
    with pytest.raises(AttributeError):
        finding.detail = "changed"  # frozen


def _definitions(source: str) -> dict[str, str]:
    """Top-level name -> ast dump of every def, class and assignment in ``source``."""
    out = {}
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out[node.name] = ast.dump(node)
        elif isinstance(node, ast.Assign):
            out[ast.unparse(node.targets[0])] = ast.dump(node)
    return out


def test_exported_file_inlines_the_message_model_and_props_unchanged(hermes, tmp_path):
    case = export.build_case(hermes, hermes.deltas_from_text(SEED_TEXT))
    path = export.write_pytest(tmp_path / "test_inlined.py", case)
    exported = _definitions(path.read_text(encoding="utf-8"))
    for source in ("workbench/core/messages.py", "workbench/check/props.py"):
        for name, dump in _definitions((ROOT / source).read_text(encoding="utf-8")).items():
            assert exported.get(name) == dump, f"{name} from {source} is not inlined as it is"
    assert "import workbench" not in path.read_text() and "from workbench" not in path.read_text()

    spec = importlib.util.spec_from_file_location("_inlined_case", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["_inlined_case"] = module
    try:
        spec.loader.exec_module(module)
        steps = compare.steps_of(hermes.replay(hermes.deltas_from_text(SEED_TEXT)).rows)
        as_json = [messages.as_json(d) for d in steps]  # the exported file holds JSON steps
        assert module.accumulate(as_json).to_dict() == props.accumulate(steps).to_dict()
    finally:
        sys.modules.pop("_inlined_case", None)
