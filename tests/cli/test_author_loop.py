"""The parser author's loop (issue 30's acceptance): a new format written both ways in a
temporary folder, a config and a ToolParser plugin, one bug planted in each. `check` flags
it; `doctor` names the author's file and line (plugin) or the transition and config line
(config); `export` and `doctor --report` write tests that fail under plain pytest while the
bug is there and pass once the copy beside them is fixed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from tests.support.invented_formats import OWL as CONFIG, OWL_TEXT as TEXT

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]

CONFIG_BUG = ('CALL_END = "<</call>>"', 'CALL_END = "<</call"')  # (right, planted): a typo in a terminal

PLUGIN = textwrap.dedent('''\
    """owl calls, <<call>>{"name": ..., "arguments": {...}}<</call>>, as a legacy ToolParser."""
    import json

    from vllm.entrypoints.generate.base.protocol import (
        DeltaFunctionCall, DeltaMessage, DeltaToolCall, ExtractedToolCallInformation, FunctionCall, ToolCall)
    from vllm.renderers.chat_utils import make_tool_call_id
    from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager

    START, END = "<<call>>", "<</call>>"


    def split(text):
        """(content before the first call, the complete calls)."""
        content, _, rest = text.partition(START)
        calls = []
        for body in rest.split(START) if rest else []:
            if END in body:
                call = json.loads(body.split(END)[0])
                calls.append((call["name"], json.dumps(call["arguments"])))
        return content, calls


    def held_back(text):
        """How many characters at the end of text could still become START."""
        return next((n for n in range(len(START) - 1, 0, -1) if text.endswith(START[:n])), 0)


    @ToolParserManager.register_module("owl")
    class OwlToolParser(ToolParser):
        def __init__(self, tokenizer, tools=None):
            super().__init__(tokenizer, tools)
            self.sent = 0

        def extract_tool_calls(self, model_output, request):
            content, calls = split(model_output)
            tool_calls = [ToolCall(function=FunctionCall(name=n, arguments=a)) for n, a in calls]
            return ExtractedToolCallInformation(tools_called=bool(calls), tool_calls=tool_calls,
                                                content=content or None)

        def extract_tool_calls_streaming(self, previous_text, current_text, delta_text, previous_token_ids,
                                         current_token_ids, delta_token_ids, request):
            content, calls = split(current_text)
            if START not in current_text:
                content = content[:len(content) - held_back(content)]
            new, self.sent = content[self.sent:], max(self.sent, len(content))
            out = []
            for i in range(len(self.prev_tool_call_arr), len(calls)):
                name, args = calls[i]
                self.prev_tool_call_arr.append({"name": name, "arguments": args})
                self.streamed_args_for_tool.append(args)
                out.append(DeltaToolCall(index=i, id=make_tool_call_id(), type="function",
                                         function=DeltaFunctionCall(name=name, arguments=args)))
            if not new and not out:
                return None
            return DeltaMessage(content=new or None, tool_calls=out)
    ''')
# (right, planted): the hold-back of a marker's first characters forgotten
PLUGIN_BUG = ("content = content[:len(content) - held_back(content)]", "content = content")
# the `return DeltaMessage(...)` that hands vLLM the leaked marker text
PLUGIN_BUG_LINE = 1 + PLUGIN.splitlines().index("        return DeltaMessage(content=new or None, tool_calls=out)")


@pytest.fixture
def author(tmp_path):
    """The author's folder: the planted-bug config and plugin, tools, text."""
    (tmp_path / "owl.toml").write_text(CONFIG.replace(*CONFIG_BUG))
    (tmp_path / "owl_parser.py").write_text(PLUGIN.replace(*PLUGIN_BUG))
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    (tmp_path / "out.txt").write_text(TEXT)
    assert PLUGIN.count(PLUGIN_BUG[0]) == 1 and CONFIG.count(CONFIG_BUG[0]) == 1
    return tmp_path


CONFIG_ARGS = ("--config", "owl.toml", "--tools", "tools.json", "--text-file", "out.txt")
PLUGIN_ARGS = ("--plugin", "./owl_parser.py", "--tool-parser", "owl", "--tools", "tools.json",
               "--text-file", "out.txt")


def plain_pytest(folder):
    """pytest on the exported files alone: no workbench conftest, a fresh process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rf", "--tb=no", "-p", "no:cacheprovider", str(folder)],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout


def test_the_planted_bugs_are_found_located_and_pinned(run_cli, author, monkeypatch):
    monkeypatch.chdir(author)
    here = ("--vllm", _installed())
    # check flags each planted bug
    code, out, _ = run_cli("check", *CONFIG_ARGS, "--no-cost", "--fuzz", "20", "--json")
    assert code == 1 and any(f["severity"] == "error" for f in json.loads(out)["findings"]), out
    code, out, _ = run_cli("check", *PLUGIN_ARGS, "--no-cost", "--fuzz", "20", "--json")
    assert code == 1 and any(f["severity"] == "error" for f in json.loads(out)["findings"]), out

    # doctor names the plugin's file, class, method and the line that returned the leak
    code, out, _ = run_cli("doctor", *PLUGIN_ARGS, *here, "--json")
    where = json.loads(out)["causes"][0]["where"]
    assert code == 1 and where["file"] == str(author / "owl_parser.py") and where["class"] == "OwlToolParser"
    assert where["method"] == "extract_tool_calls_streaming" and where["returned_at"] == PLUGIN_BUG_LINE

    # doctor names the config's transition and terminal at the failing step, with their lines
    code, out, _ = run_cli("doctor", *CONFIG_ARGS, *here, "--json")
    planted = CONFIG.replace(*CONFIG_BUG).splitlines()
    where = next(c["where"] for c in json.loads(out)["causes"] if c["class"].startswith("parser_"))
    assert code == 1 and where["file"] == "owl.toml" and where["transition"]["on"] == "CALL_END"
    assert planted[where["transition"]["line"] - 1].strip().startswith('{ from = "TOOL_ARGS", on = "CALL_END"')
    tail = next(n for n in where["named"] if n["kind"] == "marker_continues")
    assert planted[tail["line"] - 1] == CONFIG_BUG[1] and "'<</call>>' the whole marker" in tail["detail"]

    # export and doctor --report write tests beside copies of the author's code
    for args, folder in ((PLUGIN_ARGS, "plugin"), (CONFIG_ARGS, "config")):
        (author / folder).mkdir()
        code, out, err = run_cli("export", *args, "-o", f"{folder}/test_owl_{folder}.py")
        assert code == 0 and "it FAILS now" in out, (out, err)
        (author / folder / "report").mkdir()
        code, _, err = run_cli("doctor", *args, *here, "--report", f"{folder}/report/{folder}.md")
        assert code == 1 and "wrote" in err, err
    assert sorted(p.name for p in (author / "plugin").iterdir()) == ["owl_parser.py", "report", "test_owl_plugin.py"]
    assert sorted(p.name for p in (author / "config" / "report").iterdir()) == [
        "config.md", "config.minimal.txt", "owl.toml", "test_config.py"]

    # under plain pytest they fail while the bug is there ...
    code, out = plain_pytest(author)
    assert code == 1 and "failed" in out, out[-3000:]
    # the whole output: the summary lists config/ first, and long paths push it out of any tail
    failed = {line.removeprefix("FAILED ").split("::")[0].split("/")[-2] for line in out.splitlines()
              if line.startswith("FAILED ")}
    assert failed == {"plugin", "config", "report"}, (failed, out[-3000:])
    # ... and pass once the copies beside them are fixed
    for copy in author.glob("*/**/owl_parser.py"):
        copy.write_text(copy.read_text().replace(PLUGIN_BUG[1], PLUGIN_BUG[0]))
    for copy in author.glob("*/**/owl.toml"):
        copy.write_text(copy.read_text().replace(CONFIG_BUG[1], CONFIG_BUG[0]))
    code, out = plain_pytest(author)
    assert code == 0 and " passed" in out and "failed" not in out, out[-3000:]


def _installed() -> str:
    from workbench.lanes.versions import installed

    return installed()
