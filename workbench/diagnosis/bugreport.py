"""`doctor --report bug.md`: an upstream-ready bug report, and its pytest file beside it.

The report holds what a vLLM maintainer asks for: the versions (and whether the
lanes' versions still show it), the server flags and request, the cause and where
in vLLM it lives, the minimal text and grouping check shrank it to, expected vs
actual in both modes, the rows where it goes wrong, and how to run the exported
test (export/pytest_file.py), which fails while the bug is there.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core.writing import markdown as md
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from workbench.diagnosis.diagnose import DoctorReport
    from workbench.core.rows import Row

ROWS_AROUND = 3


def paths(report_path: str) -> list[Path]:
    """The markdown file, the pytest file beside it (test_<stem>.py) and the minimal text;
    a path that names no file (``''``, ``/``, a folder) is one line."""
    p = Path(report_path)
    if not report_path or not p.name or report_path.endswith(("/", "\\")) or p.is_dir():
        raise WorkbenchError(f"--report {report_path!r}: give the report's file name (BUG.md), not a folder")
    if not p.parent.is_dir():
        raise WorkbenchError(f"--report {report_path}: no folder {p.parent} to write it in")
    stem = re.sub(r"\W", "_", p.stem) or "bug"
    return [p, p.with_name(f"test_{stem}.py"), p.with_name(p.stem + ".minimal.txt")]


def _flags(setup: dict, plugins: Sequence[str] = (), config: object = None) -> str:
    """The server's command line. A plugin goes in with --tool-parser-plugin, and again with
    --reasoning-parser-plugin when a reasoning parser is named (vLLM's engine core process
    imports only that one); a config, as the plugin `export-config --python` writes of it."""
    from workbench.core.writing import command

    parser = setup["parser"]
    if parser.get("config") and config is not None:
        from workbench.core.config.export_python import roles, serve_flags

        file = Path(parser["config"])
        plugin = file.stem + "_parser.py"
        flags = [command.join(["workbench", "export-config", "--python", file.name, "-o", plugin]), "&&",
                 command.join(["vllm", "serve", "MODEL"]),
                 serve_flags(config.name, plugin, roles(config))]  # type: ignore[attr-defined]
    else:
        files = [Path(p).name for p in plugins]
        argv = ["vllm", "serve", "MODEL"] + [w for f in files for w in ("--tool-parser-plugin", f)]
        if parser.get("tool_parser"):
            argv += ["--enable-auto-tool-choice", "--tool-call-parser", parser["tool_parser"]]
        if parser.get("reasoning_parser"):
            argv += [w for f in files for w in ("--reasoning-parser-plugin", f)]
            argv += ["--reasoning-parser", parser["reasoning_parser"]]
        flags = [command.join(argv)]
    template = setup.get("chat_template")
    if template:
        flags.append(command.join(["--chat-template", template.get("file") or "TEMPLATE.jinja"]))
    return " ".join(flags)


def _cell(value: object) -> str:
    """A value as JSON in a table cell (model text is data: no markup, no HTML)."""
    return md.cell(json.dumps(value, ensure_ascii=False))


def _calls(final: dict) -> list:
    return [{"name": c.get("name"), "arguments": c.get("arguments")} for c in final.get("tool_calls") or []]


def expected_actual(d: dict) -> list[str]:
    """Per field: what the reference says and what each mode gives."""
    primary = d["causes"][0]["class"] if d["causes"] else None
    st, ns = d["modes"]["stream"], d["modes"]["nonstream"]
    ref = {"parser_streaming": ("the non-streaming answer", ns), "parser_nonstreaming": ("the streaming answer", st)}
    name, expected = ref.get(primary, ("(the cause is not a parser path: both modes shown)", None))
    out = [f"Expected: {md.inline(name)}.", "", "| field | expected | streaming | non-streaming |",
           "|---|---|---|---|"]
    for field in ("reasoning", "content", "tool_calls", "finish_reason"):
        get = (lambda m: _calls(m)) if field == "tool_calls" else (lambda m: m.get(field))
        same = get(st) == get(ns)
        out.append(f"| {md.cell(field if same else field + ' ≠')} | "
                   f"{_cell(get(expected)) if expected is not None else '—'} | {_cell(get(st))} | {_cell(get(ns))} |")
    return out


def rows_table(rows: Sequence[Row], first: int | None) -> list[str]:
    if not rows:
        return []
    first = first or rows[-1].step
    lo, hi = max(first - ROWS_AROUND, 1), min(first + ROWS_AROUND, rows[-1].step)
    out = ["| step | token ids | text | phase | delta sent |", "|---|---|---|---|---|"]
    for r in rows:
        if lo <= r.step <= hi:
            sent = json.dumps(r.delta.to_dict(), ensure_ascii=False) if r.sse and r.delta is not None else "(no chunk)"
            out.append(f"| {r.step:d}{' ←' if r.step == first else ''} | {md.cell(' '.join(map(str, r.token_ids)))} | "
                       f"{_cell(r.text)} | {md.cell(r.phase)} | {md.cell(sent)} |")
    return out


def _minimal(findings: list[dict]) -> tuple[dict | None, str | None]:
    text = next((f["minimal_text"] for f in findings if f.get("minimal_text")), None)
    grouping = next((f.get("minimal_grouping") for f in findings if f.get("minimal_grouping")), None)
    return text, grouping


def _command(argv: list[str], minimal_file: str | None, grouping: str | None) -> str:
    out, skip = ["workbench", "doctor"], 0
    for a in argv:
        if skip:
            skip -= 1
            continue
        name = a.split("=", 1)[0]
        if name in ("--report", "--json") or (minimal_file and name in ("--text", "--text-file")):
            skip = 1 if name in ("--report", "--text", "--text-file") and "=" not in a else 0
            continue
        if grouping and name == "--chunking":
            skip = 1 if "=" not in a else 0
            continue
        out.append(a)
    if minimal_file:
        out += ["--text-file", minimal_file]
    if grouping:
        out += ["--chunking", grouping]
    from workbench.core.writing import command

    return command.lines(out)


def _label(parser: dict) -> str:
    """'config owl.toml', or 'hermes + qwen3': the title's parser (encoded by the caller)."""
    if parser.get("config"):
        return f"config {Path(parser['config']).name}"
    return " + ".join(parser.get(k) or "-" for k in ("tool_parser", "reasoning_parser"))


def render(report: DoctorReport, argv: list[str], test_file: str | None, minimal_file: str | None,
           no_test: str = "", copies: Sequence[str] = ()) -> str:
    """The report's Markdown. ``test_file``: the pytest file written beside it, or None (then
    ``no_test`` says why); ``copies``: the author's files copied beside it for the test."""
    from workbench.diagnosis.strength import WHAT
    from workbench.diagnosis.where import describe
    from workbench.core.config.parser import config_of

    d = report.to_dict()
    s = d["setup"]
    session, deltas, checked = report.context
    head = d["causes"][0] if d["causes"] else None
    minimal, grouping = _minimal(d["findings"])
    req = session.setup.request
    p = s["parser"]
    template = s.get("chat_template")
    lines = [f"# {md.inline(_label(p))}: "
             f"{md.inline(head['class'] + ': ' + head['summary'] if head else 'nothing wrong found')}", "",
             "## Versions and flags", "",
             f"- vLLM {md.inline(s['vllm'])} (as installed here)"
             f"{md.inline(''.join('; ' + c['versions']['verdict'] for c in d['causes'][:1] if c.get('versions')))}",
             f"- server: {md.code(_flags(s, session.setup.plugins, config_of(session.parser_cls)))}",
             f"- tokenizer: {md.code(s['tokenizer'])}",
             "- request: " + md.inline(
                 f"tools {[t['function']['name'] for t in req.tools or [] if 'function' in t]}, tool_choice "
                 f"{json.dumps(s.get('tool_choice'))}, chat_template_kwargs {json.dumps(req.chat_template_kwargs)}, "
                 f"max_tokens {req.max_tokens}, parallel_tool_calls {req.parallel_tool_calls}"),
             "- chat template: " + (f"{md.code(template.get('file') or 'given')} ({template['chars']:d} characters, "
                                    f"sha256 {md.code(template['sha256'][:16])})" if template else "the tokenizer's own"),
             f"- the prompt ends with: {md.code(json.dumps(s.get('prompt_tail', ''), ensure_ascii=False))}",
             f"- stream: {s['deltas']:d} deltas, chunking {md.code(s['chunking'])}, finish_reason "
             f"{md.code(s['finish_reason'])}", "",
             "## Cause", ""]
    for n, c in enumerate(d["causes"], 1):
        lines.append(f"{n:d}. **{md.inline(c['class'])}**"
                     f"{md.inline('' if c['severity'] == 'error' else ' (' + c['severity'] + ')')}: "
                     f"{md.inline(c['summary'])}")
        if c.get("ranked_by"):
            lines.append(f"   - ranked by: {md.inline(c['ranked_by'] + ' (' + WHAT.get(c['ranked_by'], '') + ')')}")
        if c.get("where"):
            lines.append(f"   - where: {md.inline(describe(c['where']))}")
        if c.get("versions"):
            lines.append(f"   - versions: {md.inline(c['versions']['verdict'])}")
    if d.get("not_reproduced"):
        lines += [f"No cause found: {md.inline(d['not_reproduced']['verdict'])}. Tried:", ""]
        lines += [f"- {md.inline(t)}" for t in d["not_reproduced"]["tried"]]
    elif not d["causes"]:
        lines.append("No cause found: both modes agree and no grouping changes the answer.")
    lines += ["", "## Minimal reproduction", ""]
    if minimal:
        lines += [f"Minimal text ({minimal['tokens']:d} of {minimal['of_tokens']:d} tokens, shrunk by "
                  "`workbench check`):", "", md.fence(minimal["text"]), ""]
    lines += ["Model output as given:", "", md.fence(session.tokenizer.decode(
        [t for dl in deltas for t in dl.token_ids], skip_special_tokens=False)), ""]
    if grouping:
        lines += [f"Minimal grouping: {md.code('--chunking ' + grouping)} (tokens numbered from 1, as the rows' steps count them; A-B share one delta)",
                  ""]
    lines += ["Reproduce:", "", md.fence(_command(argv, minimal_file, grouping), "sh"), "",
              "## Expected vs actual", ""] + expected_actual(d)
    first = next((f["first_step"] for f in d["findings"] if f.get("severity") == "error" and f.get("first_step")),
                 None)
    lines += ["", f"## Rows where it goes wrong (step {md.inline(first or '-')})", ""]
    lines += rows_table(checked_rows(report), first)
    lines += ["", "## Test", ""]
    if test_file is None:
        lines += [f"No test file was written: {md.inline(no_test)}", ""]
        return "\n".join(lines)
    lines += [f"{md.code(test_file)} (beside this file) replays the case through vLLM's own "
              "parser classes and fails while the bug is there:", "",
              md.fence(f"PARSER_TOKENIZER=/path/to/tokenizer pytest -q {test_file}", "sh"), ""]
    if copies:
        lines += ["It loads " + ", ".join(md.code(c) for c in copies) + " from beside it (copied from this run), "
                  "as `vllm serve --tool-parser-plugin` loads a plugin: fix the copy and it passes.", ""]
    return "\n".join(lines)


def checked_rows(report: DoctorReport) -> list[Row]:
    session, deltas, _ = report.context
    return session.replay(deltas).rows


def write(report: DoctorReport, report_path: str, argv: list[str], force: bool = False) -> list[Path]:
    """Write the report and its pytest file (``paths``, refused when they exist unless ``force``);
    the paths written."""
    from workbench.export import pytest_file as export
    from workbench.export import authored as export_code
    from workbench.core import outputs

    outputs.refuse_existing(paths(report_path), force)
    md, test, mf = paths(report_path)
    session, deltas, checked = report.context
    code = export_code.copies(session)
    export_code.targets(md.parent, code, force)
    written = []
    minimal, _ = _minimal(report.to_dict()["findings"])
    minimal_file = None
    if minimal:
        written.append(outputs.write_text(mf, minimal["text"], force))
        minimal_file = str(mf)
    test_name, no_test = None, ""
    try:
        case = export.build_case(session, deltas, checked)
    except WorkbenchError as e:  # a case no standalone test can hold (gpt-oss on --api responses)
        no_test = str(e)
    else:
        written.append(export.write_pytest(test, case, force, code))
        written += [md.parent / name for name, _ in code]
        test_name = test.name
    text = render(report, argv[1:] if argv[:1] == ["doctor"] else argv, test_name, minimal_file, no_test,
                  [name for name, _ in code] if test_name else ()) + "\n"
    return [outputs.write_text(md, text, force)] + written
