"""One task of a matrix run, the worker side: one case on one vLLM version and frontend,
every API x grouping of it computed here (the lane, the Rust frontend and the tokenizer
are started once for all of them), one results line back with its cells.

``run(spec, case_id, key, payload)`` is what the corpus's pool and Ray workers call
(``corpus.pool.run(..., task="workbench.conformance.task")``); it never raises: a bug becomes
an ``error`` cell with its type and message, so one case never stops the run.
"""

from __future__ import annotations

import os
import socket
import time
import traceback
from typing import Any


class Spec:
    """What every task of a run shares: nothing yet but its shape (the pool sends ``to_dict()``)."""

    def to_dict(self) -> dict:
        return {"kind": "matrix"}


def run(spec: Any, case_id: str, key: str, payload: dict) -> dict:
    t0 = time.perf_counter()
    try:
        cells = _cells(payload)
        error = None
    except Exception as e:  # a bug, not a verdict: every cell of the task says so, the run goes on
        error = f"{type(e).__name__}: {e}"
        cells = error_cells(payload, error)
        cells[0]["traceback"] = traceback.format_exc()
    seconds = round(time.perf_counter() - t0, 4)
    return {"case": case_id, "key": key, "cells": cells, "error": error, "seconds": seconds,
            "worker": f"{socket.gethostname()}:{os.getpid()}"}


def error_line(spec: Any, case_id: str, key: str, error: str, kind: str, payload: Any = None) -> dict:
    """The line of a task that never finished (its worker died)."""
    return {"case": case_id, "key": key, "cells": error_cells(payload or {}, error), "error": error,
            "error_kind": kind, "seconds": 0.0, "worker": None}


def error_cells(payload: dict, error: str) -> list[dict]:
    from workbench.conformance.cells import ERROR

    return [_cell(payload, api, name, label) | {"verdict": ERROR, "detail": error.splitlines()[0][:300]}
            for api in payload.get("apis", ["chat"]) for name, label in payload.get("groupings", [["token", "token"]])]


def _cells(payload: dict) -> list[dict]:
    """The task's cells, API-major then grouping. Python on a lane's version: the whole task
    in that lane, one request (its cells computed there as here). Else one session per API,
    every grouping's deltas cut from it (runs.outcomes)."""
    from workbench.core.prepare import RunSpec
    from workbench.conformance import cells, runs

    if runs.in_lane(payload["version"], payload["frontend"]):
        from workbench.errors import LaneFailed, WorkbenchError

        try:
            return runs.lane_cells(payload)
        except (WorkbenchError, LaneFailed) as e:  # the lane could not answer: each cell says why
            return error_cells(payload, runs.one_line(str(e)))
    run_spec = RunSpec.from_dict(payload["run"])
    expected = expected_of(payload["expected"])
    out = []
    for api in payload["apis"]:
        labels = [label for _, label in payload["groupings"] if label is not None]
        got_all = iter(runs.outcomes(run_spec, labels, payload["version"], payload["frontend"], api))
        for name, label in payload["groupings"]:
            if label is None:
                got = {"verdict": cells.ERROR, "detail": f"grouping {name}: {payload.get('why', 'not available')}",
                       "field": None, "step": None, "first": None, "seconds": 0.0}
            else:
                outcome, seconds = next(got_all)
                got = cells.verdict(expected, outcome)
                got["got"] = _short(outcome.get("stream"))
                got["seconds"] = round(seconds, 4)
            out.append(_cell(payload, api, name, label) | got)
    return out


def _cell(payload: dict, api: str, name: str, label: str | None) -> dict:
    return {"case": payload.get("case"), "parser": payload.get("parser"), "vllm": payload.get("version"),
            "frontend": payload.get("frontend"), "api": api, "grouping": name, "chunking": label,
            "verdict": None, "field": None, "step": None, "detail": None, "first": None,
            "no_version_passes": payload.get("no_version_passes"), "recording": payload.get("recording")}


def _short(final: dict | None) -> dict | None:
    if not final:
        return None
    return {k: final.get(k) for k in ("reasoning", "content", "tool_calls", "finish_reason")}


def expected_of(d: dict):
    from workbench.conformance.cases import Expected

    return Expected(d.get("reasoning"), d.get("content"), tuple((n, a) for n, a in d.get("tool_calls") or ()),
                    d.get("finish_reason"))
