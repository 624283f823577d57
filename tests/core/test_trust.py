"""The trust model (README "Trust"): code runs only when the user names it on this run.

A config's callables resolve only by exact name: the table of callables vLLM's own
parser configs use (trust.VLLM_CALLABLES), this run's plugins, and --allow-callable
module:attr; a recording names its config and plugins but never loads them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.core.config.io import PARSERS_DIR
from workbench.errors import WorkbenchError

DATA = Path(__file__).resolve().parents[1] / "data"
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
    assert "'subprocess:call'" in err and "--allow-callable subprocess:call" in err and "line 4" in err
    assert not pwned.exists()


def test_allow_callable_trusts_one_exact_name(run_cli, tmp_path):
    ran = tmp_path / "ran"
    code, _, err = run_cli("replay", "--config", shell_config(tmp_path), "--allow-callable", "subprocess:call",
                           "--text", f"<tool_call>touch {ran};#</tool_call>", "--json")
    assert code == 0, err
    assert ran.exists()  # named on this run, so it runs: that is what the flag is for


def test_allow_callable_never_trusts_a_module_whole(run_cli, tmp_path):
    err = one_line_error(*run_cli("replay", "--config", shell_config(tmp_path), "--allow-callable", "subprocess",
                                  "--text", "x"))
    assert "'subprocess' is a module: name one callable as module:attr" in err
    # One exact name trusts that name, not its neighbours in the same module.
    err = one_line_error(*run_cli("replay", "--config", shell_config(tmp_path), "--allow-callable", "subprocess:run",
                                  "--text", "x"))
    assert "refused callable 'subprocess:call'" in err


@pytest.mark.parametrize("line, refused", [
    ('arg_converter = "vllm.envs:os.system"', "'vllm.envs:os.system'"),  # a hop out of vllm
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
    assert run_cli("replay", "--config", shell_config(tmp_path), "--allow-callable", "subprocess:call",
                   "--text", "hi", "--save", rec)[0] == 0
    with pytest.raises(WorkbenchError, match="never loads code"):
        recordings.inputs_from(Inputs(), str(rec))
    picked, _ = recordings.inputs_from(Inputs(config=str(PARSERS_DIR / "teaching.toml")), str(rec))
    assert picked.config == str(PARSERS_DIR / "teaching.toml")  # the user's pick, not the recording's


# -- callables by exact name (issue 16) ---------------------------------------------
def _refs(value) -> set[str]:
    """Every "module:attr" a config's data names (callables, partials, refs)."""
    if isinstance(value, str):
        return {value} if ":" in value else set()
    if isinstance(value, dict):
        return set().union(*(_refs(v) for k, v in value.items() if k in ("call", "ref", "args", "kwargs")
                             or isinstance(v, (dict, list))))
    if isinstance(value, list):
        return set().union(set(), *(_refs(v) for v in value))
    return set()


def _callable_fields() -> list[str]:
    import dataclasses

    from vllm.parser.engine.parser_engine_config import ParserEngineConfig

    return ["parser_class"] + [f.name for f in dataclasses.fields(ParserEngineConfig) if "Callable" in str(f.type)]


def test_the_table_covers_every_shipped_config():
    from workbench.core import trust
    from workbench.core.config import io as config_io

    named = set()
    for path in sorted(PARSERS_DIR.glob("*.toml")):
        loaded = config_io.load_file(path)
        assert loaded.ok, loaded.problems  # loads under the default policy: every name is in the table
        named |= set().union(*(_refs(loaded.data[k]) for k in _callable_fields() if k in loaded.data))
    assert named and named <= trust.VLLM_CALLABLES, named - trust.VLLM_CALLABLES


def test_the_table_covers_every_vllm_family(qwen3_tokenizer):
    """What vLLM's own parser configs use: every engine family's config, exported."""
    from workbench.core import trust
    from workbench.core.config import from_vllm as export

    named = set()
    for name, cls in export.families().items():
        config, _ = export.family_config(name, qwen3_tokenizer)
        data = export.config_data(config, cls)
        named |= set().union(*(_refs(data[k]) for k in _callable_fields() if k in data))
    assert len(named) >= 25 and named <= trust.VLLM_CALLABLES, named - trust.VLLM_CALLABLES


def _top_level_names(root: Path, module: str) -> set:
    import ast

    src = root.joinpath(*module.split(".")).with_suffix(".py")
    names = set()
    for node in ast.parse(src.read_text()).body if src.is_file() else ():
        if isinstance(node, ast.ImportFrom):  # a family reusing another's hook (0.34's deepseek_v32)
            names |= {a.asname or a.name for a in node.names}
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node]
        for t in targets:
            names |= {getattr(e, "id", None) for e in t.elts} if isinstance(t, ast.Tuple) else {
                getattr(t, "name", getattr(t, "id", None))}
    return names


def test_every_name_in_the_table_exists_in_a_vllm_we_run():
    """Each entry is defined at the top of its module, in the installed vLLM or a lane's tree."""
    import vllm

    from workbench.core import trust
    from workbench.lanes import versions
    from workbench.lanes.tree import tree_path

    installed = Path(vllm.__file__).parent.parent
    elsewhere = [n for n in sorted(trust.VLLM_CALLABLES)
                 if n.split(":")[1] not in _top_level_names(installed, n.split(":")[0])]
    lanes = [tree_path(v) for v in versions.listed() if not versions.is_installed(v)]
    if not all((lane / "vllm").is_dir() for lane in lanes):
        pytest.skip(f"a lane tree is not extracted ({lanes}); `python -m workbench.lanes.tree fetch`")
    missing = [n for n in elsewhere
               if not any(n.split(":")[1] in _top_level_names(lane, n.split(":")[0]) for lane in lanes)]
    assert not missing, missing


def _exec_wrappers() -> list[str]:
    """Top-level functions anywhere in the installed vLLM that run exec/eval, unpickle,
    start a subprocess or import by name: the audit's kind of callable."""
    import ast
    import re

    import vllm

    root = Path(vllm.__file__).parent
    hint = re.compile(rb"\b(exec|eval|pickle|subprocess|import_module|os\.system|os\.popen|marshal)\b")
    risky = {"pickle": {"loads", "load"}, "cloudpickle": {"loads", "load"}, "marshal": {"loads"},
             "subprocess": {"run", "Popen", "call", "check_output", "check_call"},
             "os": {"system", "popen"}, "importlib": {"import_module"}}
    found = []
    for f in sorted(root.rglob("*.py")):
        data = f.read_bytes()
        if not hint.search(data):
            continue
        module = ".".join(f.relative_to(root.parent).with_suffix("").parts).removesuffix(".__init__")
        for node in ast.parse(data).body:
            if not isinstance(node, ast.FunctionDef):
                continue
            for call in (c for c in ast.walk(node) if isinstance(c, ast.Call)):
                fn = call.func
                if (isinstance(fn, ast.Name) and fn.id in ("exec", "eval")) or (
                        isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name)
                        and fn.attr in risky.get(fn.value.id, ())):
                    found.append(f"{module}:{node.name}")
                    break
    return found


def test_exec_wrappers_anywhere_in_vllm_are_refused(tmp_path):
    import sys

    from workbench.core.config import io as config_io

    wrappers = _exec_wrappers()
    assert "vllm.compilation.codegen:compile_execution_fn" in wrappers and len(wrappers) >= 20, wrappers
    for name in wrappers:
        module = name.split(":")[0]
        imported = module in sys.modules
        for line in (f'arg_converter = "{name}"', f'parser_class = "{name}"',
                     f'arg_converter = {{ call = "{name}", args = ["x"] }}'):
            loaded = config_io.load_file(config(tmp_path, "w", line))
            assert [p.path for p in loaded.problems] == [line.split()[0]], (name, loaded.problems)
            assert f"refused callable {name!r}" in loaded.problems[0].message
        assert imported or module not in sys.modules, f"{module} was imported before the refusal"


AUDIT = ('arg_converter = { call = "vllm.compilation.codegen:compile_execution_fn", args = '
         '["import os; os.system(\'touch {pwned}\')\\ndef execution_fn(*a): return None", '
         '{ ref = "vllm.envs:environment_variables" }] }')


@pytest.mark.parametrize("command", ["replay", "diff"])
def test_the_audits_exec_config_is_refused(run_cli, tmp_path, command):
    pwned = tmp_path / "pwned.txt"
    cfg = config(tmp_path, "audit", AUDIT.replace("{pwned}", str(pwned)))
    argv = ["--config", cfg] if command == "replay" else ["--a", "hermes", "--b", cfg]
    err = one_line_error(*run_cli(command, *argv, "--text", CALL))
    assert "refused callable 'vllm.compilation.codegen:compile_execution_fn'" in err
    assert not pwned.exists()


def test_the_widget_refuses_the_audits_config(tmp_path):
    from workbench import Workbench

    pwned = tmp_path / "pwned.txt"
    wb = Workbench(CALL, config=str(PARSERS_DIR / "teaching.toml"))
    text = AUDIT.replace("{pwned}", str(pwned)) + "\n" + (PARSERS_DIR / "teaching.toml").read_text().replace(
        'arg_converter = "vllm.parser.granite:_granite_arg_converter"', "")
    problems = wb.reload_config(text)
    assert any("refused callable 'vllm.compilation.codegen:compile_execution_fn'" in p.message for p in problems)
    assert not pwned.exists() and "refused callable" in wb.editor.problems.value


def test_the_notebook_trusts_a_converter_beside_the_config_in_its_own_spelling(tmp_path):
    """A converter module beside the config, no PYTHONPATH: the notebook's refusal names
    ``allow_callable=[...]`` (never a CLI flag), and with it the module is loaded from there."""
    import sys

    from workbench.core.session import Session
    from workbench.ui.inputs import given

    (tmp_path / "nb_conv.py").write_text("def arguments(raw, partial):\n    return raw\n")
    cfg = config(tmp_path, "nb", 'arg_converter = "nb_conv:arguments"\ntool_args_json = false')
    from workbench import Workbench

    with pytest.raises(WorkbenchError) as refused:
        Workbench(CALL, config=str(cfg)).run()
    assert "allow_callable=['nb_conv:arguments']" in str(refused.value) and "--allow-callable" not in str(refused.value)
    assert "nb_conv" not in sys.modules
    try:
        wb = Workbench(CALL, config=str(cfg), allow_callable=["nb_conv:arguments"])
        wb.run()
        assert sys.modules["nb_conv"].__file__ == str(tmp_path / "nb_conv.py")
        assert [c.name for c in wb.state.stream.final.stream.tool_calls] == ["get_weather"]
        from workbench.core.config.parser import config_of

        session = Session(given(CALL, {"config": str(cfg), "allow_callable": ["nb_conv:arguments"]}).setup())
        assert config_of(session.parser_cls).arg_converter is sys.modules["nb_conv"].arguments
    finally:
        sys.modules.pop("nb_conv", None)
    for bad, says in ((["nb_conv"], "allow_callable='nb_conv' is a module"), ([3], "entry 0 must be a string")):
        with pytest.raises(WorkbenchError, match=says):
            given(CALL, {"config": str(cfg), "allow_callable": bad})


def test_an_exported_test_refuses_an_edited_copy_of_its_config(run_cli, tmp_path):
    """The exported test builds its config copy through the policy the export ran with: the
    issue's edit (a shell converter) is refused as `replay` refuses it, and nothing runs."""
    from workbench.export import pytest_file as export

    pwned = tmp_path / "pwned"
    text = f'<tool_call>{{"name": "get_weather", "arguments": {{"city": "x; touch {pwned};#"}}}}</tool_call>'
    cfg = config(tmp_path, "mine", "")
    (tmp_path / "out").mkdir()
    code, out, err = run_cli("export", "--config", cfg, "--text", text, "-o", tmp_path / "out" / "test_mine.py")
    assert code == 0, err
    copy = tmp_path / "out" / "mine.toml"
    assert copy.is_file()
    assert export.self_check(tmp_path / "out" / "test_mine.py") == []  # the copy as exported runs
    import re

    edited, n = re.subn(r"(?m)^arg_converter = .*$", 'arg_converter = { call = "subprocess:run", kwargs = { shell = true } }',
                        copy.read_text())
    assert n == 1
    copy.write_text(edited)
    err = one_line_error(*run_cli("replay", "--config", copy, "--text", text))
    assert "refused callable 'subprocess:run'" in err
    with pytest.raises(PermissionError, match="refused callable 'subprocess:run'"):
        export.self_check(tmp_path / "out" / "test_mine.py")
    assert not pwned.exists()
