"""The reading door's refusals at the size caps, against parsing a valid input of the same size.

Hostile JSON (a tools file) and TOML (a config) at their 1 MB caps: nesting a million
deep, integers of a million digits, a dotted key of 500,000 parts. Each refusal is timed
beside the stdlib parser on a valid document of the same size (tests/core/test_door.py only
checks that these never reach the parser: timing is this bench's job). For scale, what
tomllib itself takes on a dotted key of 5,000 parts: its cost grows with the square
of the parts, which is why the door refuses more than 64 before parsing. Prints one
JSON line, last; ``ratio`` = the slowest refusal / its valid twin's parse (goal <= 1.5:
a refusal costs no more than parsing, within timer noise).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SIZE = 1 << 20  # limits.MAX_TEXT_BYTES and MAX_CONFIG_BYTES


def cases():
    n = SIZE - 16
    valid_json = json.dumps([{"name": f"tool_{i}", "n": i} for i in range(n // 28)])[:n].rsplit("},", 1)[0] + "}]"
    valid_toml = "".join(f"k{i} = {i}\n" for i in range(n // 14))[:n].rsplit("\n", 2)[0] + "\n"
    return [
        ("json", "nested 1,000,000 deep", "[" * n, valid_json),
        ("json", "an integer of 1,000,000 digits", "9" * n, valid_json),
        ("toml", "nested 1,000,000 deep", "a = " + "[" * n, valid_toml),
        ("toml", "a dotted key of 500,000 parts", "a." * (n // 2) + "b = 1", valid_toml),
        ("toml", "an integer of 1,000,000 digits", "a = " + "9" * n, valid_toml),
    ]


def best(fn, rounds: int) -> float:
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out)


def main() -> None:
    from workbench.core import door

    rounds = 5
    rows = []
    for kind, what, hostile, valid in cases():
        parse = door.parse_json if kind == "json" else door.parse_toml

        def refuse(text=hostile, parse=parse):
            try:
                parse(text, "bench")
            except door.InputError:
                return
            raise AssertionError(f"{kind} {what}: not refused")

        stdlib = (lambda t=valid: json.loads(t)) if kind == "json" else (lambda t=valid: tomllib.loads(t))
        r, v = best(refuse, rounds), best(stdlib, rounds)
        rows.append({"input": f"{kind}: {what}", "bytes": len(hostile), "refused_ms": round(r * 1e3, 1),
                     "valid_parse_ms": round(v * 1e3, 1), "ratio": round(r / v, 3)})
        print(f"{kind:<4} {what:<32} refused in {r * 1e3:7.1f} ms; a valid {len(valid):,}-byte document "
              f"parses in {v * 1e3:6.1f} ms (x{r / v:.2f})")
    t0 = time.perf_counter()
    tomllib.loads("a." * 5000 + "b = 1")
    dotted = time.perf_counter() - t0
    print(f"tomllib alone on a dotted key of 5,000 parts (10 kB): {dotted:.2f} s")
    print(json.dumps({"bench": "door_caps", "rounds": rounds, "cases": rows,
                      "tomllib_dotted_5000_s": round(dotted, 2),
                      "ratio": max(r["ratio"] for r in rows), "goal": 1.5,
                      "median_ratio": round(statistics.median(r["ratio"] for r in rows), 3)}))


if __name__ == "__main__":
    main()
