"""One recording of a corpus: the worker side, from its bytes to its results line.

``run(spec, path, sha256, data)`` writes the recording (and the spec's files) into a
fresh temporary folder, runs `workbench check REC ... --json` (or `diff`) in this
process, as a person would on that file, and returns one JSON-safe line. It never
raises for a recording: bad input is the command's own one-line message in
``error``, and anything else (a bug) its type, message and traceback, so one
recording never stops the run. The first call in a process imports vLLM; every
later one reuses it, and ``--vllm`` lanes stay up between calls.
"""

from __future__ import annotations

import contextlib
import io
import os
import socket
import tempfile
import time
import traceback
from pathlib import Path

from workbench.core import door
from workbench.corpus.spec import Spec
from workbench.errors import WorkbenchError

# check's own settings for a corpus: the pool is the parallelism; cost profiles are timings.
CHECK_FIXED = ["--jobs", "1", "--no-cost", "--json"]
NOTE = ": note: "


def run(spec: dict | Spec, path: str, sha256: str, data: bytes) -> dict:
    t0 = time.perf_counter()
    spec = spec if isinstance(spec, Spec) else Spec.from_dict(spec)
    line = {"path": path, "sha256": sha256, "spec": spec.key, "mode": spec.mode, **_header_info(data, spec),
            "error": None, "error_kind": None}
    try:
        rc, out, err, names = _command(spec, path, data)
        line.update(_parse(spec, rc, out, err, names))
    except Exception as e:  # a bug, not a bad recording: kept with its traceback, the run goes on
        line.update(error=f"{type(e).__name__}: {e}", error_kind="exception", traceback=traceback.format_exc())
    line["seconds"] = round(time.perf_counter() - t0, 4)
    line["worker"] = f"{socket.gethostname()}:{os.getpid()}"
    return line


def error_line(spec: Spec, path: str, sha256: str | None, error: str, kind: str, data: bytes = b"") -> dict:
    """The results line of a recording that never ran (unreadable, or its worker died)."""
    return {"path": path, "sha256": sha256, "spec": spec.key, "mode": spec.mode, **_header_info(data, spec),
            "exit_code": None, "notes": [], "error": error, "error_kind": kind, "seconds": 0.0, "worker": None}


def _command(spec: Spec, path: str, data: bytes) -> tuple[int, str, str, dict]:
    from workbench.cli import main

    with tempfile.TemporaryDirectory(prefix="wb-corpus-") as tmp:
        rec = Path(tmp) / (Path(path).name or "recording.jsonl")
        rec.write_bytes(data)
        names = {str(rec): path}  # temporary path -> the name a person knows, for messages
        written: dict[int, Path] = {}
        argv = [spec.mode, str(rec)]
        for a in spec.argv:
            if isinstance(a, str):
                argv.append(a)
                continue
            i = a["file"]
            if i not in written:
                name, blob = spec.files[i]
                written[i] = Path(tmp) / f"f{i}" / name
                written[i].parent.mkdir()
                written[i].write_bytes(blob)
                names[str(written[i])] = name
            argv.append(str(written[i]) + a.get("suffix", ""))
        if spec.mode == "check":
            argv += CHECK_FIXED + (["--vllm", ",".join(spec.versions)] if spec.versions else [])
        else:
            argv.append("--json")
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(argv)
    return rc, out.getvalue(), err.getvalue(), names


def _rename(text: str, names: dict) -> str:
    for tmp, name in names.items():
        text = text.replace(tmp, name)
    return text


def _parse(spec: Spec, rc: int, out: str, err: str, names: dict) -> dict:
    err = _rename(err, names)
    lines = [ln.strip() for ln in err.splitlines() if ln.strip()]
    notes = [ln.split(NOTE, 1)[1] for ln in lines if NOTE in ln and ln.startswith("workbench ")]
    got = {"exit_code": rc, "notes": notes}
    if rc == 2:  # bad input: the command's one line
        last = next((ln for ln in reversed(lines) if ": error: " in ln), lines[-1] if lines else "")
        return got | {"error": last.split(": error: ", 1)[-1] or "exit code 2", "error_kind": "input"}
    try:
        report = door.parse_json(out, f"workbench {spec.mode} --json")
    except WorkbenchError:
        return got | {"error": f"{spec.mode} printed no JSON (exit code {rc})", "error_kind": "exception"}
    if spec.mode == "diff":
        return got | {"diff": diff_summary(report)}
    return got | check_summary(report, spec)


def check_summary(report: dict, spec: Spec) -> dict:
    """{"versions": {v: check --json's report, timings out}, "changes": fixed in / new in rows}."""
    from workbench.core.vllm_version import vllm_version

    if "reports" in report:  # several versions: lanes/check_matrix.py's JSON
        versions = {v: _report(report["reports"][v]) for v in report["versions"]}
        changes = [{"kind": r["kind"], "field": r["field"], "note": r["note"],
                    "in": {v: f is not None for v, f in r["in"].items()}} for r in report["findings"]]
        return {"versions": versions, "changes": changes}
    version = spec.versions[0] if spec.versions else vllm_version()
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
    given = {k: v for k, v in spec.parser.items() if v}
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
