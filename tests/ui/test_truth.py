"""The widget tells the truth and lets rows go (issue 21; issue 18 item 7), headless:

- the API picker: a row's events in the detail equal ``core.faces`` on a session built
  for that API; the final tab holds every API's client object and body;
- A/B over two APIs: each side's events are that API's, the steps compared by what the
  clients receive (``core.diff.compare`` with each side's face);
- the status line says which parser class runs and from where, and what waits for
  Replay; a setting that cannot apply is refused at once, in the status line;
- Save refuses an existing file until Overwrite; Copy JSON / Ctrl+C send the rows' JSON;
- Harmony rows are coloured by their channel's field.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.seed import SEED_TEXT, WEATHER_TOOLS
from workbench.core import faces
from workbench.core.faces import mask
from workbench.core.session import Session, Setup
from workbench.core.request import RequestSpec
from workbench.lanes import versions

ROOT = Path(__file__).resolve().parents[2]


def direct(api: str):
    session = Session(Setup(request=RequestSpec(tools=WEATHER_TOOLS), api=api))
    deltas = session.deltas_from_text(SEED_TEXT)
    result = session.replay(deltas)
    return result, faces.run(session, result)


def row_events(wb, step: int):
    """The step's events on the widget's API, as its detail shows them."""
    from workbench.ui import screen

    return screen.row_events(wb.state, step)


def api_finals(wb):
    from workbench.ui import screen

    return screen.api_finals(wb.state)[0]


@pytest.fixture
def sent(monkeypatch):
    """What the tables sent to the front end (custom messages)."""
    from workbench.ui import table

    out: list[dict] = []
    monkeypatch.setattr(table.RecordTable, "send", lambda self, content, buffers=None: out.append(content))
    return out


def test_the_api_picker_shows_that_apis_events_and_every_apis_final():
    import workbench
    from workbench import Workbench

    wb = Workbench(SEED_TEXT, tools=WEATHER_TOOLS, api="messages")
    wb.step(7)
    wb.select(7)  # the seed's "\n\n": on /v1/messages a text block of its own
    title = wb.detail.titles["api"].value
    assert "messages events" in title and "stream has not ended" in title
    events = wb.detail.tables["api"]
    assert any("text_delta" in r["event"] for r in events.records)
    # Ctrl+C there copies the events' own JSON, as vLLM's converter made them
    copied = [json.loads(line) for line in events.copy_text([r["n"] for r in events.records]).splitlines()]
    assert copied == row_events(wb, 7) != []
    assert "verdict: when the stream ends" in wb.final.goto.description  # no verdict before the end
    wb.run()
    result, face = direct("messages")
    names: dict = {}
    got = [mask.masked(row_events(wb, r.step), names) for r in wb.rows]
    names = {}
    want = [mask.masked(face.row_events(i), names) for i in range(len(result.rows))]
    assert got == want  # the events are vLLM's converter's, for that API's own session
    finals = {a.api: a for a in api_finals(wb)}
    assert list(finals) == ["chat", "responses", "messages"]
    assert finals["chat"].differs == ["content"]  # the seed finding: "\n\n" vs null
    for api in ("responses", "messages"):  # a client shows the "\n\n" as an empty-looking bubble
        assert finals[api].whitespace_only == ["client"] and finals[api].differs == ["content"]
    # the final tab's table of every API is the table component, under workbench.faces' schema
    table = wb.final.apis
    assert [c["name"] for c in table.columns] == list(workbench.faces(wb).finals().columns)
    shown = {(r["api"], r["mode"]): r for r in table.records}
    assert list(shown) == [(api, mode) for api in ("chat", "responses", "messages") for mode in ("stream", "nonstream")]
    assert shown[("messages", "stream")]["whitespace_only_text"] == "⚠ only whitespace"
    assert "tool get_weather" in shown[("messages", "stream")]["blocks"]
    assert shown[("messages", "stream")]["blocks"].endswith('stop_reason: "tool_use"')
    assert shown[("chat", "stream")]["verdict"] == "≈ whitespace only: content" and table.layout.display is None



def test_every_api_verdict_judges_the_role_chunk_as_check_does():
    """No text between the think and the call: a chat client holds content "" (the server's
    opening role chunk) where the body has null. `check` makes no finding of it, and the
    final tab's field table says equal, so the every-API table must not say "differ"."""
    from workbench import Workbench

    wb = Workbench(SEED_TEXT.replace("</think>\n\n", "</think>"), tools=WEATHER_TOOLS)
    wb.run()
    chat = {a.api: a for a in api_finals(wb)}["chat"]
    assert (chat.client_final.content, chat.body_final.content) == ("", None)
    assert chat.differs == [] and chat.role_chunk
    verdict = {(r["api"], r["mode"]): r["verdict"] for r in wb.final.apis.records}[("chat", "stream")]
    assert verdict.startswith("✓ the client holds the body") and "role chunk" in verdict

def test_ab_compares_two_apis_over_one_stream():
    from workbench import Workbench

    wb = Workbench(SEED_TEXT, tools=WEATHER_TOOLS)
    wb.run()
    res = wb.compare("hermes+qwen3", "hermes+qwen3", api_a="chat", api_b="responses")
    assert res.first_step is None  # the same text reaches both clients, step by step
    assert res.label_b == "hermes+qwen3 · responses"
    _, face = direct("responses")
    seven = next(r for r in wb.ab.right.records if r["step"] == 7)
    assert "output_text.delta '\\n\\n'" in seven["events"] and "output_item.added message" in seven["events"]
    from workbench.ui.ab_apis import events_cell

    assert seven["events"] == events_cell(face.row_events(6))  # vLLM's converter's events, summarised
    left7 = next(r for r in wb.ab.left.records if r["step"] == 7)
    assert "events" not in left7 and left7["content"] == "\n\n"  # chat: its DeltaMessage
    assert "content" in wb.ab.left.shown() and "events" in wb.ab.right.shown()
    hidden = wb.compare("hermes+qwen3", "hermes+qwen3", api_a="responses", api_b="messages")
    assert hidden.first_step is None and (hidden.api_a, hidden.api_b) == ("responses", "messages")


def test_the_status_line_says_what_runs_and_what_waits():
    from workbench import Workbench

    wb = Workbench(SEED_TEXT, tools=WEATHER_TOOLS)
    assert wb.controls.vllm.value == ""  # the installed vLLM is a value, not a blank box
    wb.step()
    line = wb.controls.truth.value
    assert "runs: hermes+qwen3 = " in line and "Hermes2ProToolParser" in line and "from the pickers" in line
    assert f"vLLM {versions.installed()} (installed)" in line and "API chat" in line
    teaching = (ROOT / "parsers" / "teaching.toml").read_text()
    wb.reload_config(teaching)
    assert "from the config editor" in wb.controls.truth.value and wb.editor.use.value is True
    wb.controls.tool_parser.value = "qwen3_coder"  # picked: the editor goes off, at the next Replay
    assert wb.editor.use.value is False and "runs: editor config" in wb.controls.truth.value
    assert "not applied yet: tool parser, the config editor" in wb.controls.truth.value
    wb.controls.replay_button.click()
    assert "runs: qwen3_coder+qwen3" in wb.controls.truth.value and "not applied" not in wb.controls.truth.value
    wb.reload_config(teaching)
    wb.editor.use.value = False  # the switch: the pickers' parser runs again, replayed now
    assert wb.state.settings.config_text is None and "runs: qwen3_coder+qwen3" in wb.controls.truth.value


@pytest.mark.skipif(len(versions.listed()) < 2, reason="no other vLLM version is locked for lanes")
def test_a_setting_that_cannot_apply_is_refused_at_once():
    from workbench import Workbench

    other = versions.listed()[1]
    wb = Workbench(SEED_TEXT, tools=WEATHER_TOOLS)
    wb.reload_config((ROOT / "parsers" / "teaching.toml").read_text())
    wb.controls.vllm.value = other
    assert wb.controls.vllm.value == ""  # back at once: the editor's config runs on the installed vLLM
    assert "refused" in wb.controls.status.value and "switch the editor off" in wb.controls.status.value
    assert wb.banner.value == ""
    wb.editor.use.value = False
    wb.controls.vllm.value = other  # now it may
    assert wb.controls.vllm.value == other
    wb.editor.use.value = True  # and the editor may not
    assert wb.editor.use.value is False and "refused" in wb.controls.status.value
    wb.controls.source.value = "engine"
    assert wb.controls.source.value == "text" and "live stream runs on the installed vLLM" in wb.controls.status.value


def test_save_asks_before_overwriting_and_rows_go_as_json(tmp_path, monkeypatch, sent):
    from workbench import Workbench
    from workbench.core import recording as rec

    monkeypatch.chdir(tmp_path)
    wb = Workbench(SEED_TEXT, tools=WEATHER_TOOLS)
    wb.run()
    c = wb.controls
    c.save_path.value = "seed.jsonl"
    c.save_button.click()
    assert len(rec.load(tmp_path / "seed.jsonl").deltas) == 26
    (tmp_path / "seed.jsonl").write_text("keep me")
    c.save_button.click()
    assert (tmp_path / "seed.jsonl").read_text() == "keep me" and c.overwrite_button.layout.display is None
    assert "exists" in c.status.value and "refused" in c.status.value
    c.overwrite_button.click()
    assert len(rec.load(tmp_path / "seed.jsonl").deltas) == 26 and c.overwrite_button.layout.display == "none"
    sent.clear()
    wb.table.selection = [6, 7]
    wb.detail.copy_button.click()
    (msg,) = [m for m in sent if m.get("kind") == "clipboard"]
    assert [json.loads(line)["step"] for line in msg["text"].splitlines()] == [6, 7]
    assert json.loads(msg["text"].splitlines()[1])["delta"]["content"] == "\n\n"
    assert list(wb.frame(selected=True)["step"]) == [6, 7]
    assert wb.to_jsonl("rows.jsonl") == 2 and len((tmp_path / "rows.jsonl").read_text().splitlines()) == 2


def test_harmony_rows_are_coloured_by_their_channel():
    """gpt-oss (05): analysis rows are reasoning, commentary rows a tool call, in their field
    and the phase's band; the header between messages is "other" (issue 21, item 4)."""
    from workbench import Workbench
    from workbench.core.parsers import ParserSpec

    text = ('<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant'
            '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>')
    pick = dict(tokenizer="gpt_oss", tool_parser="openai", reasoning_parser="openai_gptoss")
    wb = Workbench(text, tools=WEATHER_TOOLS, **pick)
    wb.run()
    direct = Session(Setup("gpt_oss", ParserSpec("openai", "openai_gptoss"), RequestSpec(tools=WEATHER_TOOLS)))
    rows = direct.replay(direct.deltas_from_text(text)).rows
    by_step = {r["step"]: r for r in wb.table.records}
    for r in rows:
        rec = by_step[r.step]
        field = "tool" if r.tool_calls else "reasoning" if r.reasoning else None
        if field:  # the field the parser filled is the colour, and the phase's band agrees
            assert rec["_k"] == field and rec["_c"].split()[0] == f"k-{field}", (r.step, r.phase, rec)
        elif str(r.phase) == "header":
            assert rec["_c"].split()[0] == "k-other"
    assert {"analysis", "commentary to=functions.get_weather"} <= {str(r.phase) for r in rows}
