"""`workbench doctor`: why a client sees what it sees, and which part of vLLM made it so.

The text output is printed from the same dict `--json` prints. `--report bug.md`
writes an upstream-ready report and the exported pytest file beside it. Exit 1
when a cause (severity error) or a problem is diagnosed, 0 otherwise.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from workbench.cli import check_cmd, common, frontend_option
from workbench.runs.on_spec import rust_version

if TYPE_CHECKING:
    import argparse


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("doctor", help="name the cause: stream vs non-stream, groupings, the text, the settings")
    check_cmd.add_check_options(p)
    p.add_argument("--report", metavar="BUG.md",
                   help="write an upstream-ready report (versions, flags, minimal text and grouping, expected "
                        "vs actual, the rows) and test_BUG.py beside it; refuses existing files without --force")
    p.add_argument("--json", action="store_true",
                   help='one JSON object: {"ok", "setup", "causes": [{"class", ...}], "diagnoses", "findings", '
                        '"modes", "tool_parsers", "reasoning_parsers", "failures", "checked"}')
    frontend_option.add_option(p, "where the two implementations part is a diagnosis naming the one it lives in")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from workbench.diagnosis import bugreport
    from workbench.diagnosis import strength

    if args.report is not None:
        from workbench.core import outputs

        outputs.refuse_existing(bugreport.paths(args.report), args.force)
    from workbench.diagnosis.on_spec import diagnose_spec

    from workbench.lanes import versions, warm

    spec = common.run_spec(args)
    if not args.vllm and not versions.in_lane():  # "fixed in" may ask them: they start while this runs
        warm.prestart(versions.listed())
    done = diagnose_spec(spec)
    report, recording = done.report, done.recording
    for line in done.notes:
        common.note(args, line)
    if report.setup.get("chat_template") and spec.chat_template_file:
        report.setup["chat_template"]["file"] = spec.chat_template_file
    if report.parser_causes() and (args.vllm or versions.in_lane()):  # --vllm V: that version only
        for c in report.parser_causes():
            c.versions = {"checked": [report.setup["vllm"]], "verdict": f"only vLLM {report.setup['vllm']} was checked"}
    elif report.parser_causes():
        from workbench.runs.asked import attach

        attach(report.parser_causes(), spec)
        strength.with_versions(report.causes)  # a cause a later vLLM fixed is ranked by that
    if recording is not None:
        from workbench.capture import chunk_compare as capture_compare

        if capture_compare.is_capture(recording.header):
            found = capture_compare.diagnosis(done.setup, recording)
            report.diagnoses[:0] = [found] if found else []
    rust = rust_version(getattr(args, "frontend", None))
    if rust is not None:
        session, deltas, _ = report.context
        found = frontend_option.doctor_diagnosis(done.setup, deltas, session.prompt_ids, rust)
        report.diagnoses[:0] = [found] if found else []
    if args.report is not None:
        written = bugreport.write(report, args.report, getattr(args, "argv", []), args.force)
        common.note(args, "wrote " + " and ".join(str(p) for p in written))
    data = report.to_dict()
    _steps(data, report)
    if args.json:
        common.print_json(data)
    else:
        from workbench.core.writing import terminal

        terminal.lines(render(data))
    return 0 if report.ok else 1


def _parser_label(p: dict) -> str:
    return f"config:{p['config']}" if p.get("config") else f"{p.get('tool_parser') or '-'}+{p.get('reasoning_parser') or '-'}"


def _steps(data: dict, report: object) -> None:
    """Each finding's step as the tokens it covers, with the token texts around it ("at")."""
    from workbench.check import steps

    session, deltas, _ = report.context  # type: ignore[attr-defined]
    label = data["setup"].get("chunking")
    for f in data["findings"]:
        grouping = f.get("chunking") if f.get("chunking") not in ("token", "source", None) else label
        where = steps.at(session, deltas, None if grouping in ("token", "source") else grouping, f.get("first_step"))
        if where is not None:
            f["at"] = where


def _at(f: dict) -> list[str]:
    from workbench.check import steps

    return [f"      {steps.describe(f['at'])}"] if f.get("at") else []


def evidence_lines(d: dict) -> list[str]:
    found = [f for f in d["findings"] if f.get("severity") != "cosmetic"]
    modes = [f for f in found if f["kind"] == "stream_vs_nonstream"]
    chunked = [f for f in found if f["kind"] == "chunking"]
    out = ["evidence:"]
    if modes:
        for f in modes:
            out.append(f"  stream vs non-stream: {f['field']} from step {f['first_step']}: {f['detail']}")
            out += _at(f)
    else:
        out.append("  stream vs non-stream: they agree" + (" (up to whitespace / None vs '')" if any(
            f["kind"] == "stream_vs_nonstream" for f in d["findings"]) else ""))
    groupings = d["checked"].get("groupings", 0)
    if chunked:
        for f in chunked:
            out.append(f"  chunking: {f['field']} depends on the grouping ({f['detail']}); replay it with "
                       f"--chunking {f.get('minimal_grouping') or f.get('grouping') or f['chunking']}")
            out += _at(f)
    else:
        out.append(f"  chunking: no grouping of the {d['checked'].get('tokens', '?')} tokens changes the answer "
                   f"({groupings} checked)")
    for f in found:
        if f["kind"] not in ("stream_vs_nonstream", "chunking"):
            out.append(f"  {f['kind']} {f['field']}: {f['detail']}")
            out += _at(f)
    m = d["modes"]
    if m.get("api"):
        a = m["api"]
        out.append(f"  {a['api']} stream (what its SDK ends with) vs its non-streaming body: "
                   + (f"differ in {', '.join(a['differs'])}" if a["differs"] else "they agree")
                   + (f"; its events lose {', '.join(a['lost'])} the chat chunks carry" if a["lost"] else ""))
    if m.get("stream", {}).get("content") == "" and m.get("parser_content") is None:
        out.append("  stream content: \"\" is the server's opening role chunk; the parser itself sent no content")
    return out


def render(d: dict) -> list[str]:
    s = d["setup"]
    out = [f"doctor: {_parser_label(s['parser'])} on {s['tokenizer']} (vLLM {s.get('vllm')}), {s['tools']} tool(s), "
           f"tool_choice={s.get('tool_choice')}, finish_reason={s.get('finish_reason')}, "
           f"chunking={s.get('chunking')} ({s.get('deltas')} deltas), api={s.get('api', 'chat')}"
           + (f", chat template {s['chat_template'].get('file') or 'given'}" if s.get("chat_template") else "")]
    if s.get("chat_template") or any(m in s.get("prompt_tail", "") for m in ("think>", "<|channel|>")):
        out.append(f"  the prompt ends with {json.dumps(s.get('prompt_tail', ''), ensure_ascii=False)}")
    out += evidence_lines(d)
    if d["causes"]:
        out.append("causes (most likely first):")
        for n, c in enumerate(d["causes"], 1):
            sev = "" if c["severity"] == "error" else f" [{c['severity']}]"
            out.append(f"  {n}. {c['class']}{sev}: {c['summary']}")
            if c.get("ranked_by"):
                from workbench.diagnosis.strength import WHAT

                out.append(f"       ranked by: {c['ranked_by']} ({WHAT.get(c['ranked_by'], '')})")
            for e in c["evidence"][:4]:
                out.append(f"       {e}")
            if c.get("where"):
                from workbench.diagnosis.where import describe

                out.append(f"       where: {describe(c['where'])}")
            if c.get("versions"):
                v = c["versions"]
                out.append(f"       versions: {v['verdict']} (checked {', '.join(v['checked'])})")
    for dg in d["diagnoses"]:
        out.append(f"  {'✗' if dg['severity'] == 'problem' else 'i'} {dg['code']}: {dg['message']}")
        if dg["fix"]:
            out.append(f"      fix: {dg['fix']}")
    if d["tool_parsers"]:
        out.append("  tool parsers that extract well-formed calls from this text (best first):")
        for r in d["tool_parsers"][:8]:
            names = ", ".join(n if n else "(no name)" for n in r["names"])
            out.append(f"    {r['parser']:<16} {r['ok_calls']} well-formed call(s) non-stream, "
                       f"{r['ok_stream_calls']} streamed: {names}"
                       f"{'' if r['stream_agrees'] else '  (stream differs)'}{'' if r['valid_json'] else '  (bad JSON)'}")
    if d["reasoning_parsers"]:
        out.append("  reasoning parsers that extract the thinking: "
                   + ", ".join(r["parser"] for r in d["reasoning_parsers"][:8]))
    if d["failures"]:
        out.append(f"  {len(d['failures'])} parser(s) whose markers are in the text could not run: "
                   + ", ".join(f"{f['kind']}:{f['parser']} ({f['error']})" for f in d["failures"][:6]))
    if d.get("not_reproduced"):
        out.append(f"nothing wrong found: {d['not_reproduced']['verdict']}; tried:")
        out += [f"  - {t}" for t in d["not_reproduced"]["tried"]]
    return out
