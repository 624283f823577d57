"""core/plugins.py: a parser plugin loaded as vLLM's --tool-parser-plugin loads it, from any
path the user gives; each bad plugin is one line and exit 2; doctor runs the plugin; a plugin
may register a reasoning parser."""

from __future__ import annotations

import json
import textwrap

import pytest


REASONING_PLUGIN = textwrap.dedent('''\
    """Reasoning between two plain-text markers: ::reason:: ... ::/reason::."""
    from vllm.entrypoints.generate.base.protocol import DeltaMessage
    from vllm.reasoning import ReasoningParser, ReasoningParserManager

    START, END = "::reason::", "::/reason::"


    def split(text):
        if START not in text:
            return None, text
        before, _, rest = text.partition(START)
        reasoning, ended, content = rest.partition(END)
        return reasoning, (before + content) if ended else before


    @ReasoningParserManager.register_module("plain_reason")
    class PlainReasoningParser(ReasoningParser):
        def __init__(self, tokenizer, *args, **kwargs):
            super().__init__(tokenizer, *args, **kwargs)
            self.sent = [0, 0]

        def is_reasoning_end(self, input_ids):
            return END in self.model_tokenizer.decode(list(input_ids))

        def extract_content_ids(self, input_ids):
            return list(input_ids)

        def extract_reasoning(self, model_output, request):
            reasoning, content = split(model_output)
            return reasoning, content or None

        def extract_reasoning_streaming(self, previous_text, current_text, delta_text, previous_token_ids,
                                        current_token_ids, delta_token_ids):
            reasoning, content = split(current_text)
            held = next((n for n in range(len(END), 0, -1) if current_text.endswith(END[:n])), 0)
            if reasoning is not None and END not in current_text:
                reasoning = reasoning[:len(reasoning) - held]
            elif reasoning is None:
                content = content[:len(content) - next(
                    (n for n in range(len(START), 0, -1) if content.endswith(START[:n])), 0)]
            new_r, new_c = (reasoning or "")[self.sent[0]:], (content or "")[self.sent[1]:]
            self.sent = [len(reasoning or ""), len(content or "")]
            if not new_r and not new_c:
                return None
            return DeltaMessage(reasoning=new_r or None, content=new_c or None)
''')


@pytest.fixture
def plugin_dir(tmp_path):
    d = tmp_path / "plugins"
    d.mkdir()
    (d / "plain_reason.py").write_text(REASONING_PLUGIN)
    (d / "raises.py").write_text("X = 1\n\nraise RuntimeError('the plugin failed here')\n")
    (d / "nothing.py").write_text("X = 1\n")
    (d / "syntax.py").write_text("def f(:\n")
    (d / "notes.txt").write_text("x\n")
    return d


@pytest.mark.parametrize("where", ["./plain_reason.py", "../plugins/plain_reason.py", "plain_reason.py"])
def test_relative_plugin_paths_load(run_cli, plugin_dir, monkeypatch, where):
    monkeypatch.chdir(plugin_dir if not where.startswith("..") else plugin_dir / ".." / "plugins")
    code, out, err = run_cli("replay", "--plugin", where, "--reasoning-parser", "plain_reason",
                             "--text", "::reason::hmm::/reason::Hi", "--json")
    assert code == 0, err
    nonstream = json.loads(out)["nonstream"]
    assert (nonstream["reasoning"], nonstream["content"]) == ("hmm", "Hi")


@pytest.mark.parametrize("name, says", [
    ("raises.py", "failed to import (line 3): RuntimeError: the plugin failed here"),
    ("syntax.py", "failed to import (line 1): SyntaxError"),
    ("nothing.py", "registers no parser: decorate a ToolParser subclass"),
    ("notes.txt", "not a Python file"),
    ("missing.py", "not found"),
    (".", "not a file"),
])
def test_a_bad_plugin_is_one_line_and_exit_2(run_cli, plugin_dir, monkeypatch, name, says):
    monkeypatch.chdir(plugin_dir)
    for command in (("replay",), ("check", "--fuzz", "0", "--no-cost"), ("doctor",), ("export", "-o", "test_x.py")):
        code, out, err = run_cli(*command, "--plugin", f"./{name}", "--tool-parser", "hermes", "--text", "x")
        assert code == 2 and says in err and err.count("\n") == 1, (command, err)


def test_an_unknown_name_lists_what_the_plugins_register(run_cli, plugin_dir):
    code, _, err = run_cli("replay", "--plugin", plugin_dir / "plain_reason.py", "--reasoning-parser",
                           "plain_reasn", "--text", "x")
    assert code == 2 and err.count("\n") == 1
    assert "did you mean: plain_reason" in err and "plain_reason.py registers reasoning parser plain_reason" in err


def test_a_plugin_registering_a_reasoning_parser_streams_as_vllm_runs_it(run_cli, plugin_dir):
    """The rows are vLLM's DelegatingParser over the plugin's class, each grouping alike. With the
    detokenizer holding text back (stop strings), vLLM asks is_reasoning_end on the ids before
    the end marker's text arrived: this plugin, which decodes the ids, then loses the marker's
    tail to content (docs/plugin-contract: ids vs text timing)."""
    text = "Hi.::reason::Think it over.::/reason::The answer."
    args = ("check", "--plugin", plugin_dir / "plain_reason.py", "--reasoning-parser", "plain_reason",
            "--text", text, "--fuzz", "20", "--no-cost", "--json")
    code, out, err = run_cli(*args, "--holdback", "0")
    assert code == 0, out
    code, out, err = run_cli(*args, "--holdback", "1")
    held = [f for f in json.loads(out)["findings"] if f["chunking"] == "holdback:1"]
    assert code == 1 and held and held[0]["stream"] == "Hi.::The answer.", out
    code, out, _ = run_cli("replay", "--plugin", plugin_dir / "plain_reason.py", "--reasoning-parser",
                           "plain_reason", "--text", text, "--json")
    d = json.loads(out)
    assert d["stream"]["reasoning"] == "Think it over." and d["stream"]["content"] == "Hi.The answer."
    assert d["parser"]["reasoning"].endswith("PlainReasoningParser")


def test_doctor_runs_the_plugin_and_names_its_file_and_line(run_cli, tmp_path, tools_file):
    """It used to report the plugin's name as unregistered and describe a run with no parser."""
    plugin = tmp_path / "leaky.py"
    plugin.write_text(textwrap.dedent('''\
        from vllm.entrypoints.generate.base.protocol import DeltaMessage, ExtractedToolCallInformation
        from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager


        @ToolParserManager.register_module("leaky")
        class LeakyToolParser(ToolParser):
            def extract_tool_calls(self, model_output, request):
                return ExtractedToolCallInformation(tools_called=False, tool_calls=[], content=model_output)

            def extract_tool_calls_streaming(self, previous_text, current_text, delta_text, *args):
                return DeltaMessage(content=delta_text.replace("!", ""))
        '''))
    code, out, err = run_cli("doctor", "--plugin", plugin, "--tool-parser", "leaky", "--tools", tools_file,
                             "--text", "Hello there! How are you!", "--vllm", "0.32.0", "--json")
    d = json.loads(out)
    assert code == 1 and not [g for g in d["diagnoses"] if g["code"] == "parser_cannot_start"], d["diagnoses"]
    head = d["causes"][0]
    assert head["class"] == "parser_streaming", head
    w = head["where"]
    assert w["file"] == str(plugin) and w["class"] == "LeakyToolParser"
    assert w["method"] == "extract_tool_calls_streaming" and w["line"] == 10 and w["returned_at"] == 11
    code, out, _ = run_cli("doctor", "--plugin", plugin, "--tool-parser", "leaky", "--tools", tools_file,
                           "--text", "Hello there! How are you!", "--vllm", "0.32.0")
    assert f"where: your code (module leaky): {plugin}:10, LeakyToolParser.extract_tool_calls_streaming, " \
           "returned at line 11" in out


def test_diff_runs_a_plugin_on_one_side(run_cli, plugin_dir):
    code, out, err = run_cli("diff", "--plugin", plugin_dir / "plain_reason.py", "--a", "+plain_reason",
                             "--b", "+qwen3", "--text", "::reason::hm::/reason::ok", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["a"]["parser"]["reasoning"].endswith("PlainReasoningParser")
    assert d["b"]["parser"]["reasoning"].startswith("vllm.")


def test_an_edited_plugin_loaded_again_runs_its_new_code(run_cli, tmp_path, tools_file):
    """vLLM's managers cache a lazily registered class on first use; the workbench drops the
    cached class when the plugin is imported again, as a fresh server would start."""
    plugin = tmp_path / "edited.py"
    source = textwrap.dedent('''\
        from vllm.entrypoints.generate.base.protocol import DeltaMessage, ExtractedToolCallInformation
        from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager


        @ToolParserManager.register_module("edited")
        class EditedToolParser(ToolParser):
            def extract_tool_calls(self, model_output, request):
                return ExtractedToolCallInformation(tools_called=False, tool_calls=[], content=model_output)

            def extract_tool_calls_streaming(self, previous_text, current_text, delta_text, *args):
                return DeltaMessage(content=delta_text + WORD) if delta_text else None
        ''')
    for word in ("first", "second"):
        plugin.write_text(f"WORD = {word!r}\n" + source)
        code, out, err = run_cli("replay", "--plugin", plugin, "--tool-parser", "edited", "--tools", tools_file,
                                 "--text", "x", "--json")
        assert code == 0 and json.loads(out)["stream"]["content"] == "x" + word, err


def test_a_cause_in_your_code_is_not_said_to_be_fixed_in_vllm(monkeypatch):
    """doctor asks the other vLLM versions about a parser cause; for the author's own code the
    verdict says how it fares with each vLLM, not that vLLM fixed it."""
    from workbench.diagnosis.causes import Cause
    from workbench.core.run_spec import RunSpec
    from workbench.runs import asked  # where doctor (and the widget's Diagnose tab) asks the lanes

    monkeypatch.setattr(asked.versions, "listed", lambda: ["9.0.0", "9.1.0"])
    monkeypatch.setattr(asked.versions, "installed", lambda: "9.0.0")
    monkeypatch.setattr(asked, "findings_in", lambda v, spec, progress=None: {("chunking", "content")})
    mine = Cause("parser_streaming", "x", where={"vllm": False}, findings=[{"kind": "chunking", "field": "content"}])
    theirs = Cause("parser_streaming", "x", where={"vllm": True}, findings=[{"kind": "chunking", "field": "content"}])
    asked.attach([mine, theirs], RunSpec(text="x"))
    assert mine.versions["verdict"] == "the same with every vLLM here"
    assert theirs.versions["verdict"] == "not fixed in any version here"


@pytest.mark.parametrize("name", ["json", "vllm", "re", "os", "tokenizers"])
def test_a_plugin_named_as_a_module_is_one_line_and_replaces_nothing(run_cli, tmp_path, name):
    """vLLM imports a plugin under its file's name: json.py would replace the json module."""
    import sys

    (tmp_path / f"{name}.py").write_text(REASONING_PLUGIN)
    before = sys.modules.get(name)
    code, out, err = run_cli("replay", "--plugin", tmp_path / f"{name}.py", "--reasoning-parser", "plain_reason",
                             "--text", "::reason::hmm::/reason::Hi", "--json")
    assert code == 2 and out == "" and err.count("\n") == 1 and "rename the file" in err, err
    assert sys.modules.get(name) is before


def test_a_plugin_copy_of_the_same_name_still_loads(run_cli, tmp_path):
    """An exported test's copy of a plugin is another file of the same module name: vLLM's way."""
    for where in ("a", "b"):
        (tmp_path / where).mkdir()
        (tmp_path / where / "plain_reason_copy.py").write_text(REASONING_PLUGIN)
        code, out, err = run_cli("replay", "--plugin", tmp_path / where / "plain_reason_copy.py", "--reasoning-parser",
                                 "plain_reason", "--text", "::reason::hmm::/reason::Hi", "--json")
        assert code == 0, err


def test_a_non_daemon_thread_does_not_keep_the_cli_process_from_exiting(tmp_path):
    """The `workbench` entry point (main with no argv) exits past a stray thread, in one line."""
    import subprocess
    import sys

    code = ("import sys, threading, time\n"
            "threading.Thread(target=time.sleep, args=(3600,), name='plugin-sleeper').start()\n"
            "sys.argv = ['workbench', 'replay', '--help']\n"
            "from workbench.cli import main\n"
            "sys.exit(main())\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "usage: workbench replay" in done.stdout, done.stderr
    assert done.stderr.count("\n") == 1 and "not waiting for thread plugin-sleeper" in done.stderr, done.stderr


@pytest.mark.slow
def test_a_plugins_non_daemon_thread_does_not_keep_the_cli_from_exiting(tmp_path):
    """Python joins every non-daemon thread before it exits: the CLI exits without it, in one line."""
    import os
    import subprocess
    import sys
    import time

    (tmp_path / "threaded_reason.py").write_text(REASONING_PLUGIN + textwrap.dedent('''
        import threading, time
        threading.Thread(target=time.sleep, args=(3600,), name="plugin-sleeper").start()
        '''))
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "workbench", "replay", "--plugin", "threaded_reason.py",
                           "--reasoning-parser", "plain_reason", "--text", "::reason::hmm::/reason::Hi", "--json"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300, env=os.environ)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["nonstream"]["content"] == "Hi"
    assert "not waiting for thread plugin-sleeper" in done.stderr and time.monotonic() - t0 < 300
