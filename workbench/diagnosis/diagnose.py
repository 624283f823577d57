"""`workbench doctor`: why a client sees what it sees, and which part of vLLM made it so.

The evidence comes from running vLLM, in this order: the stream as given against the
non-streaming answer (which field, from which step), the same tokens in other
groupings (check's chunking fuzz, shrunk to a minimal grouping), the text itself
(a call left open, words no field carries), and the configuration (parsers that
cannot start or do not match the text, tools off, thinking settings). ``causes``
(diagnosis/causes.py) turns it into classes, most likely first; a parser cause names
the file and method (diagnosis/where.py). Whether another vLLM version still shows it
is asked of the lanes (runs/asked.py: the CLI's doctor and the widget's Diagnose tab).
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import TYPE_CHECKING

from workbench.check import coverage, evidence as E
from workbench.diagnosis import api_evidence
from workbench.diagnosis import causes as C
from workbench.diagnosis.config import diagnoses as config_diagnoses
from workbench.diagnosis.config import where as config_where
from workbench.diagnosis import rank
from workbench.diagnosis import thinking
from workbench.diagnosis import wrote
from workbench.diagnosis.config.diagnoses import ANY_TOOL  # noqa: F401  (rank's callers)
from workbench.diagnosis.report import NOTE, PROBLEM, Diagnosis, DoctorOptions, DoctorReport  # noqa: F401
from workbench.check.contract import format_literals, parser_markers, pattern_markers
from workbench.diagnosis.literals import literal_markers
from workbench.check.suite import Checker, Options
from workbench.core.parsers import ParserSpec

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from vllm.tokenizers import TokenizerLike

    from workbench.core.deltas import Delta
    from workbench.core.session import Session, Setup
    from workbench.core.trust import CallablePolicy


def start_error(spec: ParserSpec, tokenizer: TokenizerLike, policy: CallablePolicy | None = None) -> str | None:
    """Why vLLM cannot compose this parser for this tokenizer, or None. ``policy``: this
    run's (its plugins' callables)."""
    from workbench.core import parsers

    try:
        parsers.compose(spec, tokenizer, policy)
    except Exception as e:  # noqa: BLE001  (WorkbenchError from vLLM's TypeError, ImportError...)
        return rank.error_line(e)
    return None


def _working_spec(setup: Setup, tok: TokenizerLike, report: DoctorReport) -> ParserSpec:
    from workbench.core import plugins, trust

    spec = setup.parser
    # This run's plugins register their parsers before any name is looked up, as vllm serve's
    # --tool-parser-plugin does before --tool-call-parser is read.
    loaded = [plugins.load(path) for path in setup.plugins]
    policy = trust.for_plugins(loaded, setup.allow_callables, setup.trust_spelling)
    if not (spec.tool_parser or spec.reasoning_parser or spec.config):
        return spec
    err = start_error(spec, tok, policy)
    if not err:
        return spec
    parts = [("tool", ParserSpec(spec.tool_parser)), ("reasoning", ParserSpec(None, spec.reasoning_parser))]
    broken = [kind for kind, s in parts if (s.tool_parser or s.reasoning_parser) and start_error(s, tok, policy)]
    from workbench.core.parsers import registered_names

    known = registered_names()
    unknown = [f"{kind} parser {name!r}" for kind, name in (("tool", spec.tool_parser), ("reasoning", spec.reasoning_parser))
               if name and name not in known[kind]]
    if unknown and not spec.config:
        message, fix = (f"vLLM {_vllm_version()} has no {' and no '.join(unknown)}: {err}",
                        "use a registered name (`workbench parsers` lists them), as the server's flag needs")
    else:
        message, fix = (f"vLLM refuses {spec.label()} with the {setup.tokenizer} tokenizer: {err}",
                        "use the model's own tokenizer, or a parser that matches this one (see the rankings)")
    report.diagnoses.append(Diagnosis("parser_cannot_start", PROBLEM, message, fix,
                                      {"error": err, "broken": broken or ["combination"]}))
    return ParserSpec(None if "tool" in broken or not broken else spec.tool_parser,
                      None if "reasoning" in broken or not broken else spec.reasoning_parser)


def diagnose(setup: Setup, deltas: Sequence[Delta] | None = None, text: str | None = None,
             prompt_ids: Sequence[int] | None = None, finish_reason: str = "stop",
             options: DoctorOptions | None = None, label: str | None = None,
             deltas_of: Callable[[Session], list[Delta]] | None = None,
             session: Session | None = None) -> DoctorReport:
    """Diagnose ``deltas``, a ``text`` (grouped as ``setup.chunking``, ending with
    ``finish_reason``) or what ``deltas_of(session)`` returns, under ``setup``. ``label``
    names the grouping of given deltas (a ``--chunking`` name). ``session``: one already
    made for ``setup`` (core.prepare's), so its parser is not composed again."""
    from workbench.check.compare import parser_loop_content
    from workbench.diagnosis.where import locate
    from workbench.core.session import Session
    from workbench.core.tokenizers import load_tokenizer

    opt = options or DoctorOptions()
    tok = load_tokenizer(setup.tokenizer)
    report = DoctorReport(setup={"tokenizer": setup.tokenizer, "parser": setup.parser.to_dict(),
                                 "tools": len(setup.request.tools or [])})
    working = setup.parser if session is not None else _working_spec(setup, tok, report)
    face_session = session or Session(replace(setup, parser=working), prompt_token_ids=prompt_ids)
    # The parser is the same behind every API: its evidence comes from the chat request the
    # API's converters rendered (as `record --api` runs it); the API's own stream is extra.
    session = face_session if face_session.api == "chat" else Session(
        replace(face_session.setup, api="chat", api_request=None), prompt_token_ids=face_session.prompt_ids)
    if deltas_of is not None:
        deltas = deltas_of(session)
    elif deltas is None:
        deltas = session.deltas_from_text(text, finish_reason=finish_reason)
        label = label or (setup.chunking if setup.chunking != "token" else None)
    # vLLM's detokenizer holds text back only for stop strings: without them no server does.
    holdback = 1 if session.params.stop else 0
    checker = Checker(session, deltas, Options(fuzz=opt.fuzz, shrink_budget_s=opt.shrink_budget_s,
                                               text_budget_s=opt.text_budget_s, cost=False, jobs=opt.jobs,
                                               splits="markers", holdback=holdback, keep_rows=True), label)
    checked = checker.run()
    result = checker.source
    view = session.request_view()
    report.setup.update(tool_choice=view["tool_choice"], finish_reason=deltas[-1].finish_reason,
                        chunking=label or ("token" if all(len(d.token_ids) == 1 for d in deltas) else "source"),
                        deltas=len(deltas), vllm=_vllm_version(), api=face_session.api,
                        chat_template=_template(setup.chat_template), prompt_tail=_prompt_tail(session))
    report.findings, report.checked = checked.findings, checked.checked
    report.modes = {"stream": result.stream, "nonstream": result.nonstream,
                    "parser_content": parser_loop_content(result.rows)}
    report.context = (session, deltas, checked)
    if opt.evidence_only:
        return report

    tool_names = {t["function"]["name"] for t in setup.request.tools or [] if "function" in t}
    found = config_diagnoses.run(setup, session, working, result, deltas, tool_names, report.findings,
                                 report.failures)
    report.diagnoses += found.diagnoses
    report.tool_parsers, report.reasoning_parsers = found.tool_parsers, found.reasoning_parsers
    _constraint(report, session, deltas, result.text)
    markers = checker.markers
    pairs = E.tool_marker_pairs(session)
    facts = C.Facts(text=result.text, finish=deltas[-1].finish_reason or "stop", stream=result.stream_final,
                    nonstream=result.nonstream_final, findings=checked.findings,
                    diagnoses=[d for d in report.diagnoses if d.severity == PROBLEM and d.code != "cut_off_call"],
                    markers=sorted({m for ms in parser_markers(session).values() for m in ms}
                                   | set(pattern_markers(session)) | set(literal_markers(session))) or markers,
                    literals=format_literals(session, markers), pairs=pairs,
                    starts=E.tool_starts(session, pairs), tool_names=tool_names, parallel_tool_calls=setup.request.parallel_tool_calls,
                    phase_at={r.step: r.phase_before for r in result.rows},
                    prompt_ended_reasoning=_prompt_ends_reasoning(session),
                    reads=_reader(session, result),
                    stream_reads=coverage.stream_reader(session, result, deltas[-1].finish_reason or "stop"),
                    step_ends=list(itertools.accumulate(len(d.text) for d in deltas)),
                    thinking=thinking.state(session, _prompt_tail(session, 400)),
                    reasoning_deltas=sum(1 for r in result.rows if r.sse and r.reasoning))
    report.causes = C.classify(facts, lambda role, mode, step=None: locate(
        session.parser_cls, role, mode, _tracer(session, deltas, result, mode, step)))
    config_where.attach(report.causes, session, deltas, checked)  # a config's own transitions and lines
    wrote.attach(report.causes, session, deltas, checked, result)  # a plugin's line that wrote the value
    api = api_evidence.gather(face_session, face_session.replay(deltas)) if face_session.api != "chat" else None
    if api is not None:
        report.causes += api_evidence.causes(api, C.Cause)
        report.modes["api"] = api_evidence.to_dict(api)
    return report


def _constraint(report: DoctorReport, session: Session, deltas: Sequence[Delta], text: str) -> None:
    """constraint_not_followed, first: the request's grammar refuses the text (diagnosis/constraint.py)."""
    from workbench.diagnosis import constraint

    found = constraint.check(session, [t for d in deltas for t in d.token_ids], text)
    if found is None:
        return
    begins = config_diagnoses.structural_begins(session.request)
    evidence = {**found, **({"begins": begins} if begins else {})}
    choice = session.setup.request.tool_choice
    if choice in (None, "auto", "none"):  # strict tool calling's format, a safety net: the model broke it
        report.diagnoses.append(Diagnosis(
            "strict_format_not_followed", NOTE, constraint.describe(found, choice),
            "the server that produced it did not enforce the call format (VLLM_ENFORCE_STRICT_TOOL_CALLING off, "
            "or another vLLM); vLLM's defaults would have kept the model to it", evidence))
        return
    report.diagnoses.insert(0, Diagnosis(
        "constraint_not_followed", PROBLEM, constraint.describe(found, choice),
        "the server did not apply structured outputs to this request (a backend without them, structured outputs "
        "turned off, a vLLM before the parser enforced tool_choice), or the text is not this request's: replay "
        "the text the constrained model gave; what the parser makes of this one is no evidence against it",
        evidence))


def _tracer(session: Session, deltas: Sequence[Delta], result: object, mode: str,
            step: int | None) -> Callable | None:
    """``run(hook)`` for where.producer: the step at fault again (the stream fed up to delta
    ``step``, or parse on the whole text), with ``hook`` profiling only that call."""
    import sys

    if mode == "streaming" and not step:
        return None

    def run(hook: Callable) -> None:
        stream = session.stream(keep_rows=False) if mode == "streaming" else None
        for d in deltas[:step - 1] if stream is not None else ():
            stream.feed(d)
        sys.setprofile(hook)
        try:
            if stream is not None:
                stream.feed(deltas[step - 1])
            else:
                session.nonstream(result.text, result.token_ids)
        finally:
            sys.setprofile(None)
    return run


def _reader(session: Session, result: object) -> Callable | None:
    """coverage.reader over the text, where probing it is fair (else None: no word is syntax)."""
    base = coverage.fair_base(session, result)
    return None if base is None else coverage.reader(session, result.text, base)


def _template(text: str | None) -> dict | None:
    """--chat-template FILE's text, as a report names it (the CLI adds the file's name)."""
    import hashlib

    return None if text is None else {"sha256": hashlib.sha256(text.encode()).hexdigest(), "chars": len(text)}


def _prompt_tail(session: Session, chars: int = 80) -> str:
    """The rendered prompt's last characters: where a template opens or closes thinking."""
    ids = session.prompt_ids or []
    return session.tokenizer.decode(list(ids[-40:]), skip_special_tokens=False)[-chars:] if ids else ""


def _prompt_ends_reasoning(session: Session) -> bool:
    """What vLLM's parse_delta asks first: does the prompt already end thinking?"""
    from workbench.core.runner import make_parser

    if session.parser_cls is None or session.parser_cls.reasoning_parser_cls is None or not session.prompt_ids:
        return False
    parser = make_parser(session.parser_cls, session.tokenizer, session.request,
                         session.setup.request.chat_template_kwargs)
    return bool(parser.is_reasoning_end(list(session.prompt_ids)))


def _vllm_version() -> str:
    from workbench.core.vllm_version import vllm_version

    return vllm_version()


__all__ = ["diagnose", "DoctorReport", "DoctorOptions", "Diagnosis", "start_error", "ANY_TOOL", "PROBLEM", "NOTE"]
