"""Step a real in-process vLLM v1 engine, one request at a time, into rows.

``EngineStepper`` turns each ``RequestOutput`` (RequestOutputKind.DELTA) into a
``Delta`` and feeds it to the same ``StreamRun`` replay uses, so an engine row
and a replayed row are made by the same code. The request is the session's:
prompt ids from its chat template, SamplingParams from its adjusted
ChatCompletionRequest, ``reasoning_ended`` / ``reasoning_parser_kwargs`` as the
chat server resolves them. Output is either scripted (exact token ids forced by
a logits processor, then EOS) or free generation.

Each stepper owns one request on the process's one engine; several steppers
(one per widget) may run at once, and ``router.OutputRouter`` hands each its
own outputs. ``reset`` aborts only the stepper's own request.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from workbench.core import serving, vllm_compat as compat
from workbench.core.deltas import Delta
from workbench.core.rows import Row
from workbench.core.runner import make_parser
from workbench.core.session import Result, Session
from workbench.engine import instance
from workbench.engine.instance import EngineSpec
from workbench.engine.grammar import view
from workbench.engine.router import Arrival, OutputRouter, router_of
from workbench.engine.script import script_ids
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from vllm.parser.abstract_parser import Parser
    from vllm.sampling_params import SamplingParams
    from workbench.engine.instance import Engine

_ids = itertools.count()


@dataclass
class EngineResult(Result):
    usage: dict = field(default_factory=dict)
    constraint: dict | None = None
    notes: list[str] = field(default_factory=list)
    engine_steps: int = 0
    finish_reason: str | None = None  # as the engine reported it


class EngineStepper:
    """``start(session, text=...)`` or ``start(session)`` (free generation), then
    ``step()`` / ``run()``; ``reset()`` drops the request; the engine stays up."""

    def __init__(self, spec: EngineSpec | None = None) -> None:
        self.spec = spec or EngineSpec()
        self.engine: instance.Engine | None = None
        self.session: Session | None = None
        self._clear()

    def _clear(self) -> None:
        self.run_ = None  # the StreamRun
        self.request_id: str | None = None
        self._router: OutputRouter | None = None
        self._internal_id: str | None = None
        self.reasoning_ended: bool | None = None
        self.deltas: list[Delta] = []
        self.script: list[int] | None = None
        self.notes: list[str] = []
        self.constraint: dict | None = None
        self.params = None
        self.engine_steps = 0
        self.finish_reason: str | None = None
        self.done = True
        self.on_delta: Callable[[Delta], None] | None = None

    # -- engine -----------------------------------------------------------------
    def load(self, session: Session, spec: EngineSpec | None = None) -> instance.Engine:
        """Make sure the engine for ``spec`` and the session's tokenizer is up."""
        spec = spec or self.spec
        reasoning = session.setup.parser.reasoning_parser
        self.engine = None
        self.engine = instance.acquire(spec, session.setup.tokenizer, session.tokenizer, reasoning)
        self.spec = spec  # only once it worked: a bad spec leaves the last good one in place
        return self.engine

    def close(self) -> None:
        self.reset()
        instance.release()
        self.engine = None

    @property
    def rows(self) -> list[Row]:
        return self.run_.rows if self.run_ is not None else []

    # -- a request --------------------------------------------------------------
    def start(self, session: Session, text: str | None = None, *, token_ids: list[int] | None = None,
              on_delta: Callable[[Delta], None] | None = None) -> None:
        """A new request: ``text`` / ``token_ids`` force the output (EOS appended to
        text), neither means free generation with the request's sampling fields."""
        self.reset()
        engine = self.load(session)
        llm = engine.llm
        max_len = llm.model_config.max_model_len
        if len(session.prompt_ids) >= max_len:
            raise WorkbenchError(f"the prompt has {len(session.prompt_ids)} tokens; the engine's "
                                 f"max_model_len is {max_len}")
        script, notes = None, []
        if text is not None or token_ids is not None:
            script, notes = script_ids(session.tokenizer, text, token_ids,
                                       llm.model_config.get_vocab_size())
        params = self._params(session, max_len)
        if script is not None:
            params.extra_args = {**(params.extra_args or {}), "workbench_script": script}
        parser = make_parser(session.parser_cls, session.tokenizer, session.request,
                             session.setup.request.chat_template_kwargs)
        from workbench.engine.grammar import constraint_of, loose_arguments

        request_id = f"wb-{next(_ids)}"
        self._add(engine, request_id, session, params, parser)
        self.session, self.params, self.script, self.notes = session, params, script, notes
        self.request_id, self.constraint = request_id, constraint_of(params)
        self.notes += loose_arguments(self.constraint, session.request.tools and
                                      [t.model_dump() for t in session.request.tools])
        self.run_ = session.stream()
        self.done, self.on_delta = False, on_delta

    def _params(self, session: Session, max_len: int):
        """SamplingParams exactly as the chat server builds them for this request (its sampling
        fields included: ``RequestSpec.temperature``, ``top_p``, ``top_k``, ``seed``)."""
        from vllm.entrypoints.serve.utils.api_utils import get_max_tokens
        from vllm.sampling_params import RequestOutputKind

        request = session.request
        defaults = self.engine.sampling_defaults
        asked = request.max_completion_tokens if request.max_completion_tokens is not None else request.max_tokens
        try:
            max_tokens = get_max_tokens(max_len, asked, len(session.prompt_ids), defaults)
        except ValueError as e:
            raise WorkbenchError(str(e)) from None
        params = request.to_sampling_params(max_tokens, defaults)
        params.output_kind = RequestOutputKind.DELTA
        return params

    def _add(self, engine: Engine, request_id: str, session: Session, params: SamplingParams, parser: Parser | None) -> None:
        """``LLMEngine.add_request`` plus what ``AsyncLLM.add_request`` also takes:
        the chat server's ``reasoning_ended`` and ``reasoning_parser_kwargs`` (set on the
        EngineCoreRequest, as AsyncLLM does: see core/vllm_compat/ on versions)."""
        llm = engine.llm
        reasoning_kwargs = None
        if parser is not None and getattr(parser, "reasoning_parser", None) is not None:
            reasoning_kwargs = {"chat_template_kwargs": dict(session.setup.request.chat_template_kwargs)}
        ended = session.request.resolve_reasoning_ended(parser, list(session.prompt_ids))
        try:
            req = compat.prepare_request(llm, request_id, list(session.prompt_ids), params, ended,
                                         reasoning_kwargs)
        except ValueError as e:  # VLLMValidationError included
            raise WorkbenchError(f"the engine refused the request: {str(e).splitlines()[0]}") from None
        # The engine core gates the grammar with --reasoning-parser's class; this
        # request gets the class its own reasoning parser names (None: no gate).
        engine.probe.watch(req.request_id, session.parser_cls.reasoning_parser_cls
                           if session.parser_cls is not None else None)
        if not (params.extra_args or {}).get("workbench_script"):  # a script's tokens are forced
            engine.candidates.watch(req.request_id)
        self._router = router_of(engine)
        self._router.open(request_id, req.request_id, self)
        compat.submit_request(llm, req)
        self._internal_id = req.request_id
        self.reasoning_ended = ended

    def reset(self) -> None:
        """Abort this stepper's request (if any); other requests and the engine stay."""
        engine = self.engine
        if engine is not None and engine is instance.current() and self.request_id is not None:
            router_of(engine).close(self.request_id)
            engine.probe.unwatch(self._internal_id)
            engine.candidates.unwatch(self._internal_id)
        self._clear()

    # -- stepping ---------------------------------------------------------------
    def step(self, until_output: bool = False) -> list[Row]:
        """The request's next row: an output that waits for it (another stepper made
        the engine step), else one engine step (no row while the engine emits nothing
        for it, e.g. while a grammar compiles; those steps are counted into the next)."""
        while not self.done:
            rows = self._step_once()
            if rows or not until_output:
                return rows
        return []

    def _step_once(self) -> list[Row]:
        if self.engine is not instance.current():
            self.done = True
            raise WorkbenchError("the engine was replaced (another model or tokenizer was loaded); "
                                 "start the request again")
        router = self._router
        try:
            arrival = router.next(self.request_id)
        except Exception as e:
            self.done = True
            self.close()
            raise WorkbenchError(f"the engine failed during a step: {instance.first_line(e)}; "
                                 f"the next request starts a new engine") from e
        rows = [self._feed(arrival)] if arrival is not None else []
        if router.done(self.request_id):
            self.done = True
            self.engine.probe.unwatch(self._internal_id)
            self.engine.candidates.unwatch(self._internal_id)
        return rows

    def _feed(self, arrival: Arrival) -> Row:
        out = arrival.output
        c = out.outputs[0]
        ids = tuple(c.token_ids)
        finish = c.finish_reason if out.finished else None
        extra = {}
        if not self.deltas and self.constraint is not None:
            extra["constraint"] = self.constraint
        masks = self.engine.probe.pop(self._internal_id, ids)
        grammar = view(masks, ids)
        if grammar is not None:
            extra["grammar"] = grammar
        if self.script is None and self.engine.candidates.available:  # a script's tokens are forced
            candidates = self.engine.candidates.take(self._internal_id, ids, masks, self.session.tokenizer)
            if candidates:
                extra["candidates"] = candidates
        if arrival.logs:
            extra["engine_logs"] = list(arrival.logs)
        delta = Delta(ids, c.text, finish, arrival.engine_steps, extra)
        self.engine_steps += arrival.engine_steps
        self.deltas.append(delta)
        if self.on_delta is not None:
            self.on_delta(delta)
        row = self.run_.feed(delta)
        if out.finished:
            self.finish_reason = finish
        return row

    def run(self) -> EngineResult:
        while not self.done:
            self._step_once()
        return self.result()

    def result(self) -> EngineResult:
        if self.run_ is None:
            raise WorkbenchError("no request: call start() first")
        s, run = self.session, self.run_
        finish = self.finish_reason or "stop"
        text = run.text
        nonstream = s.nonstream(text, run.token_ids, finish)
        notes = list(self.notes)
        if self.script is not None and run.token_ids != self.script[:len(run.token_ids)]:
            notes.append("script: the engine emitted other ids than the script")
        rejected = [(r.step, t) for r in run.rows
                    for t, ok in zip(r.token_ids, r.extra.get("grammar", {}).get("emitted_allowed", []))
                    if ok is False]
        if rejected:
            step, token = rejected[0]
            notes.append(f"the grammar did not allow token {token} "
                         f"({s.tokenizer.convert_ids_to_tokens([token])[0]!r}) at step {step}; "
                         f"the engine ended the request (finish_reason {finish})")
        elif finish == "error":
            notes.append("the engine ended the request with an error (see the last row's engine logs)")
        tool_cls = s.parser_cls.tool_parser_cls if s.parser_cls is not None else None
        stream = run.result.final()
        notes += serving.incomplete_call_notes(finish, stream, text, tool_cls)
        reasoning_tokens = nonstream.reasoning_tokens or 0
        usage = {"prompt_tokens": len(s.prompt_ids), "completion_tokens": len(run.token_ids),
                 "total_tokens": len(s.prompt_ids) + len(run.token_ids),
                 "completion_tokens_details": {"reasoning_tokens": reasoning_tokens}}
        return EngineResult(rows=run.rows, stream_final=stream, nonstream_final=nonstream,
                            parser=s.parser_info, text=text, token_ids=run.token_ids,
                            usage=usage, constraint=self.constraint, notes=notes,
                            engine_steps=self.engine_steps, finish_reason=self.finish_reason)

    def origin(self) -> dict:
        """The recording header's origin for the current request."""
        e = self.engine
        from workbench.engine.grammar import SOURCE, WRAPPED

        args = dict(e.engine_args)
        if self.session is not None:  # the gate follows the request's reasoning parser
            args["reasoning_parser"] = self.session.setup.parser.reasoning_parser or ""
        return {"kind": "engine", "model": e.model if self.spec.model is None else self.spec.model,
                "engine_args": args, "script": self.script is not None,
                "grammar_view": f"{SOURCE}: {WRAPPED}", "start_s": round(e.start_s, 2)}

