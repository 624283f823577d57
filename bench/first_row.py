"""Kernel start to the first row of notebook 01, against vLLM's own floor, side by side.

Workbench: a fresh kernel (nbclient, this venv's ipykernel) runs notebook 01's cells,
as written, up to and including its first ``wb.step(...)``: ``import workbench``, the
registries, ``workbench.show(source="engine", ...)``, ``describe()`` and the Step that
starts the embedded engine. Timed from before the kernel starts to the end of that cell.

Floor: a fresh interpreter doing only what vLLM itself needs for that row: import
vLLM, compose hermes + qwen3 with ``ParserManager.get_parser``, load the tokenizer,
start the ``LLMEngine`` with the workbench's own engine arguments for the tiny model,
add the prompt and step until the first output (no workbench code: the same offline
environment variables only). Timed from before the interpreter starts to that output.

Rounds alternate which goes first, so machine noise hits both. Prints the figures,
then one JSON line (last): the medians, ``ratio`` = workbench / floor (the median of
the per-round ratios) and the 1-minute load average before and after.
Goal: the workbench's first row <= 15 s on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GOAL_S = 15.0
NOTEBOOK = ROOT / "notebooks" / "01_tour.ipynb"

FLOOR = r"""
import json, os, sys, time
os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
args = json.loads(sys.argv[1])
from vllm.engine.arg_utils import EngineArgs
from vllm.inputs.engine import tokens_input
from vllm.parser import ParserManager
from vllm.sampling_params import SamplingParams
from vllm.tokenizers import get_tokenizer
from vllm.v1.engine.llm_engine import LLMEngine
ParserManager.get_parser(tool_parser_name="hermes", reasoning_parser_name="qwen3")
tok = get_tokenizer(args["tokenizer"])
prompt = tok.apply_chat_template([{"role": "user", "content": "What is the weather in Paris?"}],
                                 tokenize=False, add_generation_prompt=True)
ids = tok.encode(prompt, add_special_tokens=False)
llm = LLMEngine.from_engine_args(EngineArgs(**args))
llm.add_request("floor", tokens_input(ids), SamplingParams(max_tokens=1))
while not any(o.outputs for o in llm.step()):
    pass
print("FIRST", time.time())
"""


def load() -> float:
    return os.getloadavg()[0]


def workbench_first_row() -> float:
    """Seconds from before a fresh kernel starts to the end of 01's first Step cell."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOK, as_version=4)
    cells = [c for c in nb.cells if c.cell_type == "code"]
    upto = next(i for i, c in enumerate(cells) if "wb.step(" in c.source)
    nb.cells = cells[:upto + 1]
    client = NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    t0 = time.perf_counter()
    with client.setup_kernel():
        for i, cell in enumerate(nb.cells):
            client.execute_cell(cell, i)
        seconds = time.perf_counter() - t0
    errors = [o for c in nb.cells for o in c.outputs if o.output_type == "error"]
    if errors:
        raise SystemExit(f"notebook 01 failed: {errors[0].ename}: {errors[0].evalue}")
    return seconds


def floor_args() -> dict:
    import workbench.core.env  # noqa: F401
    from workbench.core.tokenizers import ensure_tokenizer
    from workbench.engine.instance import EngineSpec, engine_args, resolve_model

    model, folder = resolve_model(EngineSpec(), "qwen3")
    args = engine_args(EngineSpec(), model, folder, ensure_tokenizer("qwen3"), "qwen3")
    args.pop("logits_processors")  # the script's processor is the workbench's, not vLLM's
    return args


def vllm_floor(args: dict) -> float:
    from workbench.core.env import _DEFAULTS

    env = {**_DEFAULTS, **os.environ}  # the same offline / in-process defaults, no workbench code
    t0 = time.time()
    out = subprocess.run([sys.executable, "-c", FLOOR, json.dumps(args)], capture_output=True,
                         text=True, env=env, timeout=600)
    if out.returncode != 0:
        raise SystemExit(f"the floor failed: {out.stderr.strip().splitlines()[-1:]}")
    first = float(next(ln.split()[1] for ln in out.stdout.splitlines() if ln.startswith("FIRST")))
    return first - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    a = ap.parse_args()
    args = floor_args()
    load_before = load()
    wb, floor, ratios = [], [], []
    for r in range(a.rounds):
        pair = {}
        for which in (("wb", "floor") if r % 2 == 0 else ("floor", "wb")):
            pair[which] = workbench_first_row() if which == "wb" else vllm_floor(args)
        wb.append(pair["wb"])
        floor.append(pair["floor"])
        ratios.append(pair["wb"] / pair["floor"])
        if not a.json:
            print(f"round {r + 1}: workbench {pair['wb']:.1f} s, vLLM floor {pair['floor']:.1f} s, "
                  f"load {load():.1f}")
    result = {"bench": "first_row", "rounds": a.rounds,
              "workbench_first_row_s_median": round(statistics.median(wb), 1),
              "vllm_floor_s_median": round(statistics.median(floor), 1),
              "workbench_first_row_s_min": round(min(wb), 1), "vllm_floor_s_min": round(min(floor), 1),
              "ratio": round(statistics.median(ratios), 2),
              "load_before": round(load_before, 1), "load_after": round(load(), 1),
              "ok": statistics.median(wb) <= GOAL_S}
    if not a.json:
        print(f"kernel start -> first row of 01: {result['workbench_first_row_s_median']} s median "
              f"(goal <= {GOAL_S:.0f} s quiet); vLLM's own floor {result['vllm_floor_s_median']} s; "
              f"ratio {result['ratio']}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
