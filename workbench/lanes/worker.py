"""The lane worker: the workbench's own core over one vLLM tree, driven by JSON lines.

Started by ``workbench.lanes.lane.Lane`` with that tree first on ``sys.path``. It
reads one JSON request per line on stdin and answers one JSON line on the
protocol pipe (the original stdout; fd 1 is pointed at stderr so that nothing
vLLM prints can corrupt the protocol). Requests: ``{"op": ..., **args}``;
answers: ``{"ok": true, **result}`` or ``{"ok": false, "error": "...",
"kind": "WorkbenchError"|"exception", "traceback": "..."}``.

Ops: setup (a Session), deltas_from_text, regroup, start/feed/finish (one stream,
rows per feed), replay (a whole Result), parsers, cli (a whole `workbench`
command), pytest (tests run against this lane's vLLM).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import time
import traceback


def _protocol_pipe():
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


class Worker:
    def __init__(self) -> None:
        self.sessions: dict[str, object] = {}
        self.streams: dict[str, object] = {}

    # -- sessions and streams -------------------------------------------------------------
    def op_setup(self, sid: str, setup: dict, prompt_token_ids=None) -> dict:
        from workbench.core.parsers import ParserSpec
        from workbench.core.request import RequestSpec
        from workbench.core.session import Session, Setup

        s = Setup(tokenizer=setup["tokenizer"], parser=ParserSpec(**setup["parser"]),
                  request=RequestSpec.from_dict(setup["request"]), chunking=setup.get("chunking", "token"),
                  plugins=tuple(setup.get("plugins", ())))
        session = Session(s, prompt_token_ids=prompt_token_ids)
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

    def op_regroup(self, sid: str, deltas: list, chunking: str) -> dict:
        from workbench.core.deltas import Delta

        ds = self._session(sid).regroup([Delta.from_dict(d) for d in deltas], chunking)
        return {"deltas": [d.to_dict() for d in ds]}

    def op_start(self, sid: str) -> dict:
        self.streams[sid] = self._session(sid).stream()
        return {}

    def op_feed(self, sid: str, deltas: list) -> dict:
        from workbench.core.deltas import Delta

        run = self.streams.get(sid)
        if run is None:
            run = self.streams[sid] = self._session(sid).stream()
        return {"rows": [_row(run.feed(Delta.from_dict(d))) for d in deltas]}

    def op_finish(self, sid: str, finish_reason: str = "stop") -> dict:
        run = self.streams.pop(sid, None)
        if run is None:
            from workbench.errors import WorkbenchError

            raise WorkbenchError("lane: no stream to finish")
        session = self._session(sid)
        return {"stream": run.result.to_dict(), "text": run.text, "token_ids": run.token_ids,
                "nonstream": session.nonstream(run.text, run.token_ids, finish_reason)}

    def op_nonstream(self, sid: str, text: str, token_ids: list, finish_reason: str = "stop") -> dict:
        return {"nonstream": self._session(sid).nonstream(text, token_ids, finish_reason)}

    def op_replay(self, sid: str, deltas: list) -> dict:
        from workbench.core.deltas import Delta

        r = self._session(sid).replay([Delta.from_dict(d) for d in deltas])
        return {"rows": [_row(x) for x in r.rows], "stream": r.stream, "nonstream": r.nonstream,
                "parser": r.parser, "text": r.text, "token_ids": r.token_ids}

    # -- whole commands ------------------------------------------------------------------
    def op_parsers(self) -> dict:
        from workbench.cli.parsers_cmd import parser_table

        return {"parsers": parser_table()}

    def op_cli(self, argv: list[str]) -> dict:
        from workbench.cli import main

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(argv)
            except SystemExit as e:  # argparse
                rc = e.code if isinstance(e.code, int) else 2
        return {"rc": rc, "stdout": out.getvalue(), "stderr": err.getvalue()}

    def op_pytest(self, args: list[str]) -> dict:
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


def _row(row) -> dict:
    d = row.to_dict()
    return _plain(d)


def _plain(value):
    """JSON-safe: anything json cannot write becomes its str()."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


def _answer(worker: Worker, line: str) -> dict:
    from workbench.errors import WorkbenchError

    try:
        msg = json.loads(line)
        op = getattr(worker, "op_" + msg.pop("op"), None)
        if op is None:
            raise WorkbenchError(f"lane: unknown op in {line[:80]!r}")
        return {"ok": True, **op(**msg)}
    except WorkbenchError as e:
        return {"ok": False, "kind": "WorkbenchError", "error": str(e)}
    except Exception as e:  # reported to the client with its traceback, never dropped
        return {"ok": False, "kind": "exception", "error": f"{type(e).__name__}: {e}",
                "traceback": traceback.format_exc()}


def main() -> int:
    t0 = time.perf_counter()
    pipe = _protocol_pipe()
    import workbench.core.env  # noqa: F401  (offline defaults before vLLM loads)
    import vllm
    from workbench.core.parsers import registered_names
    from workbench.core.versions import vllm_version

    names = registered_names()
    pipe.write(json.dumps({"ok": True, "ready": True, "vllm": vllm_version(), "file": vllm.__file__,
                           "tool": len(names["tool"]), "reasoning": len(names["reasoning"]),
                           "start_s": time.perf_counter() - t0}) + "\n")
    worker = Worker()
    for line in sys.stdin:
        if line.strip():
            pipe.write(json.dumps(_answer(worker, line), ensure_ascii=False, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
