"""The author's loop: `workbench watch`'s time from a file change to its answer, beside a
cold `workbench check` of the same case (a new process: vLLM imported, the tokenizer loaded,
the config built, then the same check).

The case: the tests' invented OWL config (tests/support/invented_formats.py: reasoning
between plain-text markers, calls as <<call>>{json}<</call>>) and a ~300-token text on qwen3,
checked with watch's loop flags (--fuzz 20 --splits markers --shrink-budget 1 --no-cost) on both sides. Each warm round
edits the config (a comment line), then waits the way `watch` does (a look at the files
every --interval, 0.1 s) and times until check has answered. Goal: warm <= 1 s. Prints the
figures with the load average, then one JSON line (last): ``ratio`` = warm / cold.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import workbench.core.env  # noqa: E402,F401
from tests.support.invented_formats import OWL as CONFIG  # noqa: E402

SENTENCE = "The user asks about the weather in several cities and I should check each one carefully."
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]


def case(folder: Path, sentences: int) -> list[str]:
    (folder / "owl.toml").write_text(CONFIG)
    (folder / "tools.json").write_text(json.dumps(TOOLS))
    (folder / "out.txt").write_text("::reason::" + " ".join([SENTENCE] * sentences) + "::/reason::Let me check."
                                    '<<call>>{"name": "get_weather", "arguments": {"city": "Paris"}}<</call>>')
    return ["owl.toml", "out.txt", "--tools", "tools.json"]


def cold(folder: Path, line: list[str]) -> float:
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "workbench", *line], cwd=folder, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if done.returncode not in (0, 1):
        raise SystemExit(f"cold check failed: {done.stderr.strip()[-300:]}")
    return seconds


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--sentences", type=int, default=15, help="reasoning sentences (15: ~290 tokens)")
    p.add_argument("--interval", type=float, default=0.1)
    args = p.parse_args()

    from workbench.cli import main as cli
    from workbench.cli.watch_cmd import Watcher, command

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        argv = case(folder, args.sentences)
        os.chdir(folder)
        line, files, _ = command(argv)
        cold_s = cold(folder, line)
        watcher = Watcher(line, files, cli)
        with contextlib.redirect_stdout(io.StringIO()) as out:
            first_rc, first_s = watcher.answer()
        tokens = out.getvalue().split(" tokens,")[0].rsplit(" ", 1)[-1]
        warm = []
        for n in range(args.rounds):
            with open("owl.toml", "a", encoding="utf-8") as f:
                f.write(f"# edit {n}\n")
            t0 = time.perf_counter()
            while not watcher.changed():
                time.sleep(args.interval)
            with contextlib.redirect_stdout(io.StringIO()):
                rc, _ = watcher.answer()
            warm.append(time.perf_counter() - t0)
            assert rc == first_rc
    load = os.getloadavg()
    warm_s = statistics.median(warm)
    print(f"case: {tokens} tokens, check {' '.join(line[1:])}")
    print(f"cold `workbench check` (new process): {cold_s:.2f} s")
    print(f"watch, first answer in its process: {first_s:.2f} s")
    print(f"watch, file change -> answer: median {warm_s:.2f} s over {args.rounds} edits "
          f"(min {min(warm):.2f}, max {max(warm):.2f}); goal <= 1 s")
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(json.dumps({"bench": "author_loop", "tokens": int(tokens), "cold_s": round(cold_s, 3),
                      "first_s": round(first_s, 3), "warm_s": round(warm_s, 3), "warm_max_s": round(max(warm), 3),
                      "ratio": round(warm_s / cold_s, 4), "goal_warm_s": 1.0, "load": [round(x, 2) for x in load]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
