"""The in-process engine core: its structured-output manager (the grammar mask and its
reasoning gate) and the LLMEngine's parts that add one request as AsyncLLM.add_request
does (engine/stepper.py, router.py, grammar.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.core.vllm_version import vllm_version
from workbench.core.vllm_compat.seam import CompatError, _gone, _method, read, wrap

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any
    from vllm.sampling_params import SamplingParams
    from vllm.v1.engine.llm_engine import LLMEngine
    from vllm.v1.structured_output import StructuredOutputManager


def structured_output_manager(llm: LLMEngine) -> StructuredOutputManager | None:
    """The in-process engine core's StructuredOutputManager; None when the engine core runs
    in another process (``LLMEngine.engine_core`` is then not an InprocClient)."""
    core = getattr(getattr(llm, "engine_core", None), "engine_core", None)
    if core is None:
        return None
    sched = getattr(core, "scheduler", None)
    som = getattr(sched, "structured_output_manager", None) or getattr(core, "structured_output_manager", None)
    if som is None:
        raise CompatError(f"vLLM {vllm_version()}: the in-process EngineCore has no "
                          "scheduler.structured_output_manager (see workbench/core/vllm_compat/)")
    read(som, "StructuredOutputManager", "_get_constraint_bounds")  # loud at start-up, not per step
    return som


def wrap_grammar_bitmask(som: StructuredOutputManager, on_mask: Callable[..., Any]) -> None:
    """``on_mask(mask, requests, request_ids, spec_tokens)`` after each grammar_bitmask call."""
    wrap(som, "StructuredOutputManager", "grammar_bitmask", on_mask)


def model_runner(llm: LLMEngine) -> Any | None:
    """The in-process model runner (a CPUModelRunner on a CPU); None when the workers run in
    other processes (tensor or pipeline parallel, a multiprocess engine core)."""
    core = getattr(getattr(llm, "engine_core", None), "engine_core", None)
    if core is None:
        return None
    executor = read(core, "EngineCore", "model_executor")
    wrapper = getattr(executor, "driver_worker", None)  # only UniProcExecutor has one in process
    return getattr(getattr(wrapper, "worker", None), "model_runner", None)


def on_logits(runner: Any, before: Callable[[Any, list[str]], None]) -> None:
    """``before(logits, request_ids)`` each step ahead of the grammar mask and the sampler
    (``logits`` row i is ``request_ids[i]``; read it, never write it)."""
    original = _method(runner, "GPUModelRunner", "sample_tokens")

    def sample_tokens(*args: Any, **kwargs: Any) -> Any:
        state = read(runner, "GPUModelRunner", "execute_model_state")
        if state is not None:
            before(state.logits, list(read(runner, "GPUModelRunner", "input_batch").req_ids))
        return original(*args, **kwargs)

    setattr(runner, "sample_tokens", sample_tokens)


def gate_open(som: StructuredOutputManager, request: Any) -> bool:
    """The call grammar_bitmask makes to decide whether the mask applies (constraint_start 0:
    reasoning has ended, or there is no reasoning gate at all)."""
    bounds = read(som, "StructuredOutputManager", "_get_constraint_bounds")
    return bounds(request, ()).constraint_start == 0


def reasoner_per_request(som: StructuredOutputManager, reasoners: dict) -> None:
    """vLLM's own ``_get_reasoner`` builds the gate of a request listed in ``reasoners``
    (internal request id -> reasoning parser class, or None for no gate) from that class
    instead of the engine's ``--reasoning-parser`` class."""
    get_reasoner = _method(som, "StructuredOutputManager", "_get_reasoner")
    if not hasattr(som, "reasoner_cls"):
        raise _gone("StructuredOutputManager", "reasoner_cls")

    def _get_reasoner(request: Any) -> Any:
        if request.request_id not in reasoners:
            return get_reasoner(request)
        engine_cls, som.reasoner_cls = som.reasoner_cls, reasoners[request.request_id]
        try:
            return get_reasoner(request)
        finally:
            som.reasoner_cls = engine_cls

    som._get_reasoner = _get_reasoner


def prepare_request(llm: LLMEngine, request_id: str, prompt_ids: list[int], params: SamplingParams, reasoning_ended: bool | None,
                    reasoning_parser_kwargs: dict | None) -> Any:
    """The EngineCoreRequest ``LLMEngine.add_request`` builds for ``prompt_ids``, with the
    two fields only ``AsyncLLM.add_request`` takes (0.32's LLMEngine has neither), and its
    internal request id assigned. ValueError (VLLMValidationError) when vLLM refuses it."""
    from vllm.inputs.engine import tokens_input

    processor = read(llm, "LLMEngine", "input_processor")
    req = processor.process_inputs(request_id, tokens_input(list(prompt_ids)), params,
                                   supported_tasks=llm.get_supported_tasks())
    req.reasoning_ended = reasoning_ended
    req.reasoning_parser_kwargs = reasoning_parser_kwargs
    processor.assign_request_id(req)
    return req


def submit_request(llm: LLMEngine, req: Any) -> None:
    """The rest of ``LLMEngine.add_request``: outputs registered, then the engine core."""
    read(llm, "LLMEngine", "output_processor").add_request(req, None, None, 0)
    read(llm, "LLMEngine", "engine_core").add_request(req)


def held_requests(llm: LLMEngine) -> Any:
    """The internal ids of the requests the engine still holds (a live mapping)."""
    return read(llm, "LLMEngine", "output_processor").request_states


def shutdown_engine_core(llm: LLMEngine) -> None:
    read(llm, "LLMEngine", "engine_core").shutdown()
