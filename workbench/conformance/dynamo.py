"""ai-dynamo's conformance fixtures (``fixtures-stream-v2``), read as cases and written from them.

A fixture file is YAML: an optional ``family``, ``captured_with`` (implementation ->
version) and ``cases``, each with its ``tools`` and its ``chunks``; a chunk has its
``delta_text``, optionally its ``delta_token_ids``, and per implementation (``vllm_python``,
``vllm_rust``, ``dynamo_rust``, ``sglang_python``...) the tool-call deltas it emitted there
(``expected.<impl>``: ``[{index, name?, arguments?}]``) and optionally its ``normal_text``.
A call is assembled by joining each index's name and argument fragments.

``load`` makes each fixture case a matrix case: the chunks are its deltas (their texts; their
token ids when the tokenizer is named), the assembled calls and joined normal text of
``expected.vllm_python`` (else the first implementation given) its expected answer. ``export``
writes our cases the other way: the token deltas as chunks, with what vLLM's Python parsers
(``vllm_python``) and vllm-rs (``vllm_rust``) emitted at each, so a user can compare with
their matrix or contribute to it. YAML is read through the door (``yaml.safe_load``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from workbench.conformance.cases import Case
    from workbench.conformance.run import Options

PREFERRED = ("vllm_python", "vllm_rust", "dynamo_rust", "dynamo_v2", "sglang_python")
DEFAULT_TOKENIZER = "qwen3"


def load(path: str, parser: str | None = None, tokenizer: str | None = None) -> list[Case]:
    from workbench.core import door

    doc = door.read_yaml(path, "dynamo fixture")
    where = f"dynamo fixture {path}"
    if not isinstance(doc, dict) or not isinstance(doc.get("cases"), dict) or not doc["cases"]:
        raise WorkbenchError(f"{where}: no `cases:` mapping (a fixtures-stream-v2 file)")
    family = str(doc.get("family") or Path(path).parent.name)
    spec = _parser(parser or family, where)
    return [_case(f"dynamo-{family}/{cid}", path, c, spec, tokenizer, f"{where}: case {cid}")
            for cid, c in doc["cases"].items()]


def _parser(text: str, where: str):
    from workbench.core.parsers import ParserSpec
    from workbench.conformance.cases import declared_anywhere

    spec = ParserSpec.parse(text)
    for kind, name in (("tool", spec.tool_parser), ("reasoning", spec.reasoning_parser)):
        if name and not declared_anywhere(kind, name):
            raise WorkbenchError(f"{where}: unknown {kind} parser {name!r} (name vLLM's with --dynamo-parser "
                                 f"TOOL[+REASONING])")
    if not spec.tool_parser:
        raise WorkbenchError(f"{where}: tool-call fixtures need a tool parser (--dynamo-parser TOOL[+REASONING])")
    return spec


def _case(cid: str, path: str, c: Any, parser: Any, tokenizer: str | None, where: str) -> Case:
    from workbench.core.run_spec import RunSpec
    from workbench.conformance.cases import Case

    if not isinstance(c, dict) or not isinstance(c.get("chunks"), list) or not c["chunks"]:
        raise WorkbenchError(f"{where}: no chunks")
    chunks = c["chunks"]
    for i, ch in enumerate(chunks):
        if not isinstance(ch, dict) or not isinstance(ch.get("delta_text"), str):
            raise WorkbenchError(f"{where}: chunk {i + 1} has no delta_text")
    tools = c.get("tools")
    if not isinstance(tools, list) or not tools:
        raise WorkbenchError(f"{where}: no tools (a tool parser needs the request's tools)")
    tools = [t if "function" in t else {"type": "function", "function": t} for t in tools if isinstance(t, dict)]
    ids = [ch.get("delta_token_ids") for ch in chunks]
    use_ids = tokenizer is not None and all(isinstance(x, list) and x for x in ids)
    deltas = tuple(tuple(x) for x in ids) if use_ids else tuple(ch["delta_text"] for ch in chunks)
    text = "".join(ch["delta_text"] for ch in chunks)
    run = RunSpec(text=text, deltas=deltas, tokenizer=tokenizer or DEFAULT_TOKENIZER, parser=parser,
                  request={"tools": tools})
    return Case(cid, path, cid, ("dynamo",), run, expected_of(chunks, where), None)


def expected_of(chunks: Sequence[dict], where: str):
    """The answer the fixture's chunks assemble to, from the first implementation of PREFERRED it has."""
    from workbench.core import door
    from workbench.conformance.cases import Expected

    impls = [i for ch in chunks for i in (ch.get("expected") or {})]
    impl = next((i for i in PREFERRED if i in impls), impls[0] if impls else None)
    if impl is None:
        raise WorkbenchError(f"{where}: no expected.<impl> in any chunk")
    names: dict[int, str] = {}
    args: dict[int, str] = {}
    text = []
    for ch in chunks:
        for d in (ch.get("expected") or {}).get(impl) or []:
            if not isinstance(d, dict):
                raise WorkbenchError(f"{where}: expected.{impl}: a delta is {{index, name?, arguments?}}")
            i = int(d.get("index") or 0)
            names[i] = names.get(i, "") + str(d.get("name") or "")
            args[i] = args.get(i, "") + str(d.get("arguments") or "")
        normal = (ch.get("normal_text") or {}).get(impl) if isinstance(ch.get("normal_text"), dict) else None
        if isinstance(normal, str):
            text.append(normal)
    calls = []
    for i in sorted(names):
        try:
            parsed = door.parse_json(args[i] or "{}", f"{where}: expected.{impl} call {i} arguments")
        except WorkbenchError:
            parsed = args[i]
        calls.append((names[i], parsed))
    content = "".join(text) or None
    return Expected(None, content, tuple(calls), "tool_calls" if calls else "stop")


# -- export ---------------------------------------------------------------------------------
def export(cases: Sequence[Case], folder: str, opt: Options, force: bool = False) -> list[Path]:
    """Each case as ``FOLDER/<parser>/TOOLCALLING.<case>.yaml``: its token deltas as chunks, with
    vLLM's Python parsers (the installed version) and vllm-rs (the newest version asked for,
    else the newest locked) per chunk."""
    import yaml

    from workbench.core import outputs
    from workbench.lanes import versions
    from workbench.conformance import runs

    here = versions.installed()
    rust = next((v for v in reversed(opt.versions) if runs.has_rust(v)), None) or _newest()
    written = []
    for case in cases:
        spec = case.run.with_(chunking=None if case.run.deltas is not None else "token")
        python = runs.outcome(spec, here, "python", "chat")
        if python["error"]:
            raise WorkbenchError(f"--dynamo-out: {case.id} does not run on vLLM {here}: {python['error']}")
        rs = runs.outcome(spec, rust, "rust", "chat") if rust else runs.na("no vllm-rs version is locked")
        chunks = []
        for i, step in enumerate(python["steps"]):
            chunk: dict[str, Any] = {"delta_text": step["text"], "delta_token_ids": list(step["ids"])}
            expected = {"vllm_python": _deltas(step)}
            normal = {"vllm_python": (step.get("delta") or {}).get("content") or ""}
            if not rs["na"] and not rs["error"] and i < len(rs["steps"]):
                expected["vllm_rust"] = _deltas(rs["steps"][i])
                normal["vllm_rust"] = (rs["steps"][i].get("delta") or {}).get("content") or ""
            chunk["expected"] = expected
            chunk["normal_text"] = normal
            chunks.append(chunk)
        body: dict[str, Any] = {"tools": case.run.request.get("tools") or [], "chunks": chunks}
        why = rs["na"] or rs["error"]
        if why:
            body["unavailable"] = {"vllm_rust": why}
        family = case.id.partition("/")[0].removeprefix("dynamo-")
        doc = {"family": family,
               "captured_with": {"vllm_python": here, **({"vllm_rust": f"vllm-rs {rust}"} if rust else {})},
               "cases": {case.id.partition("/")[2] or case.id: body}}
        from workbench.core.names import path_name

        stem = path_name(case.id.partition("/")[2] or "case", "a case's name")
        path = Path(folder) / path_name(family, "a case's family") / ("TOOLCALLING." + stem + ".yaml")
        text = "# written by `workbench matrix --dynamo-out` (ai-dynamo fixtures-stream-v2 shape)\n" + yaml.safe_dump(
            doc, sort_keys=False, allow_unicode=True, width=120, default_flow_style=None)
        path.parent.mkdir(parents=True, exist_ok=True)
        outputs.write_text(path, text, force=force)
        written.append(path)
    return written


def _deltas(step: dict) -> list[dict]:
    out = []
    for c in (step.get("delta") or {}).get("tool_calls") or []:
        d: dict[str, Any] = {"index": c.get("index") or 0}
        if c.get("name"):
            d["name"] = c["name"]
        if c.get("arguments"):
            d["arguments"] = c["arguments"]
        out.append(d)
    return out


def _newest() -> str | None:
    from workbench.rustfe import binary

    found = binary.versions()
    return found[-1] if found else None
