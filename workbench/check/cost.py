"""Parser cost per delta along the stream, with super-linear growth flagged.

A parser that re-reads everything it has seen on each delta (the classic
``current_text`` re-parse) costs more per delta the longer the stream runs, so
the whole stream costs O(n^2). We time one-token replays (the minimum of a few
runs per delta, to shed scheduler noise), split the stream into phase segments
(reasoning / content / tool: their costs differ by design), fit cost against
token position per segment, and flag a segment whose fitted cost at least
doubles (and grows by tens of µs) from its first to its last delta.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from workbench.core.deltas import Delta
    from workbench.core.session import Session

GROWTH_FLAG = 2.0  # fitted last/first per-delta cost
MIN_GROWTH_US = 25.0  # and at least this much more per delta: timer noise is a few µs
MIN_SEGMENT = 48  # deltas; shorter segments are too noisy to fit
MIN_R2 = 0.3


def per_delta_us(session: Session, token_deltas: Sequence[Delta], repeats: int = 3) -> tuple[list[float], list[str]]:
    """(min µs per delta over ``repeats`` one-token replays, phase of each delta)."""
    best: list[float] | None = None
    phases: list[str] = []
    for _ in range(repeats):
        run = session.stream(keep_rows=False)  # rows read as they come: a long stream holds none
        us, phases = [], []
        for d in token_deltas:
            r = run.feed(d)
            us.append(r.parser_us)
            phases.append(r.phase_before)
        best = us if best is None else [min(a, b) for a, b in zip(best, us)]
    return best or [], phases


def fit(xs: list[float], ys: list[float]) -> tuple[float, float, float]:
    """Least squares y = a + b x: (a, b, r^2)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    syy = sum((y - my) ** 2 for y in ys)
    b = sxy / sxx if sxx else 0.0
    r2 = (sxy * sxy / (sxx * syy)) if sxx and syy else 0.0
    return my - b * mx, b, r2


def segments(phases: list[str]) -> list[tuple[str, int, int]]:
    """(phase, start, end) runs, end exclusive."""
    out, start = [], 0
    for i in range(1, len(phases) + 1):
        if i == len(phases) or phases[i] != phases[start]:
            out.append((phases[start], start, i))
            start = i
    return out


def profile(session: Session, token_deltas: Sequence[Delta], repeats: int = 3) -> dict:
    return analyse(*per_delta_us(session, token_deltas, repeats))


def analyse(us: list[float], phases: list[str]) -> dict:
    """Fit each phase segment of per-delta costs; flag super-linear growth."""
    segs = []
    for phase, a, b in segments(phases):
        if b - a < MIN_SEGMENT:
            continue
        xs, ys = [float(i) for i in range(a, b)], us[a:b]
        icpt, slope, r2 = fit(xs, ys)
        first, last = icpt + slope * a, icpt + slope * (b - 1)
        growth = last / max(first, 1.0)
        segs.append({"phase": phase, "from_step": a + 1, "to_step": b, "first_us": round(first, 1),
                     "last_us": round(last, 1), "slope_us_per_token": round(slope, 3),
                     "r2": round(r2, 2), "growth": round(growth, 2),
                     "superlinear": growth >= GROWTH_FLAG and last - first >= MIN_GROWTH_US and r2 >= MIN_R2})
    worst = max(segs, key=lambda s: s["growth"], default=None)
    return {"deltas": len(us), "total_us": round(sum(us), 1),
            "mean_us": round(sum(us) / len(us), 1) if us else 0.0,
            "per_delta_us": [round(x, 1) for x in us],
            "segments": segs, "superlinear": any(s["superlinear"] for s in segs),
            "worst": worst}


def summary(cost: dict) -> str:
    w = cost.get("worst")
    head = f"parser cost: {cost['total_us'] / 1000:.1f} ms over {cost['deltas']} deltas " \
           f"({cost['mean_us']:.0f} µs/delta)"
    if not w:
        return head
    flag = "SUPER-LINEAR" if cost["superlinear"] else "flat"
    return (f"{head}; {flag}: {w['phase']} steps {w['from_step']}-{w['to_step']} "
            f"{w['first_us']:.0f} → {w['last_us']:.0f} µs/delta (×{w['growth']})")
