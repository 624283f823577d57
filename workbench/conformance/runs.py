"""Where a matrix cell runs: one case's RunSpec on a vLLM version, a frontend, an API and a
grouping, read back as one shape (the outcome). The one module of the matrix that touches
the ways a run runs: the installed vLLM in this process (``core.prepare``, ``core.faces``), a
lane's vLLM through its ``replay`` command (``lanes.lane``: the same code over that version,
with its own API faces), and vllm-rs through the Rust lane (``rustfe.lane``).

An outcome is ``{"stream", "nonstream", "steps", "error", "na"}``: the two finals (a
``Final``'s JSON: what the API's client ends with, and the non-streaming body), each step's
text and what the parser sent, an error in one line, or why the cell is not available.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.errors import LaneFailed, WorkbenchError

if TYPE_CHECKING:
    from workbench.core.prepare import RunSpec

IN_LANE = "workbench.cli.in_lane"  # the lane program that runs whole commands (cli/vllm_option.py's)
RUST_FROM = (0, 33)  # the first vLLM whose wheel carries vllm-rs


def outcome(spec: RunSpec, version: str, frontend: str, api: str) -> dict:
    """The outcome of ``spec`` (its chunking a concrete grouping) on ``version`` and ``frontend``
    ("python" or "rust") through ``api``."""
    from workbench.lanes import versions

    spec = spec.with_(api=api, vllm=None)
    try:
        if frontend == "rust":
            why = rust_na(version, spec)
            if why:
                return na(why)
            return _rust(spec, version)
        if versions.is_installed(version):
            return _here(spec)
        return _lane(spec, version)
    except (WorkbenchError, LaneFailed) as e:
        return {"stream": None, "nonstream": None, "steps": [], "error": _one_line(str(e)), "na": None}


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
    from workbench.conformance import rust_names

    have = rust_names.names(version)
    for kind, name in (("tool", parser.tool_parser), ("reasoning", parser.reasoning_parser)):
        if name and name not in have[kind]:
            return f"vllm-rs {version} registers no {kind} parser {name!r}"
    return None


def _tuple(version: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else 0 for p in version.split(".")[:2])


def _here(spec: RunSpec) -> dict:
    from workbench.core import faces
    from workbench.core.prepare import prepare

    prepared = prepare(spec)
    result = prepared.replay()
    face = faces.run(prepared.session, result)
    out = {"stream": result.stream, "nonstream": result.nonstream,
           "rows": [r.to_dict(chunk=False) for r in result.rows]}
    if face is not None:
        out |= face.to_dict()
    return of_replay(out, spec.api or "chat")


def _lane(spec: RunSpec, version: str) -> dict:
    from workbench.core import door
    from workbench.lanes import carried, lane

    done = lane.get(version, program=IN_LANE).call("command", name="replay", spec=carried.spec(spec),
                                                    options={"json": True})
    if done["rc"] not in (0, 1) or not done["stdout"].strip():
        return {"stream": None, "nonstream": None, "steps": [], "na": None,
                "error": _one_line(done["stderr"].strip().splitlines()[-1] if done["stderr"].strip()
                                   else f"replay exited {done['rc']} in the vLLM {version} lane")}
    return of_replay(door.parse_json(done["stdout"], f"vLLM {version}'s replay"), spec.api or "chat")


def _rust(spec: RunSpec, version: str) -> dict:
    from workbench.core.prepare import prepare
    from workbench.rustfe import lane

    prepared = prepare(spec)
    result = lane.run(prepared.session, prepared.deltas, version)
    status = result.exchange.status
    if status in (404, 501):  # no such route in that vllm-rs (0.33 has no /v1/responses), or not implemented
        return na(f"vllm-rs {version} answers {status} on /v1/{spec.api}")
    got = {"stream": result.stream, "nonstream": result.nonstream, "rows": [r.to_dict(chunk=False) for r in result.rows]}
    if result.face is not None:  # Responses: what the SDK ends with over vllm-rs's events
        got |= result.face.to_dict()
    out = of_replay(got, spec.api or "chat")
    if status != 200:
        out["error"] = f"vllm-rs {version} answered HTTP {status}"
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
    error = f"step {errors[0]['step']}: {_one_line(errors[0]['error'])}" if errors else None
    return {"stream": stream, "nonstream": nonstream, "steps": steps, "error": error, "na": None}


def _one_line(text: str) -> str:
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    return (lines[0] if lines else "error")[:300]
