"""Every vLLM internal the workbench reads (core/vllm_compat/) exists in the installed
vLLM; when one is gone the failure names the attribute and the vLLM version."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from workbench.core import machine, vllm_compat as compat
from workbench.core.vllm_version import vllm_version
from workbench.lanes import versions


def _composed(tokenizer, tool, reasoning):
    from workbench.core.parsers import ParserSpec, compose

    cls = compose(ParserSpec(tool, reasoning), tokenizer)
    return cls(tokenizer, [], chat_template_kwargs={}, model_config=None)


def _adapters(tokenizer):
    parser = _composed(tokenizer, "qwen3_coder", "qwen3")
    return parser.reasoning_parser, parser.tool_parser


def _som_class():
    from vllm.v1.structured_output import StructuredOutputManager

    return StructuredOutputManager


def _set_in_init(cls, attr):
    """Whether ``cls.__init__`` assigns ``self.attr`` (an instance attribute with no engine built)."""
    return f"self.{attr} =" in inspect.getsource(cls.__init__) or f"self.{attr}:" in inspect.getsource(cls.__init__)


def _harmony_class():
    from vllm.parser.harmony import HarmonyParser

    return HarmonyParser


def _segment_names():
    from vllm.parser import harmony

    return {t.name for t in getattr(harmony, "_SegmentType", ())}


def _streaming_engine_class():
    from vllm.parser.engine.streaming_parser_engine import StreamingParserEngine

    return StreamingParserEngine


def _engine_class(name):
    from vllm.v1.engine import EngineCoreRequest
    from vllm.v1.engine.input_processor import InputProcessor
    from vllm.v1.engine.llm_engine import LLMEngine
    from vllm.v1.engine.output_processor import OutputProcessor

    return {"LLMEngine": LLMEngine, "InputProcessor": InputProcessor, "OutputProcessor": OutputProcessor,
            "EngineCoreRequest": EngineCoreRequest}[name]


def _source(path):
    """A vLLM module's text, read without importing it (the model runner imports CUDA parts a
    lane's parse-only tree may not load)."""
    import importlib.util

    return (Path(importlib.util.find_spec("vllm").origin).parent / path).read_text()


def _request_field(attr):
    return attr in _engine_class("EngineCoreRequest").__struct_fields__


# "Class.attribute" -> whether the installed vLLM has it, read on a real object where it is an
# instance attribute. A new entry in vllm_compat without a line here fails the test.
HAS = {
    "ParserEngine._engine": lambda tok: hasattr(_adapters(tok)[0]._parser_engine, "_engine"),
    "ParserEngineReasoningAdapter._parser_engine": lambda tok: hasattr(_adapters(tok)[0], "_parser_engine"),
    "ParserEngineToolAdapter._parser_engine": lambda tok: hasattr(_adapters(tok)[1], "_parser_engine"),
    "ParserEngineReasoningAdapter._parser_engine_cls": lambda tok: hasattr(type(_adapters(tok)[0]),
                                                                           "_parser_engine_cls"),
    "ParserEngineToolAdapter._parser_engine_cls": lambda tok: hasattr(type(_adapters(tok)[1]),
                                                                      "_parser_engine_cls"),
    "HarmonyParser._parser": lambda tok: _set_in_init(_harmony_class(), "_parser"),
    "HarmonyParser._normalize_recipient": lambda tok: callable(getattr(_harmony_class(), "_normalize_recipient", None)),
    "harmony._SegmentType": lambda tok: _segment_names() == {"TOOL", "REASONING", "CONTENT", "IGNORE"},
    "Parser._stream_state": lambda tok: hasattr(_composed(tok, "hermes", "qwen3"), "_stream_state"),
    "StructuredOutputManager._get_constraint_bounds": lambda tok: hasattr(_som_class(), "_get_constraint_bounds"),
    "StreamingParserEngine.feed": lambda tok: callable(getattr(_streaming_engine_class(), "feed", None)),
    "StreamingParserEngine._on_terminal": lambda tok: callable(getattr(_streaming_engine_class(), "_on_terminal",
                                                                       None)),
    "StreamingParserEngine.finish": lambda tok: callable(getattr(_streaming_engine_class(), "finish", None)),
    "StructuredOutputManager.grammar_bitmask": lambda tok: callable(getattr(_som_class(), "grammar_bitmask", None)),
    "StructuredOutputManager.reasoner_cls": lambda tok: _set_in_init(_som_class(), "reasoner_cls"),
    "StructuredOutputManager._get_reasoner": lambda tok: callable(getattr(_som_class(), "_get_reasoner", None)),
    "AnthropicServingMessages._detect_merge_inline_system": lambda tok: callable(
        getattr(compat.anthropic_serving(), "_detect_merge_inline_system", None)),
    "LLMEngine.input_processor": lambda tok: _set_in_init(_engine_class("LLMEngine"), "input_processor"),
    "LLMEngine.output_processor": lambda tok: _set_in_init(_engine_class("LLMEngine"), "output_processor"),
    "LLMEngine.engine_core": lambda tok: _set_in_init(_engine_class("LLMEngine"), "engine_core"),
    "InputProcessor.process_inputs": lambda tok: callable(getattr(_engine_class("InputProcessor"), "process_inputs", None)),
    "InputProcessor.assign_request_id": lambda tok: callable(getattr(_engine_class("InputProcessor"),
                                                                     "assign_request_id", None)),
    "OutputProcessor.add_request": lambda tok: callable(getattr(_engine_class("OutputProcessor"), "add_request", None)),
    "OutputProcessor.request_states": lambda tok: _set_in_init(_engine_class("OutputProcessor"), "request_states"),
    "EngineCoreRequest.reasoning_ended": lambda tok: _request_field("reasoning_ended"),
    "EngineCore.model_executor": lambda tok: "self.model_executor = " in _source("v1/engine/core.py"),
    "UniProcExecutor.driver_worker": lambda tok: "self.driver_worker = " in _source("v1/executor/uniproc_executor.py"),
    "GPUModelRunner.sample_tokens": lambda tok: "    def sample_tokens(" in _source("v1/worker/gpu_model_runner.py"),
    "GPUModelRunner.execute_model_state": lambda tok: all(
        s in _source("v1/worker/gpu_model_runner.py")
        for s in ("self.execute_model_state = ", "class ExecuteModelState(NamedTuple)", "    logits: torch.Tensor")),
    "GPUModelRunner.input_batch": lambda tok: "self.input_batch = " in _source("v1/worker/gpu_model_runner.py"),
    "EngineCoreRequest.reasoning_parser_kwargs": lambda tok: _request_field("reasoning_parser_kwargs"),
}
SEAM = {**compat.PRIVATE, **compat.WRAPPED, **compat.SET, **compat.ENGINE}


@pytest.mark.parametrize("name", sorted(SEAM))
def test_installed_vllm_has_every_internal_the_workbench_reads(name, qwen3_tokenizer):
    if name in compat.INSTALLED_ONLY and versions.in_lane():
        pytest.skip("read only by the in-process engine, which runs on the installed vLLM alone")
    assert HAS[name](qwen3_tokenizer), (
        f"vLLM {vllm_version()} has no {name}: workbench/core/vllm_compat/ reads it for {SEAM[name]}")


def test_the_seam_reads_real_parsers(qwen3_tokenizer):
    reasoning, tool = _adapters(qwen3_tokenizer)
    assert set(machine.engines(_composed(qwen3_tokenizer, "qwen3_coder", "qwen3"))) == {"reasoning", "tool"}
    assert machine.engines(_composed(qwen3_tokenizer, "hermes", None)) == {}  # legacy: no engine
    assert compat.adapter_engine_cls(type(reasoning)) is type(compat.adapter_engine(reasoning))
    hermes = _composed(qwen3_tokenizer, "hermes", "qwen3")
    assert compat.stream_state(hermes).reasoning_ended is False
    assert machine.phase(hermes) == "reasoning"


def test_a_missing_internal_fails_loudly_with_its_name_and_the_version(qwen3_tokenizer):
    parser = _composed(qwen3_tokenizer, "hermes", "qwen3")
    del parser._stream_state  # as if vLLM had renamed it
    with pytest.raises(compat.CompatError) as e:
        machine.phase(parser)
    assert "Parser._stream_state" in str(e.value) and f"vLLM {vllm_version()}" in str(e.value)

    class OldManager:  # a StructuredOutputManager without the private gate helper
        pass

    with pytest.raises(compat.CompatError, match="StructuredOutputManager._get_constraint_bounds"):
        compat.gate_open(OldManager(), request=None)
    with pytest.raises(compat.CompatError, match="StructuredOutputManager.grammar_bitmask"):
        compat.wrap_grammar_bitmask(OldManager(), lambda *a: None)
    with pytest.raises(compat.CompatError, match="StructuredOutputManager._get_reasoner"):
        compat.reasoner_per_request(OldManager(), {})


@pytest.mark.parametrize("version", [v for v in versions.listed() if not versions.is_installed(v)])
def test_every_internal_also_exists_in_the_lane_version(version):
    """The same checks run in each lane's interpreter (workbench/lanes/), so the seam is
    checked against every vLLM version the workbench runs."""
    from workbench.lanes import lane as lanes, versions

    out = lanes.get(version).call("pytest", args=["-q", "-p", "no:cacheprovider", str(versions.REPO_ROOT / "tests/core/test_vllm_compat.py"),
                                                   "-k", "not lane_version"])
    assert out["rc"] == 0, out["failed"]
    assert len(out["passed"]) >= len(HAS) - len(compat.INSTALLED_ONLY) and not out["failed"]
