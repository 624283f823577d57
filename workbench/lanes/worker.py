"""The lane worker: the workbench's own core over one vLLM tree, driven by JSON lines.

Started by ``workbench.lanes.lane.Lane`` with that tree first on ``sys.path``. It
reads one JSON request per line on stdin and answers one JSON line on the
protocol pipe (the original stdout; fd 1 is pointed at stderr so that nothing
vLLM prints can corrupt the protocol). Requests: ``{"op": ..., **args}``;
answers: ``{"ok": true, **result}`` or ``{"ok": false, "error": "...",
"kind": "WorkbenchError"|"exception", "traceback": "..."}``.

Ops: setup (a Session), deltas_from_text, deltas_from_given, regroup, start/feed/finish (one stream,
rows per feed), replay (a whole Result), check, doctor and diff (a ``RunSpec.to_dict()``: its report),
findings (what doctor's "fixed in" reads: each finding's kind and field, no shrinking),
parsers, pytest (tests run against this lane's vLLM). The worker runs the core only; whole `workbench` commands run in
``workbench.cli.in_lane``, this worker plus a ``command`` op.

A feed answers in lines of ``FEED_BATCH`` rows, written as they are made. Between two
lines the worker looks for a ``{"op": "cancel"}`` line on stdin (the widget's Stop,
or another request that needs the pipe): it then feeds no more of that request's
deltas and ends the answer (``cancelled: true``). A cancel that arrives after the
answer ended is dropped unanswered.
"""

from __future__ import annotations

import gc
import itertools
import json
import os
import sys
import time
import traceback
from collections import OrderedDict
from typing import TYPE_CHECKING

from workbench.lanes import carried
from workbench.lanes.wire import Requests, row_fields, wire_row

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

FEED_BATCH = 128  # rows per answer line: the client decodes one while the next is made
KEPT_RUNS = 64  # finished streams whose rows can still serialise their SSE chunk


def _protocol_pipe():
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    try:  # room for a few hundred rows: the worker goes on while the widget draws the last ones
        import fcntl

        fcntl.fcntl(out.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)
    except (OSError, AttributeError, ImportError):  # not a pipe, or not Linux
        pass
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


class Worker:
    def __init__(self) -> None:
        self.sessions: dict[str, object] = {}
        self.streams: dict[str, str] = {}  # session id -> its current run id
        self.runs: OrderedDict[str, object] = OrderedDict()
        self._run_ids = itertools.count(1)
        self.requests = Requests()

    # -- sessions and streams -------------------------------------------------------------
    def op_setup(self, sid: str, setup: dict, prompt_token_ids: Sequence[int] | None = None) -> dict:
        from workbench.core.session import Session

        session = Session(setup_from_dict(carried.arrived(setup)), prompt_token_ids=prompt_token_ids)
        self.sessions[sid] = session
        self.streams.pop(sid, None)
        return {"parser": session.parser_info, "prompt_token_ids": session.prompt_ids,
                "request_view": _plain(session.request_view()),
                "enable_auto_tools": session.enable_auto_tools}

    def _session(self, sid: str):
        from workbench.errors import WorkbenchError

        if sid not in self.sessions:
            raise WorkbenchError(f"lane: no session {sid!r} (setup first)")
        return self.sessions[sid]

    def op_close_session(self, sid: str) -> dict:
        self.sessions.pop(sid, None)
        self.streams.pop(sid, None)
        return {}

    def op_deltas_from_text(self, sid: str, text: str, chunking=None, finish_reason="stop") -> dict:
        ds = self._session(sid).deltas_from_text(text, chunking, finish_reason=finish_reason)
        return {"deltas": [d.to_dict() for d in ds]}

    def op_deltas_from_given(self, sid: str, texts: list | None = None, ids: list | None = None,
                             finish_reason: str = "stop") -> dict:
        from workbench.core.chunking import GivenDeltas

        ds, notes = self._session(sid).deltas_from_given(GivenDeltas(texts, ids), finish_reason)
        return {"deltas": [d.to_dict() for d in ds], "notes": notes}

    def op_regroup(self, sid: str, deltas: list, chunking: str) -> dict:
        from workbench.core.deltas import Delta

        ds = self._session(sid).regroup([Delta.from_dict(d) for d in deltas], chunking)
        return {"deltas": [d.to_dict() for d in ds]}

    def op_start(self, sid: str) -> dict:
        rid = f"r{next(self._run_ids)}"
        self.runs[rid] = self._session(sid).stream()
        self.streams[sid] = rid
        while len(self.runs) > KEPT_RUNS:
            self.runs.popitem(last=False)
        return {"run": rid}

    def _run(self, sid: str):
        from workbench.errors import WorkbenchError

        run = self.runs.get(self.streams.get(sid, ""))
        if run is None:
            raise WorkbenchError("lane: no stream started for this session")
        return run

    def op_feed(self, sid: str, deltas: list):
        """Rows in ``WIRE`` order (``wire_row``; no chunk: ``op_chunk`` serialises it on
        demand), ``FEED_BATCH`` a line; a cancel between two lines ends the answer there.
        ``deltas``: each as ``wire_delta`` writes it."""
        from workbench.core.deltas import Delta

        run = self._run(sid)
        was = gc.isenabled()
        gc.disable()  # as Session.replay: every pass rescanned the rows of the runs held (KEPT_RUNS)
        try:
            for i in range(0, max(len(deltas), 1), FEED_BATCH):
                if i and self.requests.cancelled():
                    yield {"rows": [], "more": False, "cancelled": True}
                    return
                rows = [wire_row(run.feed(Delta(tuple(d[0]), d[1], d[2], d[3], d[4])))
                        for d in deltas[i:i + FEED_BATCH]]
                yield {"rows": rows, "more": i + FEED_BATCH < len(deltas)}
        finally:
            if was:
                gc.enable()

    def op_chunk(self, run: str, step: int) -> dict:
        from workbench.errors import WorkbenchError

        held = self.runs.get(run)
        if held is None:
            raise WorkbenchError(f"lane: stream {run} is no longer held (the last {KEPT_RUNS} are)")
        return {"chunk": held.rows[step - 1].chunk}

    def op_finish(self, sid: str, finish_reason: str = "stop") -> dict:
        run = self._run(sid)
        self.streams.pop(sid, None)
        session = self._session(sid)
        return {"stream": run.result.to_dict(), "text": run.text, "token_ids": run.token_ids,
                "nonstream": session.nonstream(run.text, run.token_ids, finish_reason).to_dict()}

    def op_nonstream(self, sid: str, text: str, token_ids: list, finish_reason: str = "stop") -> dict:
        return {"nonstream": self._session(sid).nonstream(text, token_ids, finish_reason).to_dict()}

    # -- runs from a RunSpec: check's version matrix, the doctor's "fixed in" ------------------
    def op_check(self, spec: dict, options: dict | None = None) -> dict:
        from workbench.check.on_spec import check_spec
        from workbench.check.suite import Options
        from workbench.core.prepare import RunSpec

        report, notes = check_spec(RunSpec.from_dict(carried.arrived(spec)), Options(**(options or {})))
        return {"report": _plain(report.to_dict()), "notes": notes}

    def op_doctor(self, spec: dict) -> dict:
        from workbench.diagnosis.on_spec import diagnose_spec
        from workbench.core.prepare import RunSpec

        done = diagnose_spec(RunSpec.from_dict(carried.arrived(spec)))
        return {"report": _plain(done.report.to_dict()), "notes": done.notes}

    def op_findings(self, spec: dict) -> dict:
        """What doctor's "fixed in" reads of this version (runs/asked.py): each finding's
        (kind, field, severity) and why the parser could not start here, if it could not.
        The doctor's evidence only (no causes, no parsers ranked) and unshrunk: a shrunk
        grouping or text only narrows a finding down, it never adds or drops one (check/suite.py)."""
        from workbench.diagnosis.on_spec import diagnose_spec
        from workbench.diagnosis.report import DoctorOptions
        from workbench.core.prepare import RunSpec

        report = diagnose_spec(RunSpec.from_dict(carried.arrived(spec)),
                               DoctorOptions(shrink_budget_s=0.0, text_budget_s=0.0, evidence_only=True)).report
        cannot = [d for d in report.diagnoses if d.code == "parser_cannot_start"]
        return {"findings": [[f.kind, f.field, f.severity] for f in report.findings],
                "cannot_start": (cannot[0].evidence.get("error") or cannot[0].message) if cannot else None}

    def op_diff(self, spec: dict, a: str, b: str, api_b: str | None = None) -> dict:
        from workbench.core import diff
        from workbench.core.parsers import ParserSpec
        from workbench.core.prepare import RunSpec

        result, notes = diff.on_spec(RunSpec.from_dict(carried.arrived(spec)), ParserSpec.parse(a),
                                     ParserSpec.parse(b), api_b)
        return {"result": _plain(result.to_dict()), "notes": notes, "raised": diff.raised(result)}

    # -- whole commands ------------------------------------------------------------------
    def op_parsers(self) -> dict:
        from workbench.core.parsers import parser_table

        return {"parsers": parser_table()}

    def op_machines(self, sid: str) -> dict:
        from workbench.core.machine import machines_of

        return {"machines": machines_of(self._session(sid))}

    def op_names(self) -> dict:
        from workbench.core.parsers import registered_names

        return {"names": registered_names()}

    def op_pytest(self, args: list[str]) -> dict:
        """pytest over ``args`` here; its paths absolute (the worker works in a folder of its own)."""
        import pytest

        outcomes = _Outcomes()
        rc = pytest.main(list(args), plugins=[outcomes])
        return {"rc": int(rc), "passed": outcomes.passed, "failed": outcomes.failed,
                "skipped": outcomes.skipped}

    def op_ping(self) -> dict:
        return {}

    def op_exit(self, code: int = 0) -> dict:  # tests: a lane that dies mid-stream
        os._exit(code)


class _Outcomes:
    def __init__(self) -> None:
        self.passed: list[str] = []
        self.failed: list[str] = []
        self.skipped: list[str] = []

    def pytest_runtest_logreport(self, report) -> None:
        if report.when == "call" and report.passed:
            self.passed.append(report.nodeid)
        elif report.failed:
            self.failed.append(report.nodeid)
        elif report.skipped:
            self.skipped.append(report.nodeid)


def setup_from_dict(d: dict):
    """lanes.lane_session.setup_dict's output back into a core.session.Setup."""
    from dataclasses import fields

    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Setup

    known = {f.name for f in fields(Setup)}
    kw = {k: tuple(v) if isinstance(v, list) else v for k, v in d.items() if k in known}
    kw["parser"] = ParserSpec(**d["parser"])
    kw["request"] = RequestSpec.from_dict(d["request"])
    return Setup(**kw)


def _plain(value: Any):
    """JSON-safe: anything json cannot write becomes its str()."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


def _answer(worker: Worker, line: str) -> dict | None:
    from workbench.errors import WorkbenchError

    try:
        msg = json.loads(line)
        if msg.get("op") == "cancel":  # its answer ended before the cancel came: nothing to stop
            return None
        op = getattr(worker, "op_" + msg.pop("op"), None)
        if op is None:
            raise WorkbenchError(f"lane: unknown op in {line[:80]!r}")
        out = op(**msg)
        if hasattr(out, "__next__"):  # answered in several lines; the last has more: false
            return ({"ok": True, **part} for part in out)
        return {"ok": True, **out}
    except WorkbenchError as e:
        return {"ok": False, "kind": "WorkbenchError", "error": str(e)}
    except Exception as e:  # reported to the client with its traceback, never dropped
        return {"ok": False, "kind": "exception", "error": f"{type(e).__name__}: {e}",
                "traceback": traceback.format_exc()}


def private_folder(folder: str | None = None):
    """``folder`` (else a new one) as the worker's working folder while it runs, removed when
    it ends: a relative path names nothing the user or the project checkout holds, and
    nothing the worker writes lands in either (lanes/carried.py). Its starter removes it too
    when the worker dies before it could (process.Lane.close, warm_server)."""
    import contextlib
    import shutil

    from workbench.lanes.process import new_folder

    @contextlib.contextmanager
    def held():
        at = folder or new_folder()
        os.chdir(at)
        try:
            yield at
        finally:
            os.chdir("/")
            shutil.rmtree(at, ignore_errors=True)

    return held()


def main(worker_cls: type[Worker] = Worker, folder: str | None = None) -> int:
    from workbench.lanes.process import FOLDER_ENV

    with private_folder(folder or os.environ.pop(FOLDER_ENV, None)):
        return _main(worker_cls)


def _main(worker_cls: type[Worker]) -> int:
    t0 = time.perf_counter()
    pipe = _protocol_pipe()
    import workbench.core.env  # noqa: F401  (offline defaults before vLLM loads)
    import vllm
    from workbench.core.parsers import registered_names
    from workbench.core.vllm_version import vllm_version

    names = registered_names()
    gc.freeze()  # vLLM's and torch's objects (about 640,000): a full collection mid-feed walked them all
    pipe.write(json.dumps({"ok": True, "ready": True, "vllm": vllm_version(), "file": vllm.__file__,
                           "tool": len(names["tool"]), "reasoning": len(names["reasoning"]),
                           "row_fields": row_fields(), "start_s": time.perf_counter() - t0,
                           "folder": os.getcwd()}) + "\n")
    worker = worker_cls()
    while (line := worker.requests.readline()) is not None:
        if line.strip():
            answer = _answer(worker, line)
            if answer is None:
                continue
            parts = [answer] if isinstance(answer, dict) else answer
            try:
                for part in parts:
                    pipe.write(json.dumps(part, ensure_ascii=False, separators=(",", ":"), default=str) + "\n")
            except Exception as e:  # an op that failed half-way through its answer lines
                from workbench.errors import WorkbenchError

                pipe.write(json.dumps(
                    {"ok": False, "kind": "WorkbenchError", "error": str(e)} if isinstance(e, WorkbenchError)
                    else {"ok": False, "kind": "exception", "error": f"{type(e).__name__}: {e}",
                          "traceback": traceback.format_exc()}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
