"""The trust model (README "Trust"): code runs only when the user names it on this run.

A config's callables resolve only inside vllm and this run's plugins unless
--allow-callable says otherwise; a recording names its config and plugins but
never loads them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.core.config.io import PARSERS_DIR
from workbench.errors import WorkbenchError

DATA = Path(__file__).parent / "data"
CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'


def shell_config(tmp_path) -> Path:
    """The issue's config: the model's tool call text becomes a shell command."""
    p = tmp_path / "shell.toml"
    p.write_text(f'extends = "{PARSERS_DIR / "teaching.toml"}"\nname = "shell"\ntool_args_json = false\n'
                 'arg_converter = { call = "subprocess:call", kwargs = { shell = true } }\n')
    return p


def config(tmp_path, name: str, line: str) -> Path:
    p = tmp_path / f"{name}.toml"
    p.write_text(f'extends = "{PARSERS_DIR / "teaching.toml"}"\nname = "{name}"\n{line}\n')
    return p


def one_line_error(code, out, err):
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, (code, out, err)
    return err


def test_the_issues_shell_config_is_refused(run_cli, tmp_path):
    pwned = tmp_path / "pwned"
    err = one_line_error(*run_cli("replay", "--config", shell_config(tmp_path),
                                  "--text", f"<tool_call>touch {pwned};#</tool_call>"))
    assert "'subprocess:call'" in err and "--allow-callable subprocess" in err and "line 4" in err
    assert not pwned.exists()


def test_allow_callable_trusts_one_module(run_cli, tmp_path):
    ran = tmp_path / "ran"
    code, _, err = run_cli("replay", "--config", shell_config(tmp_path), "--allow-callable", "subprocess",
                           "--text", f"<tool_call>touch {ran};#</tool_call>", "--json")
    assert code == 0, err
    assert ran.exists()  # named on this run, so it runs: that is what the flag is for


@pytest.mark.parametrize("line, refused", [
    ('arg_converter = "vllm.envs:os.system"', "'vllm.envs:os.system': os is not vllm"),  # a hop out of vllm
    ('arg_converter = { call = "vllm.parser.granite:_granite_arg_converter", '
     'kwargs = { x = { ref = "subprocess:run" } } }', "'subprocess:run'"),
    ('parser_class = "builtins:eval"', "'builtins:eval'"),
    ('arg_converter = "this:s"', "'this:s'"),  # refused before the import: `this` prints on import
])
def test_callables_outside_vllm_are_refused(run_cli, tmp_path, line, refused):
    err = one_line_error(*run_cli("replay", "--config", config(tmp_path, "c", line), "--text", "x"))
    assert refused in err and "--allow-callable" in err
    assert "Beautiful is better" not in err


def test_a_plugin_named_on_this_run_is_trusted(run_cli, tmp_path, tools_file):
    cfg = config(tmp_path, "plug", 'arg_converter = "converter_plugin:arguments_of"')
    err = one_line_error(*run_cli("replay", "--config", cfg, "--tools", tools_file, "--text", CALL))
    assert "'converter_plugin:arguments_of'" in err
    code, out, err = run_cli("replay", "--config", cfg, "--plugin", DATA / "converter_plugin.py",
                             "--tools", tools_file, "--text", CALL, "--json")
    assert code == 0, err
    assert json.loads(out)["nonstream"]["tool_calls"][0]["arguments"] == '{"city": "Paris"}'


def test_a_recording_never_loads_its_config(run_cli, tmp_path, tools_file):
    cfg = tmp_path / "mine.toml"
    cfg.write_text((PARSERS_DIR / "teaching.toml").read_text())
    rec = tmp_path / "rec.jsonl"
    code, made, err = run_cli("replay", "--config", cfg, "--tools", tools_file, "--text", CALL,
                              "--save", rec, "--json")
    assert code == 0, err
    header = json.loads(rec.read_text().splitlines()[0])
    assert header["parser"]["config"] == str(cfg) and len(header["parser"]["config_sha256"]) == 64

    err = one_line_error(*run_cli("replay", rec))
    assert "made with config" in err and "--config mine.toml" in err

    code, out, err = run_cli("replay", rec, "--config", cfg, "--json")
    assert code == 0 and err == ""
    calls = [[(c["name"], c["arguments"]) for c in json.loads(o)["nonstream"]["tool_calls"]] for o in (out, made)]
    assert calls[0] == calls[1] == [("get_weather", '{"city": "Paris"}')]
    cfg.write_text(cfg.read_text().replace('name = "teaching"', 'name = "edited"'))
    code, _, err = run_cli("replay", rec, "--config", cfg, "--json")
    assert code == 0 and "differs from the one the recording was made with" in err


def test_a_recording_never_loads_its_plugin(run_cli, tmp_path, tools_file):
    plugin, rec = DATA / "raising_tool_parser.py", tmp_path / "rec.jsonl"
    code, _, err = run_cli("replay", "--plugin", plugin, "--tool-parser", "test_raising", "--tools", tools_file,
                           "--text", "one two", "--save", rec, "--json")
    assert code == 0, err
    assert json.loads(rec.read_text().splitlines()[0])["parser"]["plugins"][0]["file"] == plugin.name
    err = one_line_error(*run_cli("replay", rec))
    assert "--plugin raising_tool_parser.py" in err
    code, _, err = run_cli("replay", rec, "--plugin", plugin, "--json")
    assert code == 0, err


def test_the_widget_keeps_a_recordings_config_unloaded(tmp_path, run_cli, tools_file):
    from workbench.ui import recordings
    from workbench.ui.inputs import Inputs

    rec = tmp_path / "rec.jsonl"
    assert run_cli("replay", "--config", shell_config(tmp_path), "--allow-callable", "subprocess",
                   "--text", "hi", "--save", rec)[0] == 0
    with pytest.raises(WorkbenchError, match="never loads code"):
        recordings.inputs_from(Inputs(), str(rec))
    picked = recordings.inputs_from(Inputs(config=str(PARSERS_DIR / "teaching.toml")), str(rec))
    assert picked.config == str(PARSERS_DIR / "teaching.toml")  # the user's pick, not the recording's
