"""The detail's candidates chart (``panels.candidates_html``): drawn from what
``engine/candidates.rank`` makes of a logits row and a grammar mask, bar for bar."""

from __future__ import annotations

import re

import numpy as np


def entry(masked: bool):
    """``rank``'s entry for token 3 of a 40-token row; the mask allows tokens 3 and 9 only."""
    import torch

    from workbench.core.session import Session, Setup
    from workbench.engine.candidates import rank
    from workbench.engine.grammar import MaskEntry

    logits = torch.linspace(4.0, -4.0, 40)  # token 0 is the model's favourite
    words = np.zeros(2, dtype=np.uint32)
    words[0] = (1 << 3) | (1 << 9)
    mask = MaskEntry(gate_open=True, terminated=False, allowed=2, row=words) if masked else None
    return rank(logits, 3, mask, Session(Setup(tokenizer="qwen3")).tokenizer)


def bars(html_: str) -> list[tuple[str, str]]:
    """(class, percent) of each bar, in order."""
    return re.findall(r"<div class='(wb-cand(?: [^']*)?)'.*?tabular-nums'>([^<]*)</span>", html_)


def test_the_chart_draws_what_the_model_wanted_beside_what_the_grammar_allowed():
    from workbench.ui.panels import _percent, candidates_html

    e = entry(masked=True)
    out = candidates_html([e])
    wanted, allowed = out.split("the grammar allowed")
    assert "the model wanted" in wanted
    before = bars(wanted)
    assert [p for _, p in before] == [_percent(c["p"]) for c in e["before"]]
    # the model's favourites were masked (struck out), token 3 was its 4th choice: outlined
    assert [("masked" in cls, "chosen" in cls) for cls, _ in before] == [
        (c["id"] not in (3, 9), c["id"] == 3) for c in e["before"]]
    assert f"chosen: rank {e['rank_before']}, {_percent(e['p_before'])}" in wanted
    after = bars(allowed)
    assert len(after) == 2 and "chosen" in after[0][0]  # renormalised over the two allowed tokens
    assert f"chosen: rank 1, {_percent(e['p_after'])} · 2 tokens allowed" in allowed


def test_without_a_mask_the_grammar_allowed_everything_and_json_leaves_the_candidates_out():
    from workbench.core.rows import Row
    from workbench.ui.panels import row_detail_html

    e = entry(masked=False)
    row = Row(step=1, token_ids=[3], tokens=["x"], text="x", phase_before="content", phase="content", delta=None, sse=False, extra={"candidates": [e], "engine_steps": 1})
    _, tail = row_detail_html(row)
    assert "the model wanted" in tail and "no grammar mask at this step" in tail
    assert "&quot;candidates&quot;" not in tail and "engine_steps" in tail  # the raw JSON, without them
    forced = Row(step=1, token_ids=[3], tokens=["x"], text="x", phase_before="content", phase="content", delta=None, sse=False)
    assert "forced (the script sets every other logit to -inf)" in row_detail_html(forced, forced=True)[1]
    assert "forced" not in row_detail_html(forced)[1]
