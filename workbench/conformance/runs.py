"""Where a matrix cell runs: one case's RunSpec on a vLLM version, a frontend, an API and a
grouping, read back as one shape (the outcome). The one module of the matrix that touches
the ways a run runs: the installed vLLM in this process (``core.prepare``, ``core.faces``), a
lane's vLLM (``lanes.lane``: the whole task in one request, ``cli/in_lane.py``'s ``matrix``
op, where that version is the installed one), and vllm-rs through the Rust lane
(``rustfe.lane``, a few frontends kept per version).

A task's groupings share one session per API: the case is prepared once, each grouping's
deltas are cut from its tokens, and each is replayed on fresh parsers (``Session.replay``),
as a command per cell would.

An outcome is ``{"stream", "nonstream", "steps", "error", "na"}``: the two finals (a
``Final``'s JSON: what the API's client ends with, and the non-streaming body), each step's
text and what the parser sent, an error in one line, or why the cell is not available.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from workbench.errors import LaneFailed, WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from workbench.core.prepare import RunSpec
    from workbench.core.session import Session

IN_LANE = "workbench.cli.in_lane"  # the lane program that runs whole commands (cli/vllm_option.py's)
RUST_FROM = (0, 33)  # the first vLLM whose wheel carries vllm-rs


def outcome(spec: RunSpec, version: str, frontend: str, api: str) -> dict:
    """The outcome of ``spec`` (its chunking a concrete grouping) on ``version`` and ``frontend``
    ("python" or "rust") through ``api``."""
    return outcomes(spec, [spec.chunking or ""], version, frontend, api)[0][0]


def outcomes(spec: RunSpec, labels: Sequence[str], version: str, frontend: str, api: str) -> list[tuple[dict, float]]:
    """(outcome, seconds) of ``spec`` under each grouping label (a chunking, or "" for the
    spec's own deltas) on ``version`` (installed: here; a lane's: see ``lane_cells``) and
    ``frontend`` through ``api``: one session for them all, each grouping's deltas cut from
    its token stream, each replayed on a fresh parser (``Session.replay``)."""
    import time

    from workbench.core.prepare import prepare

    spec = spec.with_(api=api, vllm=None, chunking=None)
    t0 = time.perf_counter()
    try:
        if frontend == "rust":
            why = rust_na(version, spec)
            if why:
                return [(na(why), 0.0) for _ in labels]
        elif not versions_installed(version):
            raise WorkbenchError(f"vLLM {version} runs in its lane: its cells come from lane_cells")
        prepared = prepare(spec)
    except (WorkbenchError, LaneFailed) as e:
        failed = _failed(e)
        return [(failed, time.perf_counter() - t0 if i == 0 else 0.0) for i, _ in enumerate(labels)]
    out = []
    for label in labels:
        try:
            deltas = (prepared.deltas if not label
                      else replace(prepared, spec=spec.with_(chunking=label)).deltas_for(prepared.session))
            got = _rust(prepared.session, deltas, version, api) if frontend == "rust" else _here(prepared.session, deltas, api)
        except (WorkbenchError, LaneFailed) as e:
            got = _failed(e)
        except Exception as e:  # a bug here or in vLLM (its Responses events raising): this cell says so, the others stand
            got = _failed(e, f"{type(e).__name__}: ")
        out.append((got, time.perf_counter() - t0))
        t0 = time.perf_counter()
    return out


def in_lane(version: str, frontend: str) -> bool:
    """Whether a task's cells run in ``version``'s lane (Python on a version not installed here)."""
    return frontend == "python" and not versions_installed(version)


def lane_cells(payload: dict) -> list[dict]:
    """A task's cells (conformance/task.py's payload) computed in its version's lane, in one
    request (``cli/in_lane.py``'s ``matrix`` op runs the task there, where that version is
    the installed one). WorkbenchError or LaneFailed when the lane cannot answer."""
    from workbench.core.prepare import RunSpec
    from workbench.lanes import carried, lane

    sent = dict(payload, run=carried.spec(RunSpec.from_dict(payload["run"])))
    return lane.get(payload["version"], program=IN_LANE).call("matrix", payload=sent)["cells"]


def versions_installed(version: str) -> bool:
    from workbench.lanes import versions

    return versions.is_installed(version)


def _failed(e: Exception, kind: str = "") -> dict:
    return {"stream": None, "nonstream": None, "steps": [], "error": kind + one_line(str(e)), "na": None}


def na(why: str) -> dict:
    return {"stream": None, "nonstream": None, "steps": [], "error": None, "na": why}


def has_rust(version: str) -> bool:
    return _tuple(version) >= RUST_FROM


def rust_na(version: str, spec: RunSpec) -> str | None:
    """Why vllm-rs cannot run ``spec`` on ``version`` (None: it can)."""
    if not has_rust(version):
        return f"vllm-rs ships in vLLM's wheels from 0.33 (not in {version})"
    parser = spec.parser
    if parser is None or parser.config or spec.plugins:
        return "a parser config or plugin has no Rust counterpart"
    if spec.tokenizer:
        from workbench.rustfe.model_dir import unreadable

        why = unreadable(spec.tokenizer)
        if why:
            return why
    from workbench.conformance import rust_names

    have = rust_names.names(version)
    for kind, name in (("tool", parser.tool_parser), ("reasoning", parser.reasoning_parser)):
        if name and name not in have[kind]:
            return f"vllm-rs {version} registers no {kind} parser {name!r}"
    return None


def _tuple(version: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else 0 for p in version.split(".")[:2])


def _here(session: Session, deltas: list, api: str) -> dict:
    from workbench.core import faces

    result = session.replay(deltas)
    face = faces.run(session, result)
    out = {"stream": result.stream, "nonstream": result.nonstream,
           "rows": [r.to_dict(chunk=False) for r in result.rows]}
    if face is not None:
        out |= face.to_dict()
    return of_replay(out, api)


def _rust(session: Session, deltas: list, version: str, api: str) -> dict:
    from workbench.rustfe import lane

    lane.keep_only(lane.config_of(session, version))  # a run's many parsers: one frontend per version at a time
    result = lane.run(session, deltas, version)
    status = result.exchange.status
    if status in (404, 501):  # no such route in that vllm-rs (0.33 has no /v1/responses), or not implemented
        return na(f"vllm-rs {version} answers {status} on /v1/{api}")
    got = {"stream": result.stream, "nonstream": result.nonstream, "rows": [r.to_dict(chunk=False) for r in result.rows]}
    if result.face is not None:  # Responses: what the SDK ends with over vllm-rs's events
        got |= result.face.to_dict()
    out = of_replay(got, api)
    if status != 200:  # the refusal's own one line, as vllm-rs wrote it in its JSON error body
        from workbench.rustfe.finals import body_json, error_of

        said = error_of(body_json(result.exchange.body), status) or f"HTTP {status}"
        out["error"] = one_line(f"vllm-rs {version} answered {said}")
    return out


def of_replay(out: dict, api: str) -> dict:
    """An outcome from a replay's JSON (``replay --json``'s shape): on Responses and Messages
    the finals are what the API's SDK ends with and the non-streaming body's."""
    from workbench.core.faces import finals
    from workbench.core.messages import Final

    if api == "chat" or "response" not in out:
        stream, nonstream = out["stream"], out["nonstream"]
    else:
        client = out.get("client") or {}
        stream = (finals.final_of(api, client["object"]) if "object" in client
                  else Final(error=client.get("error") or "no client object")).to_dict()
        nonstream = finals.final_of(api, out.get("response")).to_dict()
    steps = [{"step": r["step"], "text": r.get("text") or "", "ids": r.get("token_ids") or [], "delta": r.get("delta"),
              "error": r.get("error")}
             for r in out.get("rows") or []]
    errors = [s for s in steps if s["error"]]
    error = f"step {errors[0]['step']}: {one_line(errors[0]['error'])}" if errors else None
    return {"stream": stream, "nonstream": nonstream, "steps": steps, "error": error, "na": None}


def one_line(text: str) -> str:
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    return (lines[0] if lines else "error")[:300]
