"""One recording of a corpus: the worker side, from its bytes to its results line.

``run(spec, path, sha256, data)`` writes the recording (and the files the spec carries) into
a fresh temporary folder, runs check (or diff) on it through the core, as `workbench check`
would (``runs.on_spec``: the run prepared from its ``RunSpec``), and returns one JSON-safe
line that carries that RunSpec. It never raises for a recording: bad input is its one-line
message in ``error``, and anything else (a bug) its type, message and traceback, so one
recording never stops the run. The first call in a process imports vLLM; every later one
reuses it, and ``--vllm`` lanes stay up between calls.
"""

from __future__ import annotations

import os
import socket
import tempfile
import time
import traceback
from pathlib import Path

from workbench.core import door
from workbench.corpus.spec import Spec
from workbench.errors import LaneFailed, WorkbenchError


def run(spec: dict | Spec, path: str, sha256: str, data: bytes) -> dict:
    t0 = time.perf_counter()
    spec = spec if isinstance(spec, Spec) else Spec.from_dict(spec)
    line = {"path": path, "sha256": sha256, "spec": spec.key, "mode": spec.mode, **_header_info(data, spec),
            "run": dict(spec.run, recording=path), "error": None, "error_kind": None}
    try:
        line.update(_run(spec, path, data))
    except Exception as e:  # a bug, not a bad recording: kept with its traceback, the run goes on
        line.update(error=f"{type(e).__name__}: {e}", error_kind="exception", traceback=traceback.format_exc())
    line["seconds"] = round(time.perf_counter() - t0, 4)
    line["worker"] = f"{socket.gethostname()}:{os.getpid()}"
    return line


def error_line(spec: Spec, path: str, sha256: str | None, error: str, kind: str, data: bytes = b"") -> dict:
    """The results line of a recording that never ran (unreadable, or its worker died)."""
    return {"path": path, "sha256": sha256, "spec": spec.key, "mode": spec.mode, **_header_info(data, spec),
            "run": dict(spec.run, recording=path), "exit_code": None, "notes": [], "error": error,
            "error_kind": kind, "seconds": 0.0, "worker": None}


def _run(spec: Spec, path: str, data: bytes) -> dict:
    with tempfile.TemporaryDirectory(prefix="wb-corpus-") as tmp:
        rec = Path(tmp) / (Path(path).name or "recording.jsonl")
        rec.write_bytes(data)
        names = {str(rec): path} | {str(Path(tmp) / f"f{i}" / n): n for i, (_, n, _) in enumerate(spec.files)}
        run_spec, options = spec.for_recording(str(rec), Path(tmp))
        try:
            got = _diff(run_spec, options) if spec.mode == "diff" else _check(run_spec, options, spec.versions)
        except WorkbenchError as e:  # bad input: its one line, as the command prints it
            return {"exit_code": 2, "notes": [], "error": _rename(str(e), names) or "exit code 2",
                    "error_kind": "input"}
        except LaneFailed as e:  # a bug inside a lane
            return {"exit_code": e.exit_code, "notes": [], "error": _rename(str(e), names), "error_kind": "exception"}
    got["notes"] = [_rename(n, names) for n in got["notes"]]
    return got


def _check(run_spec, options: dict, versions: list[str]) -> dict:
    from workbench.runs.on_spec import check_spec
    from workbench.check.suite import Options
    from workbench.runs.version_matrix import exit_code, reports_of, table

    shrink = options.get("shrink_budget", 5.0)
    opts = Options(**{k: v for k, v in options.items() if k not in ("shrink_budget", "frontend")},
                   shrink_budget_s=max(shrink, 0.1), text_budget_s=shrink, cost=False, jobs=1)
    if len(versions) > 1 or (versions and not _installed(versions[0])):
        reports = reports_of(run_spec, opts, versions)
        code = max(exit_code(r, False) for r in reports.values())
        if len(versions) == 1:
            return {"exit_code": code, "notes": []} | check_summary(reports[versions[0]], versions)
        report = {"versions": versions, "findings": table(reports, versions), "reports": reports}
        return {"exit_code": code, "notes": []} | check_summary(report, versions)
    report, notes = check_spec(run_spec, opts, options.get("frontend"))
    return {"exit_code": report.exit_code(), "notes": notes} | check_summary(report.to_dict(), versions)


def _diff(run_spec, options: dict) -> dict:
    from workbench.runs.on_spec import diff_spec, parse_side

    try:
        a, b = parse_side(options["a"]), parse_side(options["b"])
    except ValueError as e:
        raise WorkbenchError(f"--a/--b: {e}") from None
    result, notes = diff_spec(run_spec, a, b, options.get("api_b"))
    errors = result.a.errors + result.b.errors
    return {"exit_code": 1 if errors else 0, "notes": notes, "diff": diff_summary(result.to_dict())}


def _installed(version: str) -> bool:
    from workbench.lanes import versions

    return versions.is_installed(version)


def _rename(text: str, names: dict) -> str:
    for tmp, name in names.items():
        text = text.replace(tmp, name)
    return text


def check_summary(report: dict, versions: list[str]) -> dict:
    """{"versions": {v: check's report, timings out}, "changes": fixed in / new in rows}."""
    from workbench.core.vllm_version import vllm_version

    if "reports" in report:  # several versions: runs.version_matrix's table
        out = {v: _report(report["reports"][v]) for v in report["versions"]}
        changes = [{"kind": r["kind"], "field": r["field"], "note": r["note"],
                    "in": {v: f is not None for v, f in r["in"].items()}} for r in report["findings"]]
        return {"versions": out, "changes": changes}
    version = versions[0] if versions else vllm_version()
    return {"versions": {version: _report(report)}, "changes": []}


def _report(r: dict) -> dict:
    checked = {k: v for k, v in (r.get("checked") or {}).items() if k != "seconds"}
    return {"consistent": r["consistent"], "findings": r["findings"], "checked": checked}


def diff_summary(d: dict) -> dict:
    """The A/B of one recording: the first differing step and what differs there and at the end."""
    first = d.get("first_step")
    at = next((s for s in d.get("steps", []) if s.get("step") == first), None) if first else None
    final = {f"{mode}.{name}": {"a": p["a"], "b": p["b"]}
             for mode, fields in (d.get("final") or {}).items() for name, p in fields.items() if not p["same"]}
    return {"a": d["a"]["label"], "b": d["b"]["label"], "same": d["same"], "first_step": first,
            "first_machine_step": d.get("first_machine_step"), "at_first_step": (at or {}).get("output", []),
            "steps_differing": sum(1 for s in d.get("steps", []) if not s.get("same")), "final": final}


def _header_info(data: bytes, spec: Spec) -> dict:
    """The header's tokenizer, origin and parser (as the command resolves it), for the report."""
    try:
        head = door.parse_json(data.split(b"\n", 1)[0].decode("utf-8"), "header")
    except (WorkbenchError, UnicodeDecodeError):  # the command's own error line says why
        head = None
    head = head if isinstance(head, dict) else {}
    given = {k: spec.parser.get(k) for k in ("tool_parser", "reasoning_parser", "config") if spec.parser.get(k)}
    recorded = head.get("parser") if isinstance(head.get("parser"), dict) else {}
    src = given or recorded
    if src.get("config"):
        parser = f"config:{Path(str(src['config'])).name}"
    else:
        parser = f"{src.get('tool_parser') or '-'}+{src.get('reasoning_parser') or '-'}"
    origin = head.get("origin") if isinstance(head.get("origin"), dict) else {}
    tok = head.get("tokenizer") if isinstance(head.get("tokenizer"), dict) else {}
    return {"parser": parser if spec.mode == "check" else None, "tokenizer": tok.get("name"),
            "origin": origin.get("kind")}
