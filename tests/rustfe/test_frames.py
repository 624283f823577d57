"""workbench.side_by_side: the seed through both implementations as DataFrames (notebook 07)."""

from __future__ import annotations

from tests.support.seed import SEED_TEXT, WEATHER_TOOLS
from tests.support.rust import RUST_VERSION


def test_side_by_side_frames_show_where_they_part(seed_frontend):
    import workbench

    s = workbench.side_by_side(SEED_TEXT, tool_parser="hermes", reasoning_parser="qwen3", tools=WEATHER_TOOLS,
                               rust=RUST_VERSION)
    assert s.first_step == 7 and "they part at step 7" in repr(s)
    changed = s.frame(changed=True)
    assert list(changed.step) == [7, 15, 19]
    first = changed.iloc[0]
    assert (first.text, first.python, first.rust, first.differs) == ("\n\n", "content='\\n\\n'", "", "delta, sse")
    whole = s.frame()
    assert len(whole) == 26 and whole.rust_sse[25][-1] == "data: [DONE]"
    assert "".join(e + "\n\n" for events in whole.rust_sse for e in events).encode() == s.rust.exchange.body
    finals = s.finals().set_index(["mode", "field"])
    assert finals.loc[("stream", "content")].tolist() == ["\n\n", None, False]
    assert finals.loc[("nonstream", "content")].tolist() == [None, None, True]
