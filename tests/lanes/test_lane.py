"""Version lanes: vLLM 0.33.0's parsers in a worker subprocess, next to the installed vLLM.

One lane start per test run (the ``lane`` fixture; the first run fetches the
0.33.0 wheel, about 340 MB, into .cache/wheels/). The lane-free tests build tiny
wheels of their own to check hashing and atomic extraction.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import zipfile

import pytest

from tests.support.seed import SEED_TEXT, WEATHER_TOOLS
from workbench.core.parsers import ParserSpec
from workbench.core.request import RequestSpec
from workbench.core.session import Setup
from workbench.errors import WorkbenchError
from workbench.lanes import names, tree, versions

LANE = "0.33.0"
# DeepSeek V3 with pretty-printed arguments: vLLM 0.32's regexes stop at the first
# newline (stream: only "{" of the arguments; non-stream: no call); 0.33 fixed both.
DEEPSEEK_PRETTY = ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n"
                   "```json\n{\n  \"city\": \"Paris\"\n}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>")
# Text after the calls: 0.32's non-streaming answer drops it (#56263), 0.33 keeps it.
DEEPSEEK_AFTER = ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n"
                  "```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>Checking now.")


@pytest.fixture(scope="session")
def lane():
    from workbench.cli.vllm_option import IN_LANE
    from workbench.lanes import lane as lanes

    # The CLI's lane program serves every worker op as well: one lane process for the run.
    return lanes.get(LANE, program=IN_LANE)


# -- lock, fetch, extraction (no lane) --------------------------------------------------

def test_unknown_version_names_the_listed_ones():
    with pytest.raises(WorkbenchError) as e:
        versions.check("0.31.0")
    msg = str(e.value)
    assert "\n" not in msg and f"{versions.installed()} (installed)" in msg and LANE in msg


def test_unknown_version_on_the_cli_is_one_line(run_cli):
    code, out, err = run_cli("replay", "--text", "hi", "--vllm", "9.9")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "listed:" in err and LANE in err


def _fake_wheel(path, files: dict[str, bytes]):
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return path


def _fake_lock(tmp_path, monkeypatch, wheel_name: str, sha: str, version: str = "9.9.9"):
    lock = tmp_path / "vllm-lanes.lock"
    lock.write_text(f"# test lock\n{version}  {wheel_name}  {sha}\n")
    monkeypatch.setattr(versions, "LOCK_FILE", lock)
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    return version


def test_extracts_only_the_python_tree_atomically(tmp_path, monkeypatch):
    from workbench.core.tokenizers.wheels import sha256_file

    wheels = tmp_path / "cache" / "wheels"
    wheels.mkdir(parents=True)
    w = _fake_wheel(wheels / "vllm-9.9.9-cp38-abi3-manylinux_2_28_x86_64.whl", {
        "vllm/__init__.py": b"__version__ = '9.9.9'\n", "vllm/parser/x.py": b"X = 1\n",
        "vllm/_C.abi3.so": b"\x7fELF", "vllm/third_party/big.py": b"", "vllm/cfg.json": b"{}",
        "vllm-9.9.9.dist-info/METADATA": b"Name: vllm\nVersion: 9.9.9\n",
        "vllm-9.9.9.dist-info/RECORD": b""})
    version = _fake_lock(tmp_path, monkeypatch, w.name, sha256_file(w))
    lines = []
    root = tree.ensure(version, progress=lines.append)
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    assert files == [".complete", ".manifest.sha256", "vllm-9.9.9.dist-info/METADATA", "vllm/__init__.py",
                     "vllm/cfg.json", "vllm/parser/x.py"]
    assert any("checking" in ln for ln in lines) and any("extracting" in ln for ln in lines)
    # A tree without its marker (an interrupted extraction) is never used: it is redone.
    (root / ".complete").unlink()
    (root / "vllm" / "parser" / "x.py").write_text("broken")
    root = tree.ensure(version, progress=lines.append)
    assert (root / "vllm" / "parser" / "x.py").read_text() == "X = 1\n"
    assert [p.name for p in root.parent.iterdir()] == [version]  # no temporary folders left


def test_declared_names_are_the_registry_vllm_registers(tmp_path, monkeypatch):
    from workbench.core.parsers import registered_names

    here, registered = names.declared(), registered_names()
    for kind in ("tool", "reasoning"):
        assert here[kind] and set(here[kind]) <= set(registered[kind])
    from workbench.core.tokenizers.wheels import sha256_file

    wheels = tmp_path / "cache" / "wheels"
    wheels.mkdir(parents=True)
    w = _fake_wheel(wheels / "vllm-9.9.8-cp38-abi3-manylinux_2_28_x86_64.whl", {
        "vllm/__init__.py": b"", "vllm/tool_parsers/__init__.py": b"_TOOL_PARSERS_TO_REGISTER = {'a': ('m', 'A')}\n",
        "vllm/reasoning/__init__.py": b"REGISTRY = {}\n"})
    version = _fake_lock(tmp_path, monkeypatch, w.name, sha256_file(w), "9.9.8")
    with pytest.raises(WorkbenchError, match="no _REASONING_PARSERS_TO_REGISTER dict"):
        names.declared(version)


@pytest.mark.parametrize("change", ["edit", "same size", "add at the root", "add a package", "remove",
                                    "symlink", "manifest for another wheel"])
def test_a_changed_tree_is_extracted_again_never_run(tmp_path, monkeypatch, change):
    """The manifest is checked on every use: any file changed, added or missing (even with
    its size and mtime kept), and the tree is extracted again from the hash-checked wheel."""
    import os

    from workbench.core.tokenizers.wheels import sha256_file

    wheels = tmp_path / "cache" / "wheels"
    wheels.mkdir(parents=True)
    w = _fake_wheel(wheels / "vllm-9.9.9-cp38-abi3-manylinux_2_28_x86_64.whl", {
        "vllm/__init__.py": b"__version__ = '9.9.9'\n", "vllm/parser/x.py": b"X = 1\n"})
    version = _fake_lock(tmp_path, monkeypatch, w.name, sha256_file(w))
    root = tree.ensure(version, progress=lambda m: None)
    x = root / "vllm" / "parser" / "x.py"
    if change == "edit":
        x.write_text("import os; os.system('id > pwned.txt')\n")
    elif change == "same size":
        st = x.stat()
        x.write_text("X = 2\n")
        os.utime(x, ns=(st.st_atime_ns, st.st_mtime_ns))
    elif change == "add at the root":
        (root / "sitecustomize.py").write_text("import os\n")
    elif change == "add a package":
        (root / "evil").mkdir()
        (root / "evil" / "__init__.py").write_text("")
    elif change == "remove":
        x.unlink()
    elif change == "symlink":
        x.unlink()
        x.symlink_to(tmp_path / "elsewhere.py")
    else:
        m = root / ".manifest.sha256"
        m.write_text(m.read_text().replace(sha256_file(w), "0" * 64))
    lines = []
    root = tree.ensure(version, progress=lines.append)
    assert any("is not the wheel's" in ln and "extracting it again" in ln for ln in lines), lines
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*"))
    assert files == [".complete", ".manifest.sha256", "vllm", "vllm/__init__.py", "vllm/parser", "vllm/parser/x.py"]
    assert x.read_text() == "X = 1\n" and not x.is_symlink()
    # a planted bytecode cache is removed, not read (the worker compiles verified source only)
    cache = root / "vllm" / "parser" / "__pycache__"
    cache.mkdir()
    (cache / "x.cpython-311.pyc").write_bytes(b"evil")
    lines.clear()
    assert tree.ensure(version, progress=lines.append) == root and not lines and not cache.exists()


def test_hash_mismatch_is_one_line_and_extracts_nothing(tmp_path, monkeypatch):
    wheels = tmp_path / "cache" / "wheels"
    wheels.mkdir(parents=True)
    w = _fake_wheel(wheels / "vllm-9.9.9-cp38-abi3-manylinux_2_28_x86_64.whl", {"vllm/__init__.py": b""})
    version = _fake_lock(tmp_path, monkeypatch, w.name, "0" * 64)
    with pytest.raises(WorkbenchError) as e:
        tree.ensure(version, progress=lambda m: None)
    assert "\n" not in str(e.value) and "does not match the lock" in str(e.value)
    assert not (tmp_path / "cache" / "vllm" / version).exists()


def test_corrupt_wheel_leaves_no_half_tree(tmp_path, monkeypatch):
    from workbench.core.tokenizers.wheels import sha256_file

    wheels = tmp_path / "cache" / "wheels"
    wheels.mkdir(parents=True)
    w = wheels / "vllm-9.9.9-cp38-abi3-manylinux_2_28_x86_64.whl"
    _fake_wheel(w, {"vllm/__init__.py": b"", "vllm/a.py": b"A = 1\n" * 1000})
    w.write_bytes(w.read_bytes()[:-60])  # truncated download, hash pinned to the bad file
    version = _fake_lock(tmp_path, monkeypatch, w.name, sha256_file(w))
    with pytest.raises(WorkbenchError) as e:
        tree.ensure(version, progress=lambda m: None)
    assert "\n" not in str(e.value)
    assert list((tmp_path / "cache" / "vllm").iterdir()) == []


def test_failed_download_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # offline: pip finds nothing and fails
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path))
    version = _fake_lock(tmp_path, monkeypatch, "vllm-9.9.9-cp38-abi3-manylinux_2_28_x86_64.whl", "1" * 64)
    with pytest.raises(WorkbenchError) as e:
        tree.ensure(version, progress=lambda m: None)
    assert "\n" not in str(e.value) and "pip download vllm==9.9.9 failed" in str(e.value)
    assert not (tmp_path / "cache" / "vllm" / version).exists()


def test_malformed_lock_line_names_it(tmp_path):
    lock = tmp_path / "bad.lock"
    lock.write_text("0.33.0 only-two-fields\n")
    with pytest.raises(WorkbenchError, match="line 1"):
        versions.locked(lock)


# -- the lane ------------------------------------------------------------------------------

def _bytes_read() -> int:
    """What this process has read so far (every read(2), page cache included)."""
    with open("/proc/self/io") as f:
        return int(next(line for line in f if line.startswith("rchar:")).split()[1])


def test_lane_runs_its_own_vllm_without_compiled_code(lane):
    assert lane.info["vllm"] == LANE and lane.info["file"].startswith(str(tree.tree_path(LANE)))
    root = tree.tree_path(LANE)
    size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and not p.is_symlink())
    before = _bytes_read()
    assert tree.ensure(LANE) == root  # verified, file by file, on every use: every byte read once
    assert size <= _bytes_read() - before < 2 * size  # (bench/lane_cost.py times it against its 0.3 s budget)
    declared = names.declared(LANE)  # the tree's own registry dicts, read with ast
    assert (lane.info["tool"], lane.info["reasoning"]) == (len(declared["tool"]), len(declared["reasoning"]))
    assert not list(tree.tree_path(LANE).rglob("*.so"))


def test_parsers_marks_names_in_only_one_version(lane, run_cli):
    code, out, _ = run_cli("parsers", "--vllm", LANE, "--json")
    entries = json.loads(out)
    assert code == 0
    # Names registered only in this process (plugins loaded by earlier tests) are listed
    # too, marked registered: False there, and so are those an earlier test's plugin
    # registered in this shared lane (test_carried.py): count vLLM's own.
    mine = [e for e in entries if e.get("registered", True) and (e.get("class") or "vllm.").startswith("vllm.")]
    declared = names.declared(LANE)
    assert sorted(e["name"] for e in mine if e["kind"] == "tool") == sorted(declared["tool"])
    assert sorted(e["name"] for e in mine if e["kind"] == "reasoning") == sorted(declared["reasoning"])
    code, here_out, _ = run_cli("parsers", "--json")
    here = {(e["kind"], e["name"]) for e in json.loads(here_out)}
    only = {(e["kind"], e["name"]) for e in entries if e["only_in"] == LANE}
    assert only == {(e["kind"], e["name"]) for e in entries} - here
    installed = names.declared()
    assert only >= {(kind, n) for kind in declared for n in set(declared[kind]) - set(installed[kind])} and only


def test_lane_rows_equal_in_process_rows_on_a_shared_parser(lane):
    from workbench.lanes.lane_session import session_for

    setup = Setup("qwen3", ParserSpec("hermes", "qwen3"), RequestSpec(tools=WEATHER_TOOLS))
    here = session_for(setup, None)
    there = session_for(setup, LANE)
    deltas = here.deltas_from_text(SEED_TEXT)
    assert there.deltas_from_text(SEED_TEXT) == deltas
    a, b = here.replay(deltas), there.replay(deltas)
    view = lambda r: (r.step, r.token_ids, r.text, r.phase_before, r.phase, r.sse, r.error, r.states,  # noqa: E731
                      [dataclasses.replace(c, id=None) for c in r.tool_calls], r.reasoning, r.content,  # noqa: E131
                      [r.phase_before.kind, r.phase.kind], r.events)
    assert [view(r) for r in a.rows] == [view(r) for r in b.rows]
    assert b.stream["tool_calls"][0]["arguments"] == '{"city": "Paris"}'
    assert b.parser["vllm"] == LANE


def test_conformance_tests_pass_inside_the_lane(lane):
    """tests/core/test_session.py (rows == a direct vLLM call) run in the lane's interpreter,
    so both the rows and the direct calls are vLLM 0.33.0's."""
    out = lane.call("pytest", args=["-q", "-p", "no:cacheprovider", str(versions.REPO_ROOT / "tests/core/test_session.py")])
    assert out["rc"] == 0, out["failed"]
    assert len(out["passed"]) >= 40 and not out["failed"]


def test_diff_across_versions_finds_the_deepseek_fix(lane, run_cli, tools_file):
    code, out, _ = run_cli("diff", "--text", DEEPSEEK_PRETTY, "--tokenizer", "deepseek_v3",
                           "--tools", tools_file, "--a", "deepseek_v3@0.32.0", "--b", f"deepseek_v3@{LANE}",
                           "--json")
    res = json.loads(out)
    assert code == 0 and res["first_step"] is not None
    old, new = res["final"]["nonstream"]["tool_calls"]["a"], res["final"]["nonstream"]["tool_calls"]["b"]
    assert old == [] and json.loads(new[0]["arguments"]) == {"city": "Paris"}
    streamed = res["final"]["stream"]["tool_calls"]
    assert json.loads(streamed["b"][0]["arguments"]) == {"city": "Paris"}
    assert streamed["a"][0]["arguments"] != streamed["b"][0]["arguments"]
    first = res["steps"][res["first_step"] - 1]
    assert first["a"]["delta"] != first["b"]["delta"]


def test_check_table_says_fixed_in_the_newer_version(lane, run_cli, tools_file):
    code, out, _ = run_cli("check", "--text", DEEPSEEK_AFTER, "--tokenizer", "deepseek_v3",
                           "--tools", tools_file, "--tool-parser", "deepseek_v3", "--fuzz", "3",
                           "--no-cost", "--shrink-budget", "0", "--vllm", f"0.32.0,{LANE}", "--json")
    res = json.loads(out)
    assert res["versions"] == ["0.32.0", LANE]
    content = [r for r in res["findings"] if (r["kind"], r["field"]) == ("stream_vs_nonstream", "content")]
    assert content and content[0]["note"] == f"fixed in {LANE}"
    assert content[0]["in"][LANE] is None and content[0]["in"]["0.32.0"]["nonstream"] is None
    # The chunking findings deepseek_v3 has in both versions stay, without a note.
    shared = [r for r in res["findings"] if all(r["in"][v] for v in res["versions"])]
    assert shared and all(r["note"] == "" for r in shared)
    assert len(res["reports"][LANE]["findings"]) == len(res["reports"]["0.32.0"]["findings"]) - 1
    assert code == 1
    code, text_out, _ = run_cli("check", "--text", DEEPSEEK_AFTER, "--tokenizer", "deepseek_v3",
                                "--tools", tools_file, "--tool-parser", "deepseek_v3", "--fuzz", "3",
                                "--no-cost", "--shrink-budget", "0", "--vllm", f"0.32.0,{LANE}")
    assert f"fixed in {LANE}" in text_out


def test_export_records_the_version_it_was_checked_on(lane, run_cli, tmp_path):
    path = tmp_path / "test_seed.py"
    code, out, err = run_cli("export", "--text", SEED_TEXT, "--tool-parser", "hermes",
                             "--reasoning-parser", "qwen3", "--fuzz", "2", "--vllm", LANE, "-o", path)
    assert code == 0, err
    assert f"vLLM {LANE}" in path.read_text() and "it passes now" in out


def test_doctor_says_which_parser_causes_the_lane_fixed(lane, run_cli, tools_file, tmp_path):
    text = tmp_path / "after.txt"
    text.write_text(DEEPSEEK_AFTER, encoding="utf-8")
    code, out, err = run_cli("doctor", "--text-file", text, "--tokenizer", "deepseek_v3", "--tools", tools_file,
                             "--tool-parser", "deepseek_v3", "--json")
    causes = json.loads(out)["causes"]
    dropped = next(c for c in causes if c["class"] == "parser_nonstreaming")  # #56263: the text after the call
    assert dropped["where"]["method"] == "extract_tool_calls", err
    assert dropped["versions"]["verdict"] == f"fixed in {LANE}"
    others = [v for v in versions.listed() if not versions.is_installed(v)]
    assert dropped["versions"]["checked"] == [versions.installed(), *others]
    assert dropped["versions"]["per_version"][LANE] == "gone"
    grouped = next(c for c in causes if c["class"] == "parser_streaming")  # the grouping bug both versions share
    assert grouped["versions"]["verdict"] == "not fixed in any version here"


def test_doctor_reads_every_lane_in_version_order_on_a_real_report(lane, run_cli, tmp_path):
    """vLLM issue 52846 (DeepSeek V4 holds a long string argument back until its closing tag):
    the installed 0.32.0 and the 0.33.0 lane have it, 0.34.0 streams it. The doctor asks every
    lane (the ones the test above started) and reads the answers oldest first."""
    from tests.support import reports

    case = reports.load(reports.CASES / "vllm-52846-deepseek-v4-long-string-argument-buffered.json")
    code, out, err = run_cli(*reports.argv(case, "doctor", tmp_path), "--json")
    held = next(c for c in json.loads(out)["causes"] if c["class"] == "parser_streaming")
    assert held["severity"] == "warning", err
    listed = versions.listed()
    assert held["versions"]["checked"] == sorted(listed, key=lambda v: tuple(map(int, v.split("."))))
    # what each version says is what the case's reproduces_on measured there
    assert held["versions"]["per_version"] == {v: "present" if case["reproduces_on"][v] else "gone" for v in listed}
    assert held["versions"]["verdict"] == "fixed in 0.34.0" and held["versions"]["back_in"] == []

def test_replay_json_in_the_lane(lane, run_cli, tools_file):
    code, out, _ = run_cli("replay", "--text", SEED_TEXT, "--tool-parser", "hermes", "--reasoning-parser",
                           "qwen3", "--tools", tools_file, "--vllm", LANE, "--json")
    res = json.loads(out)
    assert code == 0 and res["stream"]["reasoning"] == "Weather is needed."
    assert res["nonstream"]["tool_calls"][0]["name"] == "get_weather"
    code, out, _ = run_cli("doctor", "--text", DEEPSEEK_PRETTY, "--tokenizer", "deepseek_v3", "--tools",
                           tools_file, "--tool-parser", "deepseek_v3", "--vllm", LANE, "--json")
    report = json.loads(out)
    assert report["setup"]["tokenizer"] == "deepseek_v3" and report["setup"]["vllm"] == LANE
    # 0.33 reads pretty-printed arguments in both modes; what stays is the grouping bug both share.
    assert not [f for f in report["findings"] if f["kind"] == "stream_vs_nonstream" and f["severity"] == "error"]
    assert [c["class"] for c in report["causes"]] == ["parser_streaming"] and code == 1
    assert report["causes"][0]["versions"]["verdict"] == f"only vLLM {LANE} was checked"


def test_a_lane_that_dies_mid_stream_becomes_error_rows(lane):
    from workbench.lanes.lane import Lane
    from workbench.lanes.lane_session import LaneSession

    setup = Setup("qwen3", ParserSpec("hermes", "qwen3"), RequestSpec(tools=WEATHER_TOOLS))
    session = LaneSession(setup, LANE)
    deltas = session.deltas_from_text(SEED_TEXT)
    run = session.stream()
    first = run.feed_many(deltas[:3])
    assert [r.error for r in first] == [None, None, None]
    # The same protocol over a process that dies on its next request.
    dying = Lane(LANE)
    dying.proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.readline(); print('worker crashed', file=sys.stderr);"
                               " sys.exit(3)"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=(dying_log := __import__("tempfile").TemporaryFile(mode="w+")), text=True)
    dying._log = dying_log
    session.lane = dying
    rest = [run.feed(d) for d in deltas[3:]]
    assert all(r.error for r in rest) and len(run.rows) == len(deltas)
    assert "lane died" in rest[0].error and "exit code 3" in rest[0].error and "worker crashed" in rest[0].error
    stream, nonstream = run.final()
    assert stream.reasoning == "".join(r.reasoning or "" for r in first) and "died" in nonstream.error
    dying.close()
    assert lane.alive  # the shared lane and this process go on
    assert lane.call("ping") == {}


DYING_PLUGIN = """
import os

from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager


@ToolParserManager.register_module("dies_at_150")
class DiesAt150(ToolParser):
    calls = 0

    def extract_tool_calls(self, model_output, request):
        os._exit(3)

    def extract_tool_calls_streaming(self, *args, **kwargs):
        DiesAt150.calls += 1
        if DiesAt150.calls == 150:
            print("worker crashed", flush=True)
            os._exit(3)
        return None
"""


def test_replay_whose_lane_dies_mid_command_gives_error_rows(lane, run_cli, tmp_path, tools_file, monkeypatch):
    """The README's promise for `replay --vllm`: what the lane did not answer becomes error
    rows (the command is replayed row by row in a fresh lane), not one line and no rows."""
    from workbench.lanes import lane as lanes

    monkeypatch.setattr(lanes, "_LANES", {})  # lanes of its own: the plugin kills the one it runs in
    plugin = tmp_path / "dies.py"
    plugin.write_text(DYING_PLUGIN)
    code, out, err = run_cli("replay", "--text", "hello " * 300, "--plugin", plugin, "--tool-parser",
                             "dies_at_150", "--tools", tools_file, "--vllm", LANE, "--json")
    assert code == 1 and "Traceback" not in err, err
    rows = json.loads(out)["rows"]
    first = next(i for i, r in enumerate(rows) if r["error"])
    # rows come back in batches of worker.FEED_BATCH: the first was answered, the one it died in not
    assert first == 128 and len(rows) > 300 and all(r["error"] for r in rows[first:])
    assert "lane died" in rows[first]["error"] and "exit code 3" in rows[first]["error"]
    assert "worker crashed" in rows[first]["error"]
    assert "replayed again row by row" in err and f"first at step {first + 1}" in err
    assert lane.call("ping") == {}  # the run's shared lane and this process go on


def test_widget_version_picker_and_ab_across_versions(lane):
    from workbench import Workbench

    wb = Workbench(DEEPSEEK_PRETTY, tokenizer="deepseek_v3", tools=WEATHER_TOOLS, tool_parser="deepseek_v3",
                   reasoning_parser=None, vllm=LANE)
    assert wb.controls.vllm.value == LANE and "" in [v for _, v in wb.controls.vllm.options]  # "": installed
    wb.run()
    assert not wb.banner.value, wb.banner.value
    new_calls = wb.state.final.nonstream.tool_calls
    assert json.loads(new_calls[0].arguments) == {"city": "Paris"}
    only_here = sorted(set(names.declared(LANE)["tool"]) - set(names.declared()["tool"]))
    assert only_here[0] in [v for _, v in wb.controls.tool_parser.options]  # the picker lists the lane's names
    sent = [r for r in wb.rows if r.sse]
    assert sent and all(json.loads(r.chunk)["object"] == "chat.completion.chunk" for r in sent)
    wb.controls.vllm.value = ""  # the installed vLLM, same stream
    wb.replay()
    assert wb.state.final.nonstream.tool_calls != new_calls
    assert wb.state.stream.changed  # the rows that differ between the two versions are marked
    res = wb.compare("deepseek_v3@0.32.0", f"deepseek_v3@{LANE}")
    assert res.label_a == "deepseek_v3@0.32.0"
    assert res.first_step is not None and f"@{LANE}" in wb.ab.label_b.value
    assert res.first_step in wb.state.stream.changed


def test_widget_on_a_lane_draws_its_engine_and_refuses_live_sources(lane):
    from workbench import Workbench
    from workbench.core.machine import machines_of
    from workbench.core.parsers import ParserSpec

    wb = Workbench(SEED_TEXT.replace("<tool_call>{", "<tool_call>\n{"), tools=WEATHER_TOOLS,
                   tool_parser="qwen3_coder", reasoning_parser="qwen3", vllm=LANE)
    wb.step()
    here = session_for_installed(ParserSpec("qwen3_coder", "qwen3"))
    drawn, installed = wb.diagram.machines, machines_of(here)
    assert [m["role"] for m in drawn] == [m["role"] for m in installed] == ["reasoning", "tool"]
    # 0.33's qwen3 config closes an unterminated function name (vLLM issue 58227); 0.32's has no such edge
    edge = lambda m: {(e["from"], e["on"], e["to"]) for e in m["edges"]}  # noqa: E731
    assert ("TOOL_NAME", "TOOL_END", "CONTENT") in edge(drawn[1]) - edge(installed[1])
    wb.controls.source.value = "engine"  # refused the moment it is picked, in the widget's own status
    assert wb.controls.source.value == "text" and "refused" in wb.controls.status.value
    assert "live stream runs on the installed vLLM" in wb.controls.status.value and not wb.banner.value


def session_for_installed(spec):
    from workbench.core.session import Session

    return Session(Setup("qwen3", spec, RequestSpec(tools=WEATHER_TOOLS)))


BUGGY_WORKER = r"""
import json, sys
sys.stdin.readline()
print(json.dumps({"ok": False, "kind": "exception", "error": "KeyError: 'choices'\nsecond line",
                  "traceback": "Traceback (most recent call last):\n  File \"x.py\", line 1\nKeyError: 'choices'\n"}),
      flush=True)
sys.stdin.readline()
"""


def test_a_bug_inside_a_lane_is_one_line_with_its_traceback_kept(run_cli, monkeypatch, tmp_path):
    """A worker that raises something other than a WorkbenchError (LaneFailed): the CLI prints one
    line naming the lane, the op and the exception, and keeps the worker's traceback in a file."""
    from workbench.cli.vllm_option import IN_LANE
    from workbench.lanes import lane as lanes

    buggy = lanes.Lane(LANE, IN_LANE)
    buggy.proc = subprocess.Popen([sys.executable, "-c", BUGGY_WORKER], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    monkeypatch.setattr(lanes, "_LANES", {(LANE, IN_LANE): buggy})
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    try:
        code, out, err = run_cli("replay", "--text", "hi", "--vllm", LANE)
    finally:
        buggy.close()
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert f"vLLM {LANE} lane, op command: KeyError: 'choices' second line" in err
    kept = list(tmp_path.glob("workbench-lane-*.traceback.txt"))
    assert len(kept) == 1 and str(kept[0]) in err
    assert "KeyError: 'choices'" in kept[0].read_text() and "x.py" in kept[0].read_text()
