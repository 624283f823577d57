"""The rebuilt vLLM bug reports of tests/data/reports/ (one JSON file per case).

A case is data (README there): it never runs code. This module reads the cases
(through workbench.core.door), turns one into a `workbench` command line, and
measures its symptom: the case's
``symptom_check`` (a list of comparisons over the stream and non-stream answers)
evaluated on what the workbench replays over a given vLLM. ``reproduces_on`` in
each file is what this measured; re-measure with

    python -m tests.reports [ID ...] [--vllm VERSION]
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

CASES = Path(__file__).resolve().parents[1] / "data" / "reports"
MAX_CASE_BYTES = 256 * 1024
def _versions() -> tuple[str, ...]:
    from workbench.lanes import versions

    return tuple(versions.listed())


VERSIONS = _versions()  # the installed vLLM and every lane: reproduces_on is measured on each
CAUSES = ("parser_streaming", "parser_nonstreaming", "serving", "configuration", "model_output",
          "truncation", "none")
REQUIRED = {"id": str, "source": str, "title": str, "symptom": str, "tokenizer": str, "request": dict,
            "text": str, "chunking": str, "finish_reason": str, "api": str, "expected_cause": str,
            "reproduces_on": dict, "notes": str, "symptom_check": list}
NULLABLE = {"reported_vllm": str, "tool_parser": str, "reasoning_parser": str}
OPTIONAL = {"see_also": list, "diff_with": str, "config": str, "not_a_bug": bool}
# a model vendor's own issue tracker, beside vLLM's
VENDORS = ("deepseek-ai", "MoonshotAI", "MiniMax-AI", "QwenLM", "zai-org", "mistralai", "openai", "ibm-granite")
REQUEST_FIELDS = ("messages", "tools", "tool_choice", "chat_template_kwargs", "parallel_tool_calls", "max_tokens")
OPS = ("eq", "ne", "le", "ge", "empty", "nonempty", "contains", "lacks", "len", "valid_json",
       "invalid_json", "differs", "same")


def paths() -> list[Path]:
    return sorted(CASES.glob("*.json"))


def load(path: Path) -> dict:
    """One case file through the project's reading door: bounded, UTF-8, JSON, an object."""
    from workbench.core import door

    case = door.read_json(path, "report case", max_bytes=MAX_CASE_BYTES)
    if not isinstance(case, dict):
        raise door.InputError(f"report case {path}: not a JSON object")
    return case


def cases() -> list[dict]:
    return [load(p) for p in paths()]


def problems(case: dict, stem: str) -> list[str]:
    """What is wrong with a case against the schema (README), [] when nothing."""
    out = []
    known = REQUIRED | NULLABLE | OPTIONAL
    for key in case:
        if key not in known:
            out.append(f"unknown field {key!r}")
    for key, kind in REQUIRED.items():
        if not isinstance(case.get(key), kind):
            out.append(f"{key} must be a {kind.__name__}")
    for key, kind in NULLABLE.items():
        if key not in case or not (case[key] is None or isinstance(case[key], kind)):
            out.append(f"{key} must be a {kind.__name__} or null")
    if out:
        return out
    if case["id"] != stem:
        out.append(f"id {case['id']!r} is not the file's stem {stem!r}")
    if not case["source"].startswith(("https://github.com/vllm-project/vllm/",)
                                     + tuple(f"https://github.com/{v}/" for v in VENDORS)):
        out.append("source must be a vllm-project/vllm (or a model vendor's) issue or pull request")
    if case["expected_cause"] not in CAUSES:
        out.append(f"expected_cause {case['expected_cause']!r} is not one of {CAUSES}")
    if set(case["reproduces_on"]) != set(VERSIONS) or not all(
            isinstance(v, bool) for v in case["reproduces_on"].values()):
        out.append(f"reproduces_on must give true/false for each of {VERSIONS}")
    if (case["expected_cause"] == "none") == case["reproduces_on"].get("0.32.0", False):
        out.append("expected_cause is 'none' exactly when 0.32.0 does not reproduce it")
    for key in case["request"]:
        if key not in REQUEST_FIELDS:
            out.append(f"request.{key} is not one of {REQUEST_FIELDS}")
    if case["finish_reason"] not in ("stop", "length"):
        out.append("finish_reason must be stop or length")
    if "config" in case and not (config_path(case).is_file() and case["tool_parser"] is None):
        out.append("config must name a .toml file under tests/data/reports/ (and tool_parser must be null)")
    if case["api"] != "chat":
        out.append("api must be chat")
    if not case["text"]:
        out.append("text is empty")
    if not case["symptom_check"]:
        out.append("symptom_check is empty")
    for i, check in enumerate(case["symptom_check"]):
        if not isinstance(check, dict) or check.get("op") not in OPS or not isinstance(check.get("path"), str):
            out.append(f"symptom_check[{i}] needs a path and an op in {OPS}")
        elif check["op"] in ("differs", "same") and not isinstance(check.get("other"), str):
            out.append(f"symptom_check[{i}] ({check['op']}) needs 'other', a path")
    return out


def tool_choice_flag(choice) -> str | None:
    if isinstance(choice, dict):
        return choice["function"]["name"]
    return choice


def config_path(case: dict) -> Path:
    """The case's parser config (a reporter's own ParserEngine config), under CASES."""
    path = (CASES / case["config"]).resolve()
    return path if path.suffix == ".toml" and CASES.resolve() in path.parents else CASES / "missing.toml"


def spec(case: dict) -> str:
    """The case's parsers as a diff SPEC: 'hermes+qwen3', 'hermes', '+qwen3', or its config."""
    if case.get("config"):
        return str(config_path(case))
    tool, reasoning = case["tool_parser"] or "", case["reasoning_parser"]
    return f"{tool}+{reasoning}" if reasoning else tool


def argv(case: dict, command: str, folder: Path, version: str | None = None) -> list[str]:
    """`workbench COMMAND ...` for the case: files for text, tools and messages in ``folder``.
    ``diff`` compares the case's parsers with its ``diff_with``."""
    folder.mkdir(parents=True, exist_ok=True)
    text = folder / "text.txt"
    text.write_text(case["text"], encoding="utf-8")
    args = [command, "--text-file", str(text), "--tokenizer", case["tokenizer"]]
    if command == "diff":
        args += ["--a", spec(case), "--b", case["diff_with"]]
    else:
        if case.get("config"):
            args += ["--config", str(config_path(case))]
        if case["tool_parser"]:
            args += ["--tool-parser", case["tool_parser"]]
        if case["reasoning_parser"]:
            args += ["--reasoning-parser", case["reasoning_parser"]]
    args += _request_args(case["request"], folder)
    if case["chunking"] != "token":
        args += ["--chunking", case["chunking"]]
    if case["finish_reason"] != "stop" and accepts(command, "--finish-reason"):
        args += ["--finish-reason", case["finish_reason"]]
    if version:
        args += ["--vllm", version]
    return args


@functools.cache
def accepts(command: str, flag: str) -> bool:
    """Whether `workbench COMMAND` takes FLAG with a value (replay gains --finish-reason with issue 17)."""
    import contextlib
    import io

    from workbench.cli import build_parser

    required = ["-o", "x"] if command == "export" else []
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            _, rest = build_parser().parse_known_args([command, flag, "stop", *required])
    except SystemExit:
        return False
    return flag not in rest


def _request_args(request: dict, folder: Path) -> list[str]:
    args = []
    for name in ("tools", "messages"):
        if request.get(name) is not None:
            f = folder / f"{name}.json"
            f.write_text(json.dumps(request[name], ensure_ascii=False), encoding="utf-8")
            args += [f"--{name}", str(f)]
    if request.get("tool_choice") is not None:
        args += ["--tool-choice", tool_choice_flag(request["tool_choice"])]
    if request.get("chat_template_kwargs"):
        args += ["--chat-template-kwargs", json.dumps(request["chat_template_kwargs"])]
    if request.get("parallel_tool_calls") is False:
        args.append("--no-parallel-tool-calls")
    if request.get("max_tokens") is not None:
        args += ["--max-tokens", str(request["max_tokens"])]
    return args


def setup(case: dict):
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Setup

    config = str(config_path(case)) if case.get("config") else None
    return Setup(tokenizer=case["tokenizer"], parser=ParserSpec(case["tool_parser"], case["reasoning_parser"], config),
                 request=RequestSpec.from_dict(case["request"]), chunking=case["chunking"])


def answers(case: dict, version: str | None = None) -> dict:
    """{"stream", "nonstream"}: what the case's text gives over ``version``'s vLLM."""
    from workbench.lanes.lane_session import session_for

    session = session_for(setup(case), version)
    result = session.replay(session.deltas_from_text(case["text"], finish_reason=case["finish_reason"]))
    return {"stream": result.stream, "nonstream": result.nonstream, "request": session.request_view(),
            "errors": [r.error for r in result.rows if r.error],
            "derived": {"argument_deltas": argument_deltas(result.rows), "silent_run": silent_run(result.rows),
                        "deltas": len(result.rows)}}


def _argument_indexes(row) -> set[int]:
    calls = row.tool_calls if row.sse else ()
    return {call.index for call in calls if call.arguments}


def argument_deltas(rows) -> list[int]:
    """Per call index, how many sent chunks carried a piece of its arguments."""
    counts: dict[int, int] = {}
    for row in rows:
        for i in _argument_indexes(row):
            counts[i] = counts.get(i, 0) + 1
    return [counts.get(i, 0) for i in range(max(counts, default=-1) + 1)]


def silent_run(rows) -> int:
    """The most deltas in a row that sent no argument piece, from a call's first chunk (its
    name) to its last argument piece: large for a parser that buffers, small for one that streams."""
    named = [n for n, row in enumerate(rows) if row.sse and row.tool_calls]
    marks = named[:1] + [n for n, row in enumerate(rows) if _argument_indexes(row)]
    return max((b - a - 1 for a, b in zip(marks, marks[1:])), default=0)


def resolve(doc, path: str):
    for part in path.split("."):
        if isinstance(doc, list):
            doc = doc[int(part)] if part.isdigit() and int(part) < len(doc) else None
        elif isinstance(doc, dict):
            doc = doc.get(part)
        else:
            return None
    return doc


def _json_ok(value) -> bool:
    try:
        json.loads(value)
    except (TypeError, ValueError):
        return False
    return True


def holds(check: dict, doc: dict) -> bool:
    value, op, want = resolve(doc, check["path"]), check["op"], check.get("value")
    if op in ("differs", "same"):
        return (value != resolve(doc, check["other"])) == (op == "differs")
    return {
        "eq": lambda: value == want,
        "ne": lambda: value != want,
        "le": lambda: isinstance(value, (int, float)) and value <= want,
        "ge": lambda: isinstance(value, (int, float)) and value >= want,
        "empty": lambda: value in (None, "", [], {}),
        "nonempty": lambda: value not in (None, "", [], {}),
        "contains": lambda: isinstance(value, str) and want in value,
        "lacks": lambda: not (isinstance(value, str) and want in value),
        "len": lambda: len(value or []) == want,
        "valid_json": lambda: _json_ok(value),
        "invalid_json": lambda: not _json_ok(value),
    }[op]()


def shows_symptom(case: dict, doc: dict) -> bool:
    return all(holds(check, doc) for check in case["symptom_check"])


def main(argv_: list[str]) -> int:
    import workbench.core.env  # noqa: F401

    version = None
    if "--vllm" in argv_:
        i = argv_.index("--vllm")
        version, argv_ = argv_[i + 1], argv_[:i] + argv_[i + 2:]
    for case in cases():
        if argv_ and case["id"] not in argv_:
            continue
        doc = answers(case, version)
        seen = shows_symptom(case, doc)
        print(json.dumps({"id": case["id"], "vllm": version or "installed", "reproduces": seen,
                          "stream": doc["stream"], "nonstream": {k: v for k, v in doc["nonstream"].items()
                                                                 if k != "logs"},
                          "errors": doc["errors"][:2]}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
