"""`workbench doctor` on a 200-token text, for every built-in tokenizer (goal: <= 10 s median).

Two runs per tokenizer, each measured --runs times after one warm-up (the tokenizer
and vLLM are loaded once per process, as in the CLI after start-up): the family's
parsers configured, and none configured (the doctor then tries the registered parsers
whose markers occur in the text). Beside each, one plain replay of the same deltas, so
the ratio doctor / replay is measured side by side under the same load.

--lanes: doctor as the CLI runs it with every lane's verdict ("fixed in": the same doctor
in each other locked vLLM), on reports with parser causes (tests/data/reports/), warm
(the lanes' warm servers running, lanes/warm.py: each run connects as a new command
would) and cold beside it (the servers stopped before each run: every lane starts). The
goal (<= 10 s median) is the warm figure. Prints the load average, then one JSON line last.

--daemon: `workbench doctor --json` as a user types it, a process per report, over every
report in tests/data/reports (the lanes' verdicts on each parser cause), answered by the
warm daemon (cli/daemon.py; goal: median <= 3 s, max <= 10 s) and, beside it, cold
(--no-daemon) on the --lanes reports. The daemon's memory (RSS, PSS) and the warm lane
servers' are reported.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import workbench.core.env  # noqa: E402,F401

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}}}}]
PROSE = ("The user asks about the weather, so I should look it up for the city they named and then answer "
         "in a short sentence with the temperature, the sky and whether rain is likely later today. ")
GOAL_S = 10.0
TOKENS = 200


def texts() -> dict[str, tuple[tuple[str | None, str | None], str]]:
    """tokenizer -> ((tool parser, reasoning parser), a text of reasoning, prose and one call)."""
    call = '{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}'
    ds = ('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n'
          '{"city": "Paris", "unit": "celsius"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>')
    dsml = ('<｜DSML｜tool_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" '
            'string="true">Paris</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>')
    return {
        "qwen3": (("hermes", "qwen3"), f"<think>{{prose}}</think>\n\nLet me check.<tool_call>{call}</tool_call>"),
        "deepseek_v3": (("deepseek_v3", None), f"{{prose}}{ds}"),
        "deepseek_v4": (("deepseek_v4", "deepseek_v4"), f"<think>{{prose}}</think>{dsml}"),
        "gpt_oss": (("openai", "openai_gptoss"),
                    "<|channel|>analysis<|message|>{prose}<|end|><|start|>assistant<|channel|>commentary "
                    'to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>'),
        "kimi_k2": (("kimi_k2", "kimi_k2"),
                    f"<think>{{prose}}</think><|tool_calls_section_begin|><|tool_call_begin|>"
                    'functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>'
                    "<|tool_calls_section_end|>"),
        "mistral_tekken": (("mistral", None), f"{{prose}}[TOOL_CALLS][{call}]"),
        "mistral_v7": (("mistral", None), f"{{prose}}[TOOL_CALLS][{call}]"),
    }


def fill(session, template: str) -> str:
    """The template with as many prose words for ``{prose}`` as keep it within TOKENS tokens."""
    from workbench.core.deltas import encode_text

    words = (PROSE * 8).split()
    lo, hi = 0, len(words)
    while lo < hi:  # the most words that still fit
        mid = (lo + hi + 1) // 2
        text = template.replace("{prose}", " ".join(words[:mid]))
        lo, hi = (mid, hi) if len(encode_text(session.tokenizer, text)) <= TOKENS else (lo, mid - 1)
    return template.replace("{prose}", " ".join(words[:lo]))


def measure(setup, text: str, runs: int, replay_setup) -> dict:
    """Median doctor and replay seconds (the replay with ``replay_setup``'s parsers)."""
    from workbench.diagnosis.diagnose import diagnose
    from workbench.core.session import Session

    session = Session(replay_setup)
    text = fill(session, text)
    deltas = session.deltas_from_text(text)
    diagnose(setup, text=text)  # warm-up: first instances, regex caches
    doctor_s, replay_s = [], []
    for _ in range(runs):
        t = time.perf_counter()
        session.replay(deltas)
        replay_s.append(time.perf_counter() - t)
        t = time.perf_counter()
        report = diagnose(setup, text=text)
        doctor_s.append(time.perf_counter() - t)
    med, rep = statistics.median(doctor_s), statistics.median(replay_s)
    return {"tokens": len(deltas), "doctor_s": round(med, 2), "replay_s": round(rep, 4),
            "ratio": round(med / rep, 1), "causes": [c.cls for c in report.causes]}


LANE_CASES = ("vllm-56263-deepseek-v3-text-after-call-dropped", "vllm-48294-ernie45-two-calls-in-one-delta",
              "vllm-47977-json-envelope-config-leaks-envelope-into-arguments")


def doctor_with_lanes(case: dict) -> tuple[float, list]:
    """One doctor run as `workbench doctor --json` does it: diagnose, then the lanes' verdicts."""
    from tests.support import reports
    from workbench.diagnosis.diagnose import DoctorOptions, diagnose
    from workbench.cli import build_parser, common
    from workbench.lanes import lane, warm
    from workbench.runs.asked import attach

    folder = Path(os.environ.get("TMPDIR", "/tmp")) / "doctor_speed"
    argv = reports.argv(case, "doctor", folder)
    lane.close_all()  # a new command: no lane of this process's yet
    t = time.perf_counter()
    warm.prestart(v for v in reports.VERSIONS[1:])
    report = diagnose(reports.setup(case), text=case["text"], finish_reason=case["finish_reason"],
                      options=DoctorOptions())
    if report.parser_causes():
        attach(report.parser_causes(), common.run_spec(build_parser().parse_args(argv)))
    return time.perf_counter() - t, [(c.cls, (c.versions or {}).get("verdict")) for c in report.causes]


def lanes_main(runs: int) -> int:
    from tests.support import reports
    from workbench.lanes import warm

    os.environ[warm.OFF_ENV] = "1"
    print(f"load average before: {os.getloadavg()}")
    out = {}
    for case_id in LANE_CASES:
        case = reports.load(reports.CASES / f"{case_id}.json")
        doctor_with_lanes(case)  # warm-up: this process's caches, the servers started
        warm_s, cold_s = [], []
        for _ in range(runs):
            s, verdicts = doctor_with_lanes(case)
            warm_s.append(s)
        for _ in range(max(1, runs // 2)):
            warm.stop()
            time.sleep(1.0)
            s, _ = doctor_with_lanes(case)
            cold_s.append(s)
        r = {"warm_s": round(statistics.median(warm_s), 2), "cold_s": round(statistics.median(cold_s), 2),
             "versions": list(reports.VERSIONS), "verdicts": verdicts}
        out[case_id] = r
        print(f"{case_id[:52]:52} doctor with {len(reports.VERSIONS) - 1} lanes' verdicts: warm {r['warm_s']:5.2f} s "
              f"median, cold {r['cold_s']:5.2f} s; {verdicts}")
    worst = max(r["warm_s"] for r in out.values())
    print(f"load average after: {os.getloadavg()}")
    print(json.dumps({"bench": "doctor_speed_lanes", "goal_s": GOAL_S, "worst_warm_median_s": worst,
                      "ratio": round(worst / GOAL_S, 2), "load_average": os.getloadavg(), "runs": out}))
    return 0 if worst <= GOAL_S else 1


WARM_GOAL_S, WARM_MAX_S = 3.0, 10.0


def _doctor_process(case: dict, folder: Path, *extra: str) -> tuple[float, int, list]:
    """One `workbench doctor --json` process: (seconds, exit code, [(cause, lanes' verdict)])."""
    import subprocess

    from tests.support import reports

    argv = [*reports.argv(case, "doctor", folder), "--json", *extra]
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "workbench", *argv], capture_output=True, timeout=600)
    s = time.perf_counter() - t
    try:
        causes = json.loads(done.stdout)["causes"]
    except (ValueError, KeyError):
        return s, done.returncode, [("no JSON", done.stderr.decode(errors="replace").strip()[-200:])]
    return s, done.returncode, [(c["class"], (c.get("versions") or {}).get("verdict")) for c in causes]


def _memory_mb(pid: int | None) -> dict:
    def field(path: str, name: str) -> float:
        for line in Path(path).read_text().splitlines():
            if line.startswith(name + ":"):
                return round(int(line.split()[1]) / 1024, 1)
        return 0.0

    if pid is None:
        return {}
    return {"rss_mb": field(f"/proc/{pid}/status", "VmRSS"), "pss_mb": field(f"/proc/{pid}/smaps_rollup", "Pss")}


def daemon_main(runs: int, limit: int | None) -> int:
    from tests.support import reports
    from workbench.cli import daemon
    from workbench.lanes import warm

    os.environ.pop(daemon.OFF_ENV, None)
    os.environ.pop(warm.OFF_ENV, None)
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / "doctor_speed_daemon"
    paths = sorted(reports.CASES.glob("*.json"))[:limit]
    print(f"load average before: {os.getloadavg()}")
    t = time.perf_counter()
    _doctor_process(reports.load(reports.CASES / f"{LANE_CASES[0]}.json"), folder / "first")
    print(f"first command (the daemon and the warm lanes started): {time.perf_counter() - t:.1f} s")
    for case_id in LANE_CASES[1:]:  # every lane's server warm before the measured runs
        _doctor_process(reports.load(reports.CASES / f"{case_id}.json"), folder / "first")
    warm_s, per_report = [], {}
    for path in paths:
        case = reports.load(path)
        times = []
        for _ in range(runs):
            s, rc, verdicts = _doctor_process(case, folder / path.stem)
            times.append(s)
        warm_s += times
        asked = sum(1 for _, v in verdicts if v)
        per_report[path.stem] = {"warm_s": round(statistics.median(times), 2), "rc": rc, "lanes_verdicts": asked}
        print(f"{path.stem[:60]:60} warm {statistics.median(times):5.2f} s  rc {rc}  lanes' verdicts {asked}")
    # read while they are warm and this checkout's: the cold runs below leave them idle
    pid = daemon.server_pid(daemon.socket_path().with_suffix(".pid"))
    lane_pids = [warm._server_pid(warm.socket_path(v).with_suffix(".pid")) for v in reports.VERSIONS[1:]]
    memory = {"daemon": _memory_mb(pid),
              "warm_lanes_rss_mb": round(sum(_memory_mb(p).get("rss_mb", 0) for p in lane_pids if p), 1)}
    cold = {}
    for case_id in LANE_CASES:
        s, rc, verdicts = _doctor_process(reports.load(reports.CASES / f"{case_id}.json"), folder / "cold",
                                          "--no-daemon")
        cold[case_id] = round(s, 2)
        print(f"{case_id[:60]:60} cold {s:5.2f} s (--no-daemon)  {verdicts}")
    med, worst = statistics.median(warm_s), max(warm_s)
    print(f"warm: median {med:.2f} s, max {worst:.2f} s over {len(paths)} reports x {runs}; cold median "
          f"{statistics.median(cold.values()):.2f} s; memory {memory}")
    print(f"load average after: {os.getloadavg()}")
    print(json.dumps({"bench": "doctor_speed_daemon", "goal_s": {"median": WARM_GOAL_S, "max": WARM_MAX_S},
                      "warm_median_s": round(med, 2), "warm_max_s": round(worst, 2),
                      "cold_median_s": round(statistics.median(cold.values()), 2),
                      "ratio": round(statistics.median(cold.values()) / med, 1), "memory": memory,
                      "reports": len(paths), "load_average": os.getloadavg(), "cold": cold, "runs": per_report}))
    return 0 if med <= WARM_GOAL_S and worst <= WARM_MAX_S else 1


def main() -> int:
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Setup
    from workbench.core.tokenizers import load_tokenizer

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tokenizer", action="append", help="only these (default: every built-in one)")
    ap.add_argument("--lanes", action="store_true", help="doctor with every lane's verdict, warm and cold")
    ap.add_argument("--daemon", action="store_true", help="`workbench doctor` processes over every report: warm "
                    "daemon, and cold beside it")
    ap.add_argument("--reports", type=int, help="--daemon: only the first N reports")
    args = ap.parse_args()
    if args.daemon:
        return daemon_main(args.runs, args.reports)
    if args.lanes:
        return lanes_main(args.runs)
    print(f"load average before: {os.getloadavg()}")
    out = {}
    for name, ((tool, reasoning), text) in texts().items():
        if args.tokenizer and name not in args.tokenizer:
            continue
        t = time.perf_counter()
        load_tokenizer(name)
        load_s = time.perf_counter() - t
        for label, spec in (("configured", ParserSpec(tool, reasoning)), ("none", ParserSpec())):
            setup = Setup(name, spec, RequestSpec(tools=TOOLS))
            r = measure(setup, text, args.runs, Setup(name, ParserSpec(tool, reasoning), RequestSpec(tools=TOOLS)))
            out[f"{name}/{label}"] = r
            print(f"{name:15} {label:10} {r['tokens']} tokens: doctor {r['doctor_s']:6.2f} s median "
                  f"(replay {r['replay_s'] * 1000:.0f} ms, x{r['ratio']}), causes {r['causes']}"
                  f"{f'; tokenizer load {load_s:.1f} s' if label == 'configured' else ''}")
    worst = max(r["doctor_s"] for r in out.values())
    print(f"load average after: {os.getloadavg()}")
    print(json.dumps({"bench": "doctor_speed", "goal_s": GOAL_S, "worst_median_s": worst,
                      "ratio": round(worst / GOAL_S, 2), "load_average": os.getloadavg(), "runs": out}))
    return 0 if worst <= GOAL_S else 1


if __name__ == "__main__":
    sys.exit(main())
