"""`workbench watch`: check (or replay) again in one warm process whenever a watched file
changes; the FILEs first become the flags they are, the flags' files are watched too, a bad
edit is one line and the loop goes on, and the loop's lighter check defaults give way to the
flags given."""

from __future__ import annotations

import json
import textwrap

import pytest

from workbench.cli.watch_cmd import LOOP_DEFAULTS, Watcher, command
from workbench.errors import WorkbenchError

CONFIG = textwrap.dedent('''\
    name = "owl"
    arg_converter = "vllm.parser.granite:_granite_arg_converter"
    tool_args_json = true
    transitions = [
      { from = "CONTENT",   on = "CALL_START",  to = "TOOL_ARGS", emit = ["TOOL_CALL_START"] },
      { from = "TOOL_ARGS", on = "CALL_END",    to = "CONTENT",   emit = ["TOOL_CALL_END"] },
    ]
    [terminals]
    CALL_START = "<<call>>"
    CALL_END = "<</call>>"
    [content_events]
    CONTENT = "TEXT_CHUNK"
    TOOL_ARGS = "ARG_VALUE_CHUNK"
    ''')
TEXT = 'Let me check.<<call>>{"name": "get_weather", "arguments": {"city": "Paris"}}<</call>>'


def test_files_become_flags_and_the_loop_defaults_give_way():
    line, files, own = command(["my.toml", "out.txt", "--tools", "t.json", "--fuzz", "50", "--interval", "0.5"])
    assert line[:5] == ["check", "--config", "my.toml", "--text-file", "out.txt"]
    assert line.count("--fuzz") == 1 and line[line.index("--fuzz") + 1] == "50"  # given: kept
    assert "--splits" in line and "--no-cost" in line  # not given: the loop's
    assert files == ["my.toml", "out.txt", "t.json"] and own["interval"] == 0.5
    line, files, own = command(["p.py", "rec.jsonl", "--replay", "--tool-parser", "mine"])
    assert line == ["replay", "--plugin", "p.py", "rec.jsonl", "--tool-parser", "mine"] and own["replay"]
    assert not set(LOOP_DEFAULTS) & set(line)


@pytest.mark.parametrize("argv, says", [([], "nothing to watch"), (["--tools"], "nothing to watch"),
                                        (["a.toml", "--interval"], "needs a value"),
                                        (["a.toml", "--interval", "x"], "not a number"),
                                        (["a.toml", "--interval", "0"], "above 0"),
                                        (["a.toml", "--interval", "nan"], "above 0"),
                                        (["a.toml", "--interval", "inf"], "at most 3600"),
                                        (["a.toml", "--interval", "-inf"], "above 0"),
                                        (["a.toml", "--interval", "1e308"], "at most 3600"),
                                        (["a.txt", "b.txt"], "a.txt and b.txt would both be the --text-file"),
                                        (["a.toml", "b.toml"], "would both be the --config"),
                                        (["a.jsonl", "b.jsonl"], "would both be the recording")])
def test_bad_watch_lines_are_one_line(argv, says, run_cli):
    with pytest.raises(WorkbenchError, match=says):
        command(argv)
    code, _, err = run_cli("watch", *argv)
    assert code == 2 and says in err and err.count("\n") == 1


def test_plugins_may_be_many():
    line, files, _ = command(["a.py", "b.py", "t.txt"])
    assert line[:6] == ["check", "--plugin", "a.py", "--plugin", "b.py", "--text-file"] and len(files) == 3


def test_each_edit_is_answered_and_a_broken_one_leaves_the_loop_going(run_cli, tmp_path, monkeypatch, tools_file):
    from workbench.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "owl.toml").write_text(CONFIG)
    (tmp_path / "out.txt").write_text(TEXT)
    line, files, _ = command(["owl.toml", "out.txt", "--tools", str(tools_file), "--json"])
    watcher = Watcher(line, files, lambda argv: run_cli(*argv)[0])
    assert watcher.answer()[0] == 0 and watcher.changed() == []
    answers = []

    def edit(text: str) -> tuple:
        (tmp_path / "owl.toml").write_text(text)
        assert watcher.changed() == ["owl.toml"]
        answers.append(run_cli(*watcher.run))
        return answers[-1]

    code, out, _ = edit(CONFIG.replace('CALL_END = "<</call>>"', 'CALL_END = "<</call"'))  # a planted typo
    assert code == 1 and json.loads(out)["findings"]
    code, out, err = edit(CONFIG.replace('emit = ["TOOL_CALL_END"]', 'emit = ["TOOL_CALL_ENDS"]'))
    assert code == 2 and "TOOL_CALL_ENDS" in err and "line 6" in err and err.count("\n") == 1
    code, out, _ = edit(CONFIG)
    assert code == 0 and not json.loads(out)["findings"]
    assert main  # the real entry point is what `workbench watch` runs (run_cli wraps it here)


def test_watch_once_runs_the_check(run_cli, tmp_path, monkeypatch, tools_file):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "owl.toml").write_text(CONFIG.replace('CALL_END = "<</call>>"', 'CALL_END = "<</call"'))
    (tmp_path / "out.txt").write_text(TEXT)
    code, out, err = run_cli("watch", "owl.toml", "out.txt", "--tools", tools_file, "--once")
    assert code == 1 and "INCONSISTENT" in out and "watch: answered in" in err


def test_memory_is_flat_over_50_edits_of_a_large_plugin(run_cli, tmp_path):
    """Each edit used to keep the plugin's last module alive (the plugin cache, a class-keyed
    cache): 20 MB more per edit of this plugin."""
    import os
    import tracemalloc

    from tests.support.owl_plugin import PLUGIN

    plugin = tmp_path / "big_owl.py"
    big = PLUGIN + '\nBIG = b"x" * 20_000_000\n'
    plugin.write_text(big + "#0\n")
    line, files, _ = command([str(plugin), "--replay", "--tool-parser", "owl", "--text", "hi", "--json"])
    watcher = Watcher(line, files, lambda argv: run_cli(*argv)[0])
    assert watcher.answer()[0] == 0
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        for i in range(1, 51):
            plugin.write_text(big + f"#{i}\n")
            os.utime(plugin, ns=(i * 10**9, i * 10**9))
            assert watcher.changed() == [str(plugin)] and watcher.answer()[0] == 0
        grown = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert grown < 30_000_000, f"{grown / 1e6:.0f} MB more after 50 edits"
