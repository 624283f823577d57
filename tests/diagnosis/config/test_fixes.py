"""Findings that suggest the author's fix (issue 40, item 3): the raw-JSON-arguments trap, a
converter that is not prefix-stable and one whose answer is not JSON are named under the
finding, with the converter's key, function and line, and each fix as a TOML line; applying
the fix makes `check` consistent."""

from __future__ import annotations

import json
import sys

import pytest

from tests.support.invoke import CONFIG, TEXT, TOOLS


@pytest.fixture
def folder(tmp_path, monkeypatch):
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    for name in ("fx_conv", "raw_args"):
        sys.modules.pop(name, None)


def _check(run_cli, config, *extra):
    code, out, err = run_cli("check", "--config", config, "--tools", "tools.json", "--text", TEXT, "--no-cost",
                             "--fuzz", "5", "--shrink-budget", "0", *extra)
    assert code in (0, 1), err
    return code, [line.strip().removeprefix("config: ") for line in out.splitlines() if line.strip().startswith("config: ")]


def test_the_raw_json_trap_names_the_converter_fix(run_cli, folder):
    (folder / "raw.toml").write_text(CONFIG.replace('arg_converter = "invoke_conv:arguments"\n', "")
                                     .replace('name = "invoke"', 'name = "raw"'))
    code, lines = _check(run_cli, "raw.toml")
    said = [line for line in lines if "body is raw JSON" in line]
    assert code == 1 and said, lines
    fix = said[0].split("; fix: ")[1]
    assert fix.startswith('arg_converter = "raw_args:arguments"') and "--allow-callable raw_args:arguments" in fix
    # the fix as it says: the line in the config, the module beside it, the name trusted
    (folder / "raw_args.py").write_text("def arguments(raw, partial):\n    return raw\n")
    (folder / "raw.toml").write_text(fix.split("  #")[0] + "\n" + (folder / "raw.toml").read_text())
    code, lines = _check(run_cli, "raw.toml", "--allow-callable", "raw_args:arguments")
    assert code == 0 and not lines, lines


@pytest.mark.parametrize("body, says, fixed_by", [
    ("return raw + ' ' if partial else raw", "is not prefix-stable", "stream_arg_deltas = false"),
    ("return raw if partial else raw.strip()[:-1]", "(partial=False): not JSON", None),
])
def test_a_converter_that_differs_is_named_with_its_line(run_cli, folder, body, says, fixed_by):
    (folder / "fx_conv.py").write_text(f"import json\n\n\ndef arguments(raw, partial):\n    {body}\n")
    (folder / "fx.toml").write_text(CONFIG.replace("invoke_conv:", "fx_conv:"))
    code, lines = _check(run_cli, "fx.toml", "--allow-callable", "fx_conv:arguments")
    said = [line for line in lines if says in line]
    assert code == 1 and said, lines
    assert f"arg_converter = fx_conv:arguments ({folder / 'fx_conv.py'}:4)" in said[0] and "(fx.toml:3)" in said[0]
    if fixed_by:
        assert said[0].endswith("; fix: " + fixed_by + "  # the converter's answer is sent once, when the call ends")
        (folder / "fx.toml").write_text(fixed_by + "\n" + (folder / "fx.toml").read_text())
        code, lines = _check(run_cli, "fx.toml", "--allow-callable", "fx_conv:arguments")
        assert code == 0 and not lines, lines


def test_a_marker_inside_the_arguments_names_its_terminal_to_respell(run_cli, folder):
    (folder / "fx_conv.py").write_text("def arguments(raw, partial):\n    return raw\n")
    (folder / "fx.toml").write_text(CONFIG.replace("invoke_conv:", "fx_conv:"))
    text = TEXT.replace('"Paris"', '"a</invoke>b"')
    code, out, err = run_cli("check", "--config", "fx.toml", "--tools", "tools.json", "--text", text, "--no-cost",
                             "--fuzz", "0", "--shrink-budget", "0", "--allow-callable", "fx_conv:arguments")
    said = [line for line in out.splitlines() if "fired inside a call's JSON arguments" in line]
    assert code == 1 and said, out
    assert "; fix: CALL_END = " in said[0] and "'</invoke>' fires wherever it is written" in said[0], said
