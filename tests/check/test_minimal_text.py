"""Shrinking keeps the bug (issue 40, item 5): `check`'s minimal text shows the same finding
(kind, field and mode) as the whole text. The case: a config's raw-JSON trap, where the
stream's arguments are not JSON and the non-streaming call is fine; a shrink that asks only
for "tool_calls still differ" ends on a text whose non-streaming call is broken too (an
unknown tool), another bug."""

from __future__ import annotations

import json

from tests.support.invoke import CONFIG, TEXT, TOOLS
from workbench.check import suite
from workbench.core.messages import Final


def _mode(run_cli, text):
    code, out, err = run_cli("replay", "--config", "raw.toml", "--tools", "tools.json", "--text", text, "--json")
    assert code == 0, err
    run = json.loads(out)
    return suite.mode(Final.of(run["stream"]), Final.of(run["nonstream"]), "tool_calls", {"get_weather"})


def _minimal(run_cli):
    code, out, err = run_cli("check", "--config", "raw.toml", "--tools", "tools.json", "--text", TEXT, "--no-cost",
                             "--fuzz", "0", "--json")
    assert code == 1, err
    found = next(f for f in json.loads(out)["findings"] if "minimal_text" in f)
    assert (found["kind"], found["field"]) == ("stream_vs_nonstream", "tool_calls")
    return found["minimal_text"]


def test_the_minimal_text_shows_the_same_bug(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    (tmp_path / "raw.toml").write_text(CONFIG.replace('arg_converter = "invoke_conv:arguments"\n', ""))
    whole = _mode(run_cli, TEXT)
    assert whole == (True, False, 0)  # the stream's call is unusable, the non-streaming one is fine
    kept = _minimal(run_cli)
    assert kept["tokens"] < kept["of_tokens"] and tuple(kept["mode"]) == whole
    assert _mode(run_cli, kept["text"]) == whole, kept

    # the naive shrink (any difference in tool_calls) lands on another bug
    with monkeypatch.context() as m:
        m.setattr(suite, "mode", lambda *args: ())
        naive = _minimal(run_cli)
    assert _mode(run_cli, naive["text"]) != whole, naive
