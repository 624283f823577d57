"""The command encoder (core/writing/command.py) and every command the workbench prints for
pasting: each is pasted into bash with hostile names, with stand-ins for the programs, and
must run exactly the words shown, with no side effect."""

from __future__ import annotations

import os
import shlex
import textwrap

import pytest

from tests.support.paste import paste
from workbench.core.writing import command

HOSTILE = ["x;touch PWNED;#", "t$(touch PWNED)", "`touch PWNED`", "a b", "'", '"', "-", "a\nb", "\x1b[2J",
           "x' && touch PWNED && '", "$'x'", "\\", "é\u202eevil", "", "*", "~", "!!", "a\u2028b"]


@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_a_word_pastes_back_as_itself_with_no_side_effect(tmp_path, value):
    line = command.join(["vllm", "serve", value, "--x", value], env={"PARSER_TOKENIZER": value})
    assert "\n" not in line and "\x1b" not in line and "\u2028" not in line
    before = set(os.listdir(tmp_path))
    calls = paste(line, tmp_path)
    assert calls == [["vllm", "serve", value, "--x", value]]
    assert set(os.listdir(tmp_path)) == before  # no PWNED


def test_plain_words_stay_plain():
    assert command.join(["vllm", "serve", "MODEL", "--tool-call-parser", "hermes"]) == \
        "vllm serve MODEL --tool-call-parser hermes"
    assert shlex.split(command.join(["a b", "c"])) == ["a b", "c"]


def test_a_long_command_breaks_between_options_and_pastes_back_as_one_call(tmp_path):
    argv = ["workbench", "doctor", "a b.jsonl", "--tokenizer", "qwen3", "--tool-parser", "x;touch PWNED;#",
            "--reasoning-parser", "qwen3", "--tools", "a\nb", "--text-file", "workbench_bug.minimal.txt", "--json"]
    text = command.lines(argv, width=60)
    shown = text.splitlines()
    assert len(shown) > 2 and max(map(len, shown)) <= 60, shown
    assert shown[0].startswith("workbench doctor 'a b.jsonl' --tokenizer qwen3")
    assert all(line.startswith("  --") for line in shown[1:]), shown  # broken only before an option
    assert all(line.endswith(" \\") for line in shown[:-1])
    assert command.lines(argv[:5]) == command.join(argv[:5])  # short: one line
    before = set(os.listdir(tmp_path))
    assert paste(text, tmp_path) == [argv]
    assert set(os.listdir(tmp_path)) == before


def test_an_environment_name_is_never_data():
    with pytest.raises(ValueError):
        command.join(["x"], env={"A;touch PWNED": "1"})


# -- every printed command ------------------------------------------------------------------
def _pasted_line(text: str, after: str) -> str:
    line = next(ln for ln in text.splitlines() if after in ln)
    return line.split(after, 1)[1]


def test_export_config_pythons_serve_line_is_inert(run_cli, tmp_path):
    out = tmp_path / "x;touch PWNED;.py"
    (tmp_path / "c.toml").write_text(textwrap.dedent('''\
        extends = "teaching"
        name = "t_owl"
        '''))
    code, _, err = run_cli("export-config", "--python", tmp_path / "c.toml", "-o", out)
    assert code == 0, err
    line = _pasted_line(err, "serve it: ")
    before = set(os.listdir(tmp_path))
    calls = paste(line, tmp_path)
    assert calls[0][:3] == ["vllm", "serve", "MODEL"] and calls[0][calls[0].index("--tool-parser-plugin") + 1] == str(out)
    assert set(os.listdir(tmp_path)) == before


@pytest.mark.parametrize("name", ["t$(touch PWNED)", "x;touch PWNED;#"])
def test_doctor_reports_server_line_is_inert_for_a_hostile_config_name(run_cli, tmp_path, name):
    from tests.support.doctor import _installed

    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "c.toml").write_text(f'extends = "teaching"\nname = {name!r}\n'.replace("'", '"'))
    bug = tmp_path / "bug.md"
    code, _, err = run_cli("doctor", "--vllm", _installed(), "--text", "<tool_call>{\"name\": ", "--config",
                           tmp_path / "cfg" / "c.toml", "--report", bug)
    assert code in (0, 1) and "Traceback" not in err, err
    server = _pasted_line(bug.read_text(), "- server: ").strip().strip("`").strip()
    before = set(os.listdir(tmp_path))
    calls = paste(server, tmp_path)
    assert [c[0] for c in calls] == ["workbench", "vllm"]
    assert calls[1][calls[1].index("--tool-call-parser") + 1] == name
    assert set(os.listdir(tmp_path)) == before


def test_doctor_reports_server_line_is_inert_for_a_plugin_parser_name(tmp_path):
    """A plugin registers its parser under any name: the report's flags quote it."""
    from workbench.diagnosis.bugreport import _flags

    name = "x;touch PWNED;#"
    setup = {"parser": {"tool_parser": name, "reasoning_parser": "t$(touch PWNED)"},
             "chat_template": {"file": "a b;touch PWNED.jinja"}}
    line = _flags(setup, plugins=[str(tmp_path / "p;touch PWNED;.py")])
    before = set(os.listdir(tmp_path))
    [call] = paste(line, tmp_path)
    assert call == ["vllm", "serve", "MODEL", "--tool-parser-plugin", "p;touch PWNED;.py", "--enable-auto-tool-choice",
                    "--tool-call-parser", name, "--reasoning-parser-plugin", "p;touch PWNED;.py", "--reasoning-parser",
                    "t$(touch PWNED)", "--chat-template", "a b;touch PWNED.jinja"]
    assert set(os.listdir(tmp_path)) == before


def test_exports_run_line_is_inert(run_cli, tmp_path):
    from workbench.core.config.io import PARSERS_DIR

    folder = tmp_path / "a b;touch PWNED;$(touch PWNED2)"
    folder.mkdir()
    out = folder / "test_x.py"
    code, stdout, err = run_cli("export", PARSERS_DIR / "recordings" / "hermes" / "seed_weather.jsonl", "-o", out)
    assert code in (0, 1), err
    line = _pasted_line(stdout, "run it: ")
    before = set(os.listdir(tmp_path))
    [call] = paste(line, tmp_path)
    assert call[:3] == ["pytest", "-q", str(out)]
    assert set(os.listdir(tmp_path)) == before
