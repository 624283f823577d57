"""lanes/carried.py and the lane's private folder: an author's relative paths, from a folder
that is not the project's, give the verdicts of the absolute run; the lane writes nothing.

The author's folder holds ``parsers/teaching.toml``, the same name as the checkout's shipped
config but a different format (``<invoke>`` tags, no argument converter: the stream's
arguments lose their first ``{``). A lane that looked the name up in the checkout (as the
warm lanes did, working there) ran the shipped file, found nothing, and the doctor said
"gone with vLLM 0.33.0". One lane for the module (the ``lane`` fixture, shared with
test_lane.py's through ``lanes.get``).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import types
from pathlib import Path

import pytest

from workbench.errors import WorkbenchError

from workbench.lanes import versions
from workbench.runs import asked

LANE = "0.33.0"
REPO = versions.REPO_ROOT
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]
TEXT = '<think>hm</think>Sure.<invoke>{"name": "get_weather", "arguments": {"city": "Paris"}}</invoke>'
SKIPPED = {".git", ".venv", ".cache", "__pycache__", "node_modules", ".mypy_cache", ".pytest_cache",
           ".ipynb_checkpoints", "site", "build", "artifacts"}


@pytest.fixture(scope="session")
def lane():
    from workbench.cli.vllm_option import IN_LANE
    from workbench.lanes import lane as lanes

    return lanes.get(LANE, program=IN_LANE)


MINE = """name = "teaching"
initial_state = "CONTENT"
{converter}tool_args_json = true
transitions = [
  {{ from = "CONTENT",   on = "THINK_START", to = "REASONING", emit = ["REASONING_START"] }},
  {{ from = "REASONING", on = "THINK_END",   to = "CONTENT",   emit = ["REASONING_END"] }},
  {{ from = "CONTENT",   on = "TOOL_START",  to = "TOOL_ARGS", emit = ["TOOL_CALL_START"] }},
  {{ from = "TOOL_ARGS", on = "TOOL_END",    to = "CONTENT",   emit = ["TOOL_CALL_END"] }},
]

[terminals]
THINK_START = "<think>"
THINK_END = "</think>"
TOOL_START = "<invoke>"
TOOL_END = "</invoke>"

[content_events]
CONTENT = "TEXT_CHUNK"
REASONING = "REASONING_CHUNK"
TOOL_ARGS = "ARG_VALUE_CHUNK"
"""


def _author(folder: Path, converter: str | None = None) -> Path:
    """The author's folder: parsers/teaching.toml (their own format), tools.json, t.txt."""
    (folder / "parsers").mkdir(parents=True)
    line = f'arg_converter = "{converter}"\n' if converter else ""
    (folder / "parsers" / "teaching.toml").write_text(MINE.format(converter=line), encoding="utf-8")
    (folder / "tools.json").write_text(json.dumps(TOOLS), encoding="utf-8")
    (folder / "t.txt").write_text(TEXT, encoding="utf-8")
    return folder


def _checkout() -> tuple[str, dict]:
    """git's view of the checkout, and every file in it (ignored caches left out) with its size
    and mtime: a lane or a command that wrote there changes one of them."""
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=REPO,
                            capture_output=True, text=True, check=True).stdout
    files = {}
    for root, dirs, names in os.walk(REPO):
        dirs[:] = [d for d in dirs if d not in SKIPPED]
        for name in names:
            if not name.endswith(".pyc"):
                st = os.lstat(os.path.join(root, name))
                files[os.path.relpath(os.path.join(root, name), REPO)] = (st.st_size, st.st_mtime_ns)
    return status, files


def _verdicts(out: str) -> list:
    data = json.loads(out)
    return [(c["class"], c.get("versions")) for c in data["causes"]], \
        sorted((f["kind"], f["field"]) for f in data["findings"])


def test_the_lane_works_in_a_private_folder_of_its_own(lane):
    folder = Path(lane.info["folder"])
    assert folder.is_dir() and stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert not list(folder.iterdir()) or all(p.name.startswith(("written", "carried-")) for p in folder.iterdir())
    assert REPO not in (folder, *folder.parents) and folder != Path.cwd()


def test_relative_paths_from_another_folder_give_the_absolute_verdicts(lane, run_cli, tmp_path, monkeypatch):
    """The docs' authoring examples, relative, from the author's folder: replay, check and
    doctor over the lanes, export -o, doctor --report, export-config --all DIR. Each equals
    the absolute run (or writes where the author said), and the checkout is untouched."""
    work = _author(tmp_path / "author")
    before = _checkout()
    # doctor's "fixed in" asks every listed lane: this lane is enough to tell them apart
    monkeypatch.setattr(asked.versions, "listed", lambda: [versions.installed(), LANE])
    monkeypatch.chdir(work)
    rel = ["--config", "parsers/teaching.toml", "--tools", "tools.json", "--text-file", "t.txt"]
    absolute = ["--config", work / "parsers" / "teaching.toml", "--tools", work / "tools.json",
                "--text-file", work / "t.txt"]
    quick = ["--fuzz", "2", "--shrink-budget", "0"]

    code, out, err = run_cli("doctor", *rel, "--json")
    mine = next(c for c in json.loads(out)["causes"] if c["class"] == "parser_streaming")
    # the author's own config, in every version: never "gone" because a lane ran another file
    assert mine["versions"]["per_version"] == {versions.installed(): "present", LANE: "present"}, err
    assert mine["versions"]["verdict"] == "the same with every vLLM here"
    assert _verdicts(out) == _verdicts(run_cli("doctor", *absolute, "--json")[1])

    code, out, err = run_cli("replay", *rel, "--vllm", LANE, "--json")
    assert code == 0, err
    here = json.loads(out)
    # the author's <invoke> format ran (the checkout's teaching.toml finds no call in this text)
    assert [c["name"] for c in here["nonstream"]["tool_calls"]] == ["get_weather"]
    there = json.loads(run_cli("replay", *absolute, "--vllm", LANE, "--json")[1])
    for side in ("stream", "nonstream"):
        calls = [(c["name"], c["arguments"]) for c in here[side]["tool_calls"]]  # ids are random
        assert calls == [(c["name"], c["arguments"]) for c in there[side]["tool_calls"]]
    assert [r["text"] for r in here["rows"]] == [r["text"] for r in there["rows"]]

    # a plugin named like the checkout's example, registering a name only the author's copy has
    plugin = (REPO / "parsers" / "plugins" / "example_tool_parser.py").read_text(encoding="utf-8")
    (work / "parsers" / "plugins").mkdir()
    (work / "parsers" / "plugins" / "example_tool_parser.py").write_text(
        plugin.replace('register_module("example_json")', 'register_module("authors_json")'), encoding="utf-8")
    code, out, err = run_cli("replay", "--plugin", "parsers/plugins/example_tool_parser.py", "--tool-parser",
                             "authors_json", "--tools", "tools.json", "--vllm", LANE, "--json", "--text",
                             'Let me check.<call>{"name": "get_weather", "arguments": {"city": "Paris"}}</call>')
    assert code == 0 and [c["name"] for c in json.loads(out)["nonstream"]["tool_calls"]] == ["get_weather"], err

    code, out, err = run_cli("check", *rel, *quick, "--vllm", f"{versions.installed()},{LANE}")
    assert (code, out) == run_cli("check", *absolute, *quick, "--vllm", f"{versions.installed()},{LANE}")[:2]
    assert "fixed in" not in out and "gone" not in out

    code, out, err = run_cli("export", *rel, "--fuzz", "2", "--vllm", LANE, "-o", "test_mine.py")
    assert code == 0, err
    assert f"vLLM {LANE}" in (work / "test_mine.py").read_text(encoding="utf-8")
    assert "it FAILS now" in out  # the planted bug, seen by the lane's self-check of the written test
    code, out, err = run_cli("doctor", *rel, "--vllm", LANE, "--report", "bug.md")
    assert (work / "bug.md").is_file() and (work / "test_bug.py").is_file(), err
    code, out, err = run_cli("export-config", "--all", "out", "--vllm", LANE)
    assert code == 0, err
    assert (work / "out" / "qwen3.toml").is_file() and f"vLLM {LANE}" in (work / "out" / "qwen3.toml").read_text()
    after = _checkout()
    changed = sorted(k for k in before[1].keys() | after[1].keys() if before[1].get(k) != after[1].get(k))
    assert (before[0], changed) == (after[0], [])


def test_a_lane_that_cannot_load_the_parser_never_says_fixed_or_gone(lane, tmp_path, monkeypatch):
    """The author's converter module is importable here (a notebook's path) and not in the
    lane: its doctor runs, the parser does not start there. That is "could not run on V",
    and the verdict leaves the version out."""
    from vllm.parser.granite import _granite_arg_converter

    from workbench.core.parsers import ParserSpec
    from workbench.core.run_spec import RunSpec

    module = types.ModuleType("authors_only_converter")
    module.conv = _granite_arg_converter
    monkeypatch.setitem(sys.modules, module.__name__, module)
    work = _author(tmp_path / "author", converter=f"{module.__name__}:conv")
    spec = RunSpec(text=TEXT, parser=ParserSpec(config=str(work / "parsers" / "teaching.toml")),
                   allow_callables=(f"{module.__name__}:conv",), request={"tools": TOOLS})
    found = asked.findings_in(LANE, spec)
    assert isinstance(found, str) and found.startswith(f"could not run on {LANE}: ")
    assert module.__name__ in found and "\n" not in found
    keys = [{"kind": "stream_vs_nonstream", "field": "tool_calls"}]
    for own in (True, False):
        text, per, timeline = asked.verdict(keys, {LANE: found}, versions.installed(), own)
        assert "fixed" not in text and "gone" not in text and timeline["fixed_in"] is None
        assert per[LANE] == found and timeline["unknown"] == [LANE]


def test_every_path_leaves_absolute_and_a_descriptor_as_its_content(tmp_path, monkeypatch):
    """What carried.py sends (no lane): each path the run or the command names, absolute from
    the caller's folder; a built-in tokenizer by name; a file behind one of this process's
    descriptors as its content, which the worker writes into its own folder."""
    from workbench.core.parsers import ParserSpec
    from workbench.core.run_spec import RunSpec
    from workbench.lanes import carried

    work = _author(tmp_path / "author")
    monkeypatch.chdir(work)
    with pytest.raises(WorkbenchError, match=r"p\.py: No such file"):  # here, not in a lane
        carried.spec(RunSpec(text="x", plugins=("./p.py",)))
    (work / "rec.jsonl").write_text("{}\n")
    (work / "p.py").write_text("X = 1\n")
    sent = carried.spec(RunSpec(recording="rec.jsonl", tokenizer="tok", plugins=("./p.py",),
                                parser=ParserSpec(config="parsers/teaching.toml")))
    assert (sent["recording"], sent["tokenizer"], sent["plugins"], sent["parser"]["config"]) == (
        str(work / "rec.jsonl"), str(work / "tok"), [str(work / "p.py")], str(work / "parsers/teaching.toml"))
    assert carried.spec(RunSpec(text="x", tokenizer="qwen3"))["tokenizer"] == "qwen3"
    options = carried.options({"output": "t.py", "report": "b.md", "all": "out", "a": "mine.toml@0.33.0",
                               "b": "hermes+qwen3@0.33.0", "fuzz": 2})
    assert options == {"output": str(work / "t.py"), "report": str(work / "b.md"), "all": str(work / "out"),
                       "a": f"{work / 'mine.toml'}@0.33.0", "b": "hermes+qwen3@0.33.0", "fuzz": 2}

    fd = os.open(work / "parsers" / "teaching.toml", os.O_RDONLY)
    try:
        sent = carried.spec(RunSpec(text="x", parser=ParserSpec(config=f"/dev/fd/{fd}")))
    finally:
        os.close(fd)
    assert sent["parser"]["config"] == {"carried": str(fd), "content": MINE.format(converter="")}
    lane_folder = tmp_path / "lane"
    lane_folder.mkdir()
    monkeypatch.chdir(lane_folder)
    arrived = Path(carried.arrived(sent)["parser"]["config"])
    assert lane_folder in arrived.parents and arrived.read_text(encoding="utf-8") == MINE.format(converter="")
