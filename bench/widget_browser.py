"""Step click -> new row visible, in a real browser (JupyterLab + Debian chromium).

A notebook shows a Workbench over a 100,000-token text (hermes + qwen3; the limit). Twenty
Step clicks are timed with 26 rows shown, then the kernel steps to 10,000 rows
and twenty more are timed, then to 99,900. Each time runs in the page: from
the click to the frame after the new row is in the DOM and inside the table's
scroll box. The kernel->browser websocket frames of each Step are counted too:
all bytes, and the widget messages' content alone. At 10,000 and 100,000 rows
the table is also scrolled to 30 places: time to the frame after the rows there
are drawn. Prints figures, then one JSON line (last) with the side-by-side
ratio (median at 10,000 rows / median at 26).
Goals: <= 50 ms at 26 and at 99,900 rows, flat; <= 2 KB per Step plus the new row.
The load average is printed beside the figures (the machine is shared).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.jupyterlab import CHROMIUM, FLAGS, IDLE, lab_server, open_notebook, write_notebook  # noqa: E402

GOAL_MS, GOAL_BYTES = 50.0, 2048
# the text has limits.MAX_DELTAS tokens, the most one stream may have (a longer one is
# refused: "Step failed; 0 rows kept"); the last size is measured 100 rows before its end
BIG, HUGE, TOKENS = 10_000, 99_900, 100_000
CELLS = [
    "import workbench\n"
    "TOOLS = [{'type': 'function', 'function': {'name': 'get_weather', 'parameters': {'type': 'object', "
    "'properties': {'city': {'type': 'string'}}}}}]\n"
    f"TEXT = '<think>' + ' word' * {TOKENS - 2} + '</think>'\n"
    "wb = workbench.show(TEXT, tools=TOOLS, steps=25)",
    f"wb.step({BIG} - len(wb.rows)); len(wb.rows)",
    f"wb.step({HUGE} - len(wb.rows)); len(wb.rows)",
]

SCROLL_JS = """async (cell) => {
  const scroll = cell.querySelector('.wb-scroll');
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  const times = [];
  for (let i = 1; i <= 30; i++) {
    const top = Math.floor(((i * 37) % 100) / 100 * (scroll.scrollHeight - scroll.clientHeight));
    const want = Math.floor(top / 22) + 2;
    const t0 = performance.now();
    scroll.scrollTop = top;
    while (!scroll.querySelector(`[data-step="${want}"]`)) await frame();
    await frame();
    times.push(performance.now() - t0);
  }
  scroll.scrollTop = scroll.scrollHeight;  // back to the end: the table follows new rows again
  await frame();
  return times;
}"""

CLICK_JS = """async ([cell, n]) => {
  const btn = [...cell.querySelectorAll('button.widget-button')].find((b) => b.textContent.includes('Step'));
  const scroll = cell.querySelector('.wb-scroll');
  const body = cell.querySelector('.wb-body');
  const shown = () => {
    const el = body.querySelector(`[data-step="${n}"]`);
    if (!el) return false;
    const r = el.getBoundingClientRect(), s = scroll.getBoundingClientRect();
    return r.top >= s.top && r.bottom <= s.bottom + 1;
  };
  return await new Promise((resolve, reject) => {
    const t0 = performance.now();
    const obs = new MutationObserver(() => {
      if (shown()) { obs.disconnect(); requestAnimationFrame(() => resolve(performance.now() - t0)); }
    });
    obs.observe(body, {childList: true, subtree: true});
    setTimeout(() => { obs.disconnect(); reject(new Error(`row ${n} not shown in 30 s`)); }, 30000);
    btn.click();
  });
}"""


def frame_sizes(payload) -> tuple[int, int, int]:
    """(all bytes, widget comm content bytes, the rows message's rows bytes) of one frame."""
    if isinstance(payload, str):
        msg = json.loads(payload)
        kind, content = msg["header"]["msg_type"], json.dumps(msg["content"])
        total = len(payload.encode())
    else:
        from jupyter_server.services.kernels.connection.base import deserialize_msg_from_ws_v1

        _, parts = deserialize_msg_from_ws_v1(payload)
        kind, content = json.loads(parts[0])["msg_type"], parts[3].decode()
        total = len(payload)
    if kind != "comm_msg":
        return total, 0, 0
    data = json.loads(content).get("data", {})
    rows = data.get("content", {}).get("rows") if data.get("method") == "custom" else None
    return total, len(content), len(json.dumps(rows[0])) if rows else 0


def measure(page, cell, first_step: int, clicks: int, frames: list) -> tuple[list, list]:
    times, sizes = [], []
    for i in range(clicks):
        frames.clear()
        times.append(page.evaluate(CLICK_JS, [cell.element_handle(), first_step + i]))
        page.wait_for_selector(IDLE)
        page.wait_for_timeout(150)  # the status/idle frames of this Step
        sizes.append([sum(x) for x in zip(*(frame_sizes(f) for f in frames))] or [0, 0, 0])
    return times, sizes


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clicks", type=int, default=20)
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="wb-bench-"))
    root = tmp / "root"
    root.mkdir()
    write_notebook(root / "bench.ipynb", CELLS)
    with lab_server(tmp, root) as (base, token), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        frames: list = []
        page.on("websocket", lambda ws: "/api/kernels/" in ws.url
                and ws.on("framereceived", lambda f: frames.append(f)))
        try:
            measured = run(page, base, token, args.clicks, frames)
        except Exception:
            (ROOT / "artifacts").mkdir(exist_ok=True)
            page.screenshot(path=str(ROOT / "artifacts" / "bench_failure.png"))
            raise
        finally:
            browser.close()
    report(args, *measured)


def grow(page, cells, n: int, index: int) -> float:
    t0 = time.perf_counter()
    cells.nth(index).locator(".jp-InputArea-editor").click()
    page.keyboard.press("Control+Enter")
    page.wait_for_function("(el) => el.textContent.startsWith('%d rows')" % n,
                           arg=cells.nth(0).locator(".wb-caption").first.element_handle(), timeout=600_000)
    page.wait_for_selector(IDLE)
    return time.perf_counter() - t0


def run(page, base, token, clicks, frames):
    open_notebook(page, base, token, "bench.ipynb")
    cells = page.locator(".jp-CodeCell")
    cells.nth(0).locator(".jp-InputArea-editor").click()
    page.keyboard.press("Control+Enter")
    cell = cells.nth(0)
    cell.locator(".wb-row[data-step='25']").wait_for(timeout=120_000)
    page.wait_for_selector(IDLE)
    small_ms, small_b = measure(page, cell, 26, clicks, frames)
    fill_s = grow(page, cells, BIG, 1)
    big_ms, big_b = measure(page, cell, BIG + 1, clicks, frames)
    scroll = {BIG: page.evaluate(SCROLL_JS, cell.element_handle())}
    fill_s += grow(page, cells, HUGE, 2)
    huge_ms, _ = measure(page, cell, HUGE + 1, clicks, frames)
    scroll[HUGE] = page.evaluate(SCROLL_JS, cell.element_handle())
    return small_ms, small_b, big_ms, big_b, fill_s, huge_ms, scroll


def report(args, small_ms, small_b, big_ms, big_b, fill_s, huge_ms, scroll) -> None:
    med = {"26": statistics.median(small_ms), str(BIG): statistics.median(big_ms)}
    per = [s for s in small_b + big_b]
    total_b = statistics.median(s[0] for s in per)
    widget_b = statistics.median(s[1] for s in per)
    row_b = statistics.median(s[2] for s in per)
    load = [round(x, 2) for x in os.getloadavg()]
    result = {"bench": "widget_browser", "clicks": args.clicks, "load_avg_1_5_15": load,
              "step_to_row_ms_median_26": round(med["26"], 1),
              f"step_to_row_ms_median_{BIG}": round(med[str(BIG)], 1),
              "step_to_row_ms_max_26": round(max(small_ms), 1), f"step_to_row_ms_max_{BIG}": round(max(big_ms), 1),
              "ws_bytes_per_step": int(total_b), "widget_bytes_per_step": int(widget_b),
              "new_row_bytes": int(row_b), "fill_s": round(fill_s, 1),
              f"step_to_row_ms_median_{HUGE}": round(statistics.median(huge_ms), 1),
              f"scroll_frame_ms_median_{BIG}": round(statistics.median(scroll[BIG]), 1),
              f"scroll_frame_ms_median_{HUGE}": round(statistics.median(scroll[HUGE]), 1),
              "ratio": round(med[str(BIG)] / med["26"], 2),
              "ok": max(*med.values(), statistics.median(huge_ms)) <= GOAL_MS and widget_b <= GOAL_BYTES + row_b}
    if not args.json:
        print(f"Step click -> new row visible, median of {args.clicks}: {med['26']:.1f} ms at 26 rows, "
              f"{med[str(BIG)]:.1f} ms at {BIG:,} rows, {statistics.median(huge_ms):.1f} ms at {HUGE:,} "
              f"(goal <= {GOAL_MS:.0f} ms, flat); load average {load[0]} {load[1]} {load[2]}")
        print(f"bytes per Step: {int(widget_b)} of widget messages (the new row: {int(row_b)}), "
              f"{int(total_b)} on the websocket in all (goal <= {GOAL_BYTES} + the new row)")
        print(f"at {HUGE:,} rows: Step -> row {result[f'step_to_row_ms_median_{HUGE}']} ms; scroll to a place -> "
              f"drawn: {result[f'scroll_frame_ms_median_{BIG}']} ms at {BIG:,}, "
              f"{result[f'scroll_frame_ms_median_{HUGE}']} ms at {HUGE:,}")
        print(f"side by side: {BIG:,} rows / 26 rows = {result['ratio']}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
