"""One Step's widget update with 10,000 rows already shown (Python side).

A Workbench streams a >10,000-token text (hermes + qwen3); 10,000 rows are
stepped and shown, then each further Step is timed two ways: the widget update
alone (the new row's record sent to the front-end table + the state sync of
every changed widget, serialised to JSON as the kernel would send it) and the
whole Step click (vLLM's parse_delta included). Side by side: re-sending the
whole stream (the table's reset, what a view that opens late gets). Prints
figures, then one JSON line (last); goal: update <= 20 ms.
(bench/widget_browser.py measures the same in a real browser.)
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import workbench.core.env  # noqa: E402,F401

ROWS = 10_000
GOAL_MS = 20.0
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]


class SerialisingComm:
    """A comm that JSON-encodes every message (the kernel's cost) and counts bytes."""

    comm_id = "bench"
    kernel = "bench"
    sent_bytes = 0

    def __init__(self, **kwargs) -> None:
        pass

    def open(self, *a, **k) -> None:
        pass

    def on_msg(self, *a, **k) -> None:
        pass

    def close(self, *a, **k) -> None:
        pass

    def send(self, data=None, buffers=None, **kwargs) -> None:
        SerialisingComm.sent_bytes += len(json.dumps(data, default=str))


def long_text(n_words: int) -> str:
    return "<think>" + " word" * n_words + '</think>\n\n<tool_call>{"name": "get_weather", ' \
        '"arguments": {"city": "Paris"}}</tool_call>'


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=60, help="timed steps after the first 10,000")
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args()

    import comm

    comm.create_comm = SerialisingComm
    from workbench import Workbench

    wb = Workbench(long_text(ROWS + args.steps + 20), tools=TOOLS)
    from workbench.ui import transitions as T

    ctl = wb._ctl  # the widget's controller: a transition makes the state, set() draws it
    ctl.do("Step", T.begin, raise_errors=True)
    t0 = time.perf_counter()
    state = ctl.state
    for _ in range(ROWS):
        state = T.step(state, ctl.rt)
    ctl.set(state)
    fill_s = time.perf_counter() - t0
    assert len(wb.table.rows) == ROWS and not ctl.state.stream.done

    update_ms, click_ms, sizes = [], [], []
    for i in range(args.steps):
        if i % 2:
            before = SerialisingComm.sent_bytes
            t0 = time.perf_counter()
            wb.step_button.click()
            click_ms.append((time.perf_counter() - t0) * 1e3)
            sizes.append(SerialisingComm.sent_bytes - before)
        else:
            state = T.step(ctl.state, ctl.rt)
            t0 = time.perf_counter()
            ctl.set(state)  # the widget's update alone: the state drawn
            update_ms.append((time.perf_counter() - t0) * 1e3)
    assert wb.banner.value == "", wb.banner.value
    shown = len(wb.table.rows)

    before = SerialisingComm.sent_bytes
    t0 = time.perf_counter()
    wb.table._send_all()
    full_ms = (time.perf_counter() - t0) * 1e3
    full_bytes = SerialisingComm.sent_bytes - before

    med = statistics.median(update_ms)
    p95 = sorted(update_ms)[int(0.95 * (len(update_ms) - 1))]
    result = {"bench": "widget_update", "rows_shown": shown,
              "steps_timed": len(update_ms), "update_ms_median": round(med, 2),
              "update_ms_p95": round(p95, 2), "step_click_ms_median": round(statistics.median(click_ms), 2),
              "bytes_sent_per_step": int(statistics.median(sizes)),
              "full_resend_ms": round(full_ms, 1), "full_resend_bytes": full_bytes,
              "ratio": round(med / full_ms, 4), "goal_ms": GOAL_MS, "ok": p95 <= GOAL_MS,
              "fill_10k_rows_s": round(fill_s, 2)}
    if not args.json:
        print(f"{shown} rows shown; {len(update_ms)} timed updates")
        print(f"widget update: median {med:.2f} ms, p95 {p95:.2f} ms (goal <= {GOAL_MS} ms)")
        print(f"whole Step click incl. parse_delta: median {result['step_click_ms_median']} ms, "
              f"{result['bytes_sent_per_step']} bytes of widget state per step")
        print(f"side by side: re-sending all {shown} rows: {full_ms:.0f} ms "
              f"({full_bytes // 1024} KiB)")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
