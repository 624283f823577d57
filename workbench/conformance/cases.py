"""The shipped cases: one model output each, with the answer a client should end up with.

A case is ``parsers/cases/<parser>/<case>.toml`` (its id is ``<parser>/<case>``): a title,
the taxonomy tags it covers (``taxonomy.toml``), a shipped tokenizer, the text and how it
ends (``finish_reason``: stop, or length for a ``max_tokens`` cut), a ``[parser]``
(``ParserSpec``'s fields), a ``[request]`` (``RunSpec.request``'s fields; ``tools`` names a set
in ``tools.toml`` or is a list) and the ``[expected]`` final answer (reasoning, content,
tool_calls with arguments compared as parsed JSON, finish_reason). ``[known]
no_version_passes`` says why no vLLM version gets a case right; ``passes_on`` names the
versions that do when the installed one does not.

Every file is read through the door; anything wrong in one is a ``WorkbenchError`` naming
the file, in one line.

``known-divergences.toml`` lists the differences that are allowed, with their reason and
upstream link; ``allowed(divergences, cell)`` says whether one covers a cell, a mapping with
the keys ``case`` (a case id), ``vllm`` (a version), ``frontend`` ("python" or "rust"),
``api`` ("chat", "responses", "messages"), ``chunking`` (a grouping's name), ``verdict`` and
``field`` (the field that differs: reasoning, content, tool_calls, finish_reason; an error has
none); a key a cell lacks matches any divergence, but a divergence in one field never allows
an error ("error" does, and "stream" allows stream != non-stream in any field).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.core import door
from workbench.core.clip import clip
from workbench.core.parsers import ParserSpec
from workbench.core.run_spec import REQUEST_FIELDS, RunSpec
from workbench.errors import WorkbenchError

CASES_DIR = Path(__file__).resolve().parents[2] / "parsers" / "cases"
REPO_ROOT = CASES_DIR.parents[1]
TAXONOMY_FILE = CASES_DIR / "taxonomy.toml"
TOOLS_FILE = CASES_DIR / "tools.toml"
DIVERGENCES_FILE = CASES_DIR / "known-divergences.toml"

FINISH_REASONS = ("stop", "length")
ANSWER_FIELDS = ("reasoning", "content", "tool_calls", "finish_reason")
_TOP = {"title", "covers", "tokenizer", "finish_reason", "text", "parser", "request", "expected", "known"}
_PARSER = {"tool_parser", "reasoning_parser", "config", "tool_strict_level"}
_KNOWN = {"no_version_passes", "passes_on"}


@dataclass(frozen=True)
class Expected:
    reasoning: str | None
    content: str | None
    tool_calls: tuple[tuple[str, Any], ...]  # (name, parsed arguments)
    finish_reason: str


@dataclass(frozen=True)
class Case:
    id: str  # "<dir>/<stem>"
    path: str
    title: str
    covers: tuple[str, ...]
    run: RunSpec
    expected: Expected
    no_version_passes: str | None
    passes_on: tuple[str, ...] = ()  # versions that pass it when the installed one does not

    @property
    def parser_dir(self) -> str:
        return self.id.partition("/")[0]


# -- reading -------------------------------------------------------------------------------
def load_cases(paths: Sequence[str]) -> list[Case]:
    """The cases under ``paths`` (files, folders searched recursively for ``*.toml``, globs):
    each once, in a stable order (sorted within each argument). A path that matches nothing
    is an error, so a typo never makes an empty run look clean."""
    from workbench.corpus.files import find_files

    files = find_files(paths, ".toml", "no case files (*.toml) there",
                       "no cases: give case files, folders or globs (the shipped ones: parsers/cases)", _NOT_CASES)
    tags, tool_sets = taxonomy_tags(), tool_sets_of()
    return [_case(p, tags, tool_sets) for p in files]


_NOT_CASES = frozenset({TAXONOMY_FILE.name, TOOLS_FILE.name, DIVERGENCES_FILE.name})


def case_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def _case(path: Path, tags: Mapping[str, str], tool_sets: Mapping[str, list]) -> Case:
    _, data = door.read_toml(path, "case")
    where = f"case {path}"

    def bad(message: str) -> WorkbenchError:
        return WorkbenchError(f"{where}: {message}")

    unknown = set(data) - _TOP
    if unknown:
        raise bad(f"unknown field(s) {', '.join(sorted(unknown))}")
    for name in ("title", "tokenizer", "text"):
        if not isinstance(data.get(name), str):
            raise bad(f"{name} must be a string")
    covers = data.get("covers")
    if not isinstance(covers, list) or not covers or not all(isinstance(c, str) for c in covers):
        raise bad("covers must be a list of taxonomy tags")
    for tag in covers:
        if tag not in tags:
            from workbench.errors import close_matches

            raise bad(f"unknown taxonomy tag {tag!r}{close_matches(tag, tags)} ({TAXONOMY_FILE.name})")
    from workbench.core.tokenizers import is_builtin

    if not is_builtin(data["tokenizer"]):
        raise bad(f"unknown tokenizer {data['tokenizer']!r} (a shipped one: `workbench tokenizers`)")
    finish = data.get("finish_reason", "stop")
    if finish not in FINISH_REASONS:
        raise bad(f"finish_reason must be one of {', '.join(FINISH_REASONS)}, got {clip(finish)}")
    parser = _parser(data.get("parser"), bad)
    request = _request(data.get("request") or {}, tool_sets, bad)
    if (parser.tool_parser or parser.config) and not request.get("tools"):
        raise bad(f"parser {parser.label()} parses tool calls: give [request] tools "
                  f"(a set from {TOOLS_FILE.name} or a list)")
    known = data.get("known") or {}
    if not isinstance(known, dict) or set(known) - _KNOWN:
        raise bad(f"[known] takes {', '.join(sorted(_KNOWN))}")
    no_pass = known.get("no_version_passes")
    if no_pass is not None and (not isinstance(no_pass, str) or not no_pass.strip()):
        raise bad("[known] no_version_passes must say why, with an upstream link")
    passes_on = known.get("passes_on", [])
    if not isinstance(passes_on, list) or not all(isinstance(v, str) for v in passes_on):
        raise bad("[known] passes_on must be a list of vLLM versions")
    try:
        run = RunSpec(text=data["text"], tokenizer=data["tokenizer"], parser=parser, request=request,
                      finish_reason=finish)
    except WorkbenchError as e:
        raise bad(str(e)) from None
    return Case(case_id(path), str(path), data["title"], tuple(covers), run,
                _expected(data.get("expected"), bad), no_pass, tuple(passes_on))


def _parser(table: Any, bad) -> ParserSpec:
    if not isinstance(table, dict) or not table:
        raise bad("[parser] must name a tool_parser, a reasoning_parser or a config")
    unknown = set(table) - _PARSER
    if unknown:
        raise bad(f"[parser]: unknown field(s) {', '.join(sorted(unknown))}")
    if not all(isinstance(v, str) for v in table.values()):
        raise bad("[parser]: every field is a string")
    if "config" in table:
        config = Path(table["config"])
        config = config if config.is_absolute() else REPO_ROOT / config
        if not config.is_file():
            raise bad(f"[parser] config {table['config']}: no such file")
        return ParserSpec(config=str(config), **{k: v for k, v in table.items() if k != "config"})
    for kind, field_name in (("tool", "tool_parser"), ("reasoning", "reasoning_parser")):
        name = table.get(field_name)
        if name is not None and not declared_anywhere(kind, name):
            raise bad(f"unknown {kind} parser {name!r}{_close(kind, name)}")
    return ParserSpec(**table)


def declared_anywhere(kind: str, name: str) -> bool:
    """Whether the installed vLLM, or else a lane's, registers ``name`` (read from source)."""
    from workbench.lanes import names, versions

    if names.has(None, kind, name):
        return True
    return any(names.has(v, kind, name) for v in versions.listed() if not versions.is_installed(v))


def _close(kind: str, name: str) -> str:
    from workbench.errors import close_matches
    from workbench.lanes import names

    return close_matches(name, names.declared(None)[kind])


def _request(table: Any, tool_sets: Mapping[str, list], bad) -> dict:
    if not isinstance(table, dict):
        raise bad("[request] must be a table")
    unknown = set(table) - set(REQUEST_FIELDS)
    if unknown:
        raise bad(f"[request]: unknown field(s) {', '.join(sorted(unknown))}")
    request = dict(table)
    tools = request.get("tools")
    if isinstance(tools, str):
        if tools not in tool_sets:
            from workbench.errors import close_matches

            raise bad(f"unknown tool set {tools!r}{close_matches(tools, tool_sets)} ({TOOLS_FILE.name})")
        request["tools"] = [dict(t) for t in tool_sets[tools]]
    elif tools is not None and not (isinstance(tools, list) and all(isinstance(t, dict) for t in tools)):
        raise bad("[request] tools must name a tool set or be a list of tools")
    return request


def _expected(table: Any, bad) -> Expected:
    if not isinstance(table, dict):
        raise bad("[expected] is required: the final answer a client gets")
    unknown = set(table) - set(ANSWER_FIELDS)
    if unknown:
        raise bad(f"[expected]: unknown field(s) {', '.join(sorted(unknown))}")
    for name in ("reasoning", "content"):
        if name in table and not isinstance(table[name], str):
            raise bad(f"[expected] {name} must be a string (absent: none)")
    finish = table.get("finish_reason")
    if not isinstance(finish, str):
        raise bad("[expected] finish_reason must be a string (stop, length, tool_calls)")
    calls = []
    for i, call in enumerate(table.get("tool_calls", [])):
        if not isinstance(call, dict) or set(call) != {"name", "arguments"} or not isinstance(call["name"], str):
            raise bad(f"[expected] tool_calls[{i}] must be {{name = \"...\", arguments = {{...}}}}")
        calls.append((call["name"], call["arguments"]))
    return Expected(table.get("reasoning"), table.get("content"), tuple(calls), finish)


def taxonomy() -> dict:
    """``taxonomy.toml``: ``tags`` (tag -> what it covers), ``required`` (the tags a tool
    parser's folder must cover), ``required_reasoning`` (a folder whose cases name no tool
    parser) and ``[folders.<dir>] required``, which replaces either for one folder."""
    _, data = door.read_toml(TAXONOMY_FILE, "case taxonomy")
    return data


def taxonomy_tags() -> dict[str, str]:
    return dict(taxonomy().get("tags") or {})


def tool_sets_of() -> dict[str, list]:
    """``tools.toml``: set name -> its list of tools, in the chat API's shape."""
    _, data = door.read_toml(TOOLS_FILE, "case tool sets")
    return {name: value for name, value in data.items() if isinstance(value, list)}


def missing_required(cases: Sequence[Case]) -> dict[str, list[str]]:
    """{case folder: the required tags none of its cases covers}, for folders lacking some."""
    data = taxonomy()
    folders = data.get("folders") or {}
    covered: dict[str, set[str]] = {}
    calls: set[str] = set()
    for case in cases:
        covered.setdefault(case.parser_dir, set()).update(case.covers)
        if case.run.parser is not None and (case.run.parser.tool_parser or case.run.parser.config):
            calls.add(case.parser_dir)
    out = {}
    for folder, tags in sorted(covered.items()):
        default = data.get("required" if folder in calls else "required_reasoning") or []
        required = (folders.get(folder) or {}).get("required", default)
        missing = [t for t in required if t not in tags]
        if missing:
            out[folder] = missing
    return out


# -- answers -------------------------------------------------------------------------------
def answer_of(final: Any) -> Expected:
    """A run's final answer (a ``Final`` or its JSON: the non-streaming parse, or what a
    streaming client joined) in ``Expected``'s shape. Arguments that are not JSON stay text,
    so they compare unequal to any expected value."""
    from workbench.core.messages import Final

    final = Final.of(final)
    calls = []
    for call in final.tool_calls:
        try:
            arguments = door.parse_json(call.arguments or "", "tool call arguments")
        except WorkbenchError:
            arguments = call.arguments
        calls.append((call.name or "", arguments))
    return Expected(final.reasoning, final.content, tuple(calls), final.finish_reason or "")


def compare(expected: Expected, got: Expected) -> str | None:
    """None when ``got`` is ``expected``; else the first field that differs, in one line."""
    for name in ("reasoning", "content"):
        want, have = getattr(expected, name), getattr(got, name)
        if want != have:
            return f"{name}: expected {_show(want)}, got {_show(have)}"
    if len(expected.tool_calls) != len(got.tool_calls):
        return (f"tool_calls: expected {len(expected.tool_calls)} call(s) "
                f"{_names(expected)}, got {len(got.tool_calls)} {_names(got)}")
    for i, ((want_name, want_args), (name, args)) in enumerate(zip(expected.tool_calls, got.tool_calls)):
        if want_name != name:
            return f"tool_calls[{i}].name: expected {_show(want_name)}, got {_show(name)}"
        if want_args != args:
            return f"tool_calls[{i}].arguments: expected {_show(want_args)}, got {_show(args)}"
    if expected.finish_reason != got.finish_reason:
        return f"finish_reason: expected {_show(expected.finish_reason)}, got {_show(got.finish_reason)}"
    return None


def _show(value: Any) -> str:
    return "none" if value is None else clip(value, 60)


def _names(answer: Expected) -> str:
    return "[" + ", ".join(name for name, _ in answer.tool_calls) + "]"


# -- known divergences ---------------------------------------------------------------------
@dataclass(frozen=True)
class Divergence:
    """An allowed difference: for a case (an id) or every case of a parser folder, on the
    versions / frontends / APIs / groupings named (empty: any), in one field (None: any; "error": an
    error cell, which has no field; "stream": stream ≠ non-stream in any field)."""

    case: str | None
    parser: str | None
    vllm: tuple[str, ...]
    frontend: tuple[str, ...]
    api: tuple[str, ...]
    chunking: tuple[str, ...]
    field: str | None
    reason: str
    link: str
    detail: str | None = None  # words the cell's detail holds: one frontend's behaviour on any case

    def covers(self, cell: Mapping[str, Any]) -> bool:
        if self.detail is not None and self.detail not in str(cell.get("detail") or ""):
            return False
        case = cell.get("case")
        if case is not None:
            if self.case is not None and case != self.case:
                return False
            if self.parser is not None and str(case).partition("/")[0] != self.parser:
                return False
        for key in ("vllm", "frontend", "api", "chunking"):
            wanted = getattr(self, key)
            if wanted and cell.get(key) is not None and cell[key] not in wanted:
                return False
        if self.field is None or ("verdict" not in cell and "field" not in cell):
            return True
        if self.field in ("error", "stream"):  # a verdict, not an answer's field
            return cell.get("verdict") == {"error": "error", "stream": "stream≠nonstream"}[self.field]
        return cell.get("field") == self.field


_DIVERGENCE_KEYS = {"case", "parser", "detail", "vllm", "frontend", "api", "chunking", "field", "reason", "link"}


def load_divergences(path: str | Path | None = None) -> list[Divergence]:
    """The ``[[divergence]]`` entries of ``known-divergences.toml`` (or ``path``)."""
    path = Path(path) if path is not None else DIVERGENCES_FILE
    _, data = door.read_toml(path, "known divergences")
    out = []
    for i, entry in enumerate(data.get("divergence") or []):
        where = f"known divergences {path}: divergence {i + 1}"
        if not isinstance(entry, dict) or set(entry) - _DIVERGENCE_KEYS:
            raise WorkbenchError(f"{where}: fields are {', '.join(sorted(_DIVERGENCE_KEYS))}")
        if "case" in entry and "parser" in entry:
            raise WorkbenchError(f"{where}: give a case id or a parser folder, not both")
        if "case" not in entry and "parser" not in entry and "detail" not in entry:
            raise WorkbenchError(f"{where}: give a case id, a parser folder, or the detail every cell it allows says")
        for key in ("reason", "link"):
            if not isinstance(entry.get(key), str) or not entry[key].strip():
                raise WorkbenchError(f"{where}: {key} is required")
        if "detail" in entry and (not isinstance(entry["detail"], str) or not entry["detail"].strip()):
            raise WorkbenchError(f"{where}: detail is the words the cells it allows say")
        field = entry.get("field")
        if field is not None and field not in (*ANSWER_FIELDS, "stream", "error"):
            raise WorkbenchError(f"{where}: field must be one of {', '.join(ANSWER_FIELDS)}, stream, error")
        lists = {}
        for key in ("vllm", "frontend", "api", "chunking"):
            value = entry.get(key, [])
            value = [value] if isinstance(value, str) else value
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise WorkbenchError(f"{where}: {key} must be a string or a list of strings")
            lists[key] = tuple(value)
        out.append(Divergence(entry.get("case"), entry.get("parser"), field=field, reason=entry["reason"],
                              link=entry["link"], detail=entry.get("detail"), **lists))
    return out


def noted(case: Case, version: str) -> str | None:
    """Why ``case`` is expected to differ on ``version``, from its own [known] note, or None."""
    if case.no_version_passes is not None:
        return case.no_version_passes
    if case.passes_on and version not in case.passes_on:
        return f"only {', '.join(case.passes_on)} pass it"
    return None


def allowed(divergences: Sequence[Divergence], cell: Mapping[str, Any]) -> Divergence | None:
    """The first divergence that allows ``cell``'s difference (see the module docstring for
    the cell's keys), or None: an undocumented divergence."""
    return next((d for d in divergences if d.covers(cell)), None)
