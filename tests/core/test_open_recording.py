"""One way to open a recording (core/open_recording.py) for the CLI and the widget: the
file is parsed once, its tokenizer is checked against the header, and the notes the CLI
prints are the ones the widget shows."""

from __future__ import annotations

import html
import json
import re

import pytest

from tests.support.seed import SEED_TEXT, WEATHER_TOOLS
from workbench.errors import WorkbenchError


@pytest.fixture
def recorded(tmp_path, run_cli, tools_file):
    """A finished hermes+qwen3 recording of the seed text."""
    path = tmp_path / "seed.jsonl"
    code, _, err = run_cli("replay", "--text", SEED_TEXT, "--tools", tools_file, "--tool-parser", "hermes",
                           "--reasoning-parser", "qwen3", "--save", path)
    assert code == 0, err
    return path


def _rewrite(path, header=None, cut: bool = False):
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    if header is not None:
        obj = json.loads(lines[0])
        header(obj)
        lines[0] = json.dumps(obj) + "\n"
    if cut:  # a crash mid-write: the last delta half written
        lines[-1] = lines[-1][: len(lines[-1]) // 2]
    path.write_text("".join(lines), encoding="utf-8")
    return path


def _other_sha(obj):
    obj["tokenizer"]["sha256"] = "0" * 64


@pytest.fixture
def loads(monkeypatch):
    """How many times a recording file is parsed."""
    from workbench.core import recording

    calls = []
    real = recording.load

    def counting(path):
        calls.append(str(path))
        return real(path)

    monkeypatch.setattr(recording, "load", counting)
    return calls


def test_open_recording_checks_the_tokenizer_and_keeps_the_notes(recorded, loads):
    from workbench.core.open_recording import Given, open_recording

    opened = open_recording(recorded)
    assert (opened.tokenizer, opened.parser.tool_parser, opened.parser.reasoning_parser) == (
        "qwen3", "hermes", "qwen3")
    assert opened.notes == [] and opened.recording.text == SEED_TEXT and loads == [str(recorded)]
    _rewrite(recorded, header=_other_sha, cut=True)
    with pytest.raises(WorkbenchError, match="tokenizer qwen3 is not the recording's: its sha256"):
        open_recording(recorded)
    forced = open_recording(recorded, Given(force=True))
    assert [n.split(":")[0] for n in forced.notes] == ["cut at line 27, the stream did not finish",
                                                      "tokenizer qwen3 is not the recording's"]


def test_the_widget_shows_the_notes_the_cli_prints_and_parses_once(recorded, run_cli, loads):
    from workbench import Workbench

    _rewrite(recorded, header=_other_sha, cut=True)
    code, _, err = run_cli("replay", recorded, "--force")
    assert code == 0, err
    printed = re.findall(r"workbench replay: note: (.*)", err)
    assert len(printed) == 2 and printed[0].startswith("cut at line")
    loads.clear()
    wb = Workbench(recording=str(recorded), tools=WEATHER_TOOLS)
    assert wb.banner.kind == "warning"
    shown = html.unescape(re.sub(r"<[^>]+>", "", wb.banner.value))
    assert all(line in shown for line in printed), (printed, shown)
    wb.run()
    assert len(wb.rows) == 25 and loads == [str(recorded)]  # the 25 whole deltas; loaded, then replayed: one parse


def test_the_widget_refuses_an_id_outside_the_vocabulary(recorded):
    from workbench import Workbench

    lines = recorded.read_text(encoding="utf-8").splitlines()
    delta = json.loads(lines[3])
    delta["token_ids"] = [10 ** 7]
    lines[3] = json.dumps(delta)
    recorded.write_text("\n".join(lines) + "\n", encoding="utf-8")
    wb = Workbench(recording=str(recorded))
    assert wb.banner.kind == "error"
    assert "delta 3: token id 10000000 is outside tokenizer 'qwen3'" in html.unescape(wb.banner.value)
