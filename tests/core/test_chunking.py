"""core/chunking.py: one way to number. Tokens are numbered from 1, as the steps of one-token
deltas count them, in every grouping name a user reads or writes: merge:A-B (tokens A..B
share a delta), at:I (a delta ends after token I), split:K (tokens 1..K, then the rest)."""

from __future__ import annotations

import pytest

from workbench.core import chunking as C
from workbench.errors import WorkbenchError


def test_merge_and_at_and_split_name_tokens_from_1():
    assert C.sizes("merge:2-3", 5) == (1, 2, 1, 1)  # tokens 2 and 3 (steps 2 and 3 one token a delta)
    assert C.sizes("merge:1-2,4-5", 5) == (2, 1, 2)
    assert C.sizes("at:2", 5) == (2, 3)  # a delta ends after token 2
    assert C.sizes("split:2", 5) == (2, 3)
    assert C.merge_label((1, 2, 1, 1)) == "merge:2-3" and C.at_label((2, 3)) == "at:2"
    for sizes in [(1, 3, 1, 2), (2, 2, 3), (7,), (1,) * 7, (3, 1, 1, 2)]:
        assert C.sizes(C.merge_label(sizes), 7) == sizes if C.merge_label(sizes) != "token" else True
        assert C.sizes(C.at_label(sizes), 7) == sizes


@pytest.mark.parametrize("name", ["merge:0-1", "merge:3-2", "merge:4-6", "merge:1-2,2-3", "at:0", "at:5"])
def test_a_token_outside_1_to_n_is_one_line(name):
    with pytest.raises(WorkbenchError) as e:
        C.sizes(name, 5)
    assert "\n" not in str(e.value)


def test_every_step_a_finding_names_is_shown_with_its_tokens(run_cli, tools_file):
    """check and doctor print, under each finding, the step as token numbers (from 1) with the
    token texts around it; the grouping named is one `--chunking` replays, counting the same."""
    from workbench.lanes.versions import installed

    text = "<think>plan</think>Answer: use <think> tags like this."
    code, out, _ = run_cli("check", "--text", text, "--reasoning-parser", "deepseek_r1", "--no-cost", "--fuzz", "10")
    assert code == 1
    lines = out.splitlines()
    shown = [ln.strip() for ln in lines if ln.strip().startswith("step ")]
    assert shown and all(" is token" in ln and "[" in ln for ln in shown), out
    merge = next(ln for ln in lines if "minimal grouping merge:" in ln).split("minimal grouping ")[1].split()[0]
    a, b = (int(x) for x in merge.removeprefix("merge:").split(",")[0].split("-"))
    code, out, _ = run_cli("replay", "--text", text, "--reasoning-parser", "deepseek_r1", "--chunking", merge, "--json")
    import json

    rows = json.loads(out)["rows"]
    assert len(rows[a - 1]["token_ids"]) == b - a + 1  # step A of the merge holds tokens A..B
    code, out, _ = run_cli("doctor", "--text", text, "--reasoning-parser", "deepseek_r1", "--vllm", installed())
    assert any(ln.strip().startswith("step ") and " is token" in ln for ln in out.splitlines()), out
