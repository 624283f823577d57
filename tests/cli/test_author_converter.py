"""The author's second round (issue 40's acceptance, its in-process part): a new format as a
TOML config whose converter module sits beside it, run from another folder with relative
paths only. The module is found without PYTHONPATH; `replay`, `check` and `doctor` run;
`export` writes a test (with the module copied beside it) that fails under plain pytest while a
converter bug is planted and passes once it is fixed; `export-config --python` writes a plugin
(the module beside it) that a plain vLLM process loads and parses with."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from tests.support.doctor import _installed
from tests.support.invoke import CONFIG, CONVERTER, CONVERTER_BUG, TEXT, TOOLS, plain_pytest_from

ALLOW = ("--allow-callable", "invoke_conv:arguments")
ARGS = ("--config", "author/invoke.toml", "--tools", "author/tools.json", "--text-file", "author/out.txt", *ALLOW)


@pytest.fixture
def trial(tmp_path, monkeypatch):
    """cwd: a folder holding the author's folder (config, converter, tools, text) and nothing else."""
    author = tmp_path / "author"
    author.mkdir()
    (author / "invoke.toml").write_text(CONFIG)
    (author / "invoke_conv.py").write_text(CONVERTER.replace(*CONVERTER_BUG))
    (author / "tools.json").write_text(json.dumps(TOOLS))
    (author / "out.txt").write_text(TEXT)
    assert CONVERTER.count(CONVERTER_BUG[0]) == 1
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "invoke_conv", raising=False)
    yield tmp_path
    sys.modules.pop("invoke_conv", None)


def _fix(folder):
    for copy in folder.rglob("invoke_conv.py"):
        copy.write_text(copy.read_text().replace(CONVERTER_BUG[1], CONVERTER_BUG[0]))


def test_a_converter_beside_the_config_travels(run_cli, trial):
    code, out, err = run_cli("replay", *ARGS, "--json")
    assert code == 0, err
    streamed = json.loads(out)["stream"]["tool_calls"]
    assert [c["arguments"] for c in streamed] == ['{"city": "Paris"'], out  # the planted bug, streamed
    assert sys.modules["invoke_conv"].__file__ == str(trial / "author" / "invoke_conv.py")

    code, out, _ = run_cli("check", *ARGS, "--no-cost", "--fuzz", "10", "--json")
    assert code == 1 and any(f["severity"] == "error" for f in json.loads(out)["findings"]), out
    # doctor --report: the report's test beside copies of the config and the converter module
    (trial / "exported" / "report").mkdir(parents=True)
    code, out, err = run_cli("doctor", *ARGS, "--vllm", _installed(), "--json", "--report", "exported/report/bug.md")
    assert code == 1 and json.loads(out)["causes"], (out, err)
    assert {"invoke.toml", "invoke_conv.py", "bug.md"} <= {p.name for p in (trial / "exported" / "report").iterdir()}

    # export: the test, the config and the converter module side by side
    code, out, err = run_cli("export", *ARGS, "-o", "exported/test_invoke.py")
    assert code == 0 and "it FAILS now" in out, (out, err)
    assert sorted(p.name for p in (trial / "exported").iterdir()) == ["invoke.toml", "invoke_conv.py", "report",
                                                                       "test_invoke.py"]
    # export-config --python: the plugin imports the module from beside itself
    (trial / "plugin").mkdir()
    code, out, err = run_cli("export-config", "--python", "author/invoke.toml", "-o", "plugin/invoke_parser.py", *ALLOW)
    assert code == 0 and out.split() == ["plugin/invoke_parser.py", "plugin/invoke_conv.py"], (out, err)

    # under plain pytest, from another folder: fails while the bug is there, passes once fixed
    elsewhere = trial / "elsewhere"
    elsewhere.mkdir()
    code, out = plain_pytest_from(elsewhere, trial / "exported")
    assert code == 1 and "failed" in out, out[-3000:]
    failed = {line.split("::")[0].split("/")[-1] for line in out.splitlines() if line.startswith("FAILED ")}
    assert len(failed) == 2 and "test_invoke.py" in failed, out[-3000:]  # the export's and the report's
    _fix(trial / "exported")
    code, out = plain_pytest_from(elsewhere, trial / "exported")
    assert code == 0 and " passed" in out and "failed" not in out, out[-3000:]

    _fix(trial / "plugin")
    answer = _plain_vllm(elsewhere, trial / "plugin" / "invoke_parser.py")
    assert answer == {"reasoning": "Weather needed.", "content": "Checking.",
                      "calls": [["get_weather", '{"city": "Paris"}']]}, answer


PLAIN_VLLM = textwrap.dedent('''\
    import json, sys
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.parser.parser_manager import ParserManager
    from vllm.tokenizers import get_tokenizer
    from vllm.tool_parsers import ToolParserManager
    from vllm.reasoning import ReasoningParserManager

    plugin, folder, text, tools = sys.argv[1:5]
    ToolParserManager.import_tool_parser(plugin)
    assert "workbench" not in sys.modules and "invoke" in ReasoningParserManager.reasoning_parsers
    tok = get_tokenizer(folder)
    cls = ParserManager.get_parser(tool_parser_name="invoke", reasoning_parser_name="invoke",
                                   enable_auto_tools=True, tokenizer=tok)
    request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}],
                                    tools=json.loads(tools))
    reasoning, content, calls = cls(tok, request.tools).parse(text, request, enable_auto_tools=True)
    print(json.dumps({"reasoning": reasoning, "content": content,
                      "calls": [[c.name, c.arguments] for c in calls or []]}))
    ''')


def _plain_vllm(cwd, plugin):
    """The plugin in a python process that has vLLM and nothing of the workbench."""
    from workbench.core.tokenizers import ensure_tokenizer

    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", PLAIN_VLLM, str(plugin), str(ensure_tokenizer("qwen3")), TEXT,
                           json.dumps(TOOLS)], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
