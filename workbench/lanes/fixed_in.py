"""'Fixed in' over every vLLM version: the first that fixes a finding, any that brings it back.

A finding (or a doctor's cause) is looked for in each version: present, gone, or not known
(the version could not run it). In version order (oldest first, whichever were listed),
each change is an event: present -> gone "fixed in V", gone -> present "back in V" after
an earlier presence, else "new in V". doctor, check's version matrix, A/B across versions
and the corpus's versions mode say it with ``timeline``, so a line added to
setup/vllm-lanes.lock is read the same way everywhere.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

NOT_FIXED = "not fixed in any version here"


def version_key(version: str) -> tuple:
    """'0.34.0' < '0.34.1rc1' < '0.34.1' < '0.100.0', by packaging's rules when it parses."""
    try:
        from packaging.version import Version

        return (0, Version(version))
    except Exception:  # not a PEP 440 version: after the others, by name
        return (1, version)


def ordered(versions: Iterable[str]) -> list[str]:
    return sorted(dict.fromkeys(versions), key=version_key)


def timeline(states: Mapping[str, bool | None]) -> dict:
    """``states``: version -> True (present), False (gone), None (not known). Returns
    {"order", "fixed_in" (the first version that fixes it, or None), "back_in" [versions that
    bring it back], "new_in" (where it first appears after being absent, or None), "changes"
    [("fixed" | "back" | "new", version)], "events" (each change as "fixed in V"), "text",
    "unknown" [versions not known]}: the text is the events joined, "not fixed in any version
    here" when it is present in every version known, "" when in none."""
    order = ordered(states)
    known = [(v, states[v]) for v in order if states[v] is not None]
    changes: list[tuple[str, str]] = []
    seen_present = False
    for (_, before), (v, now) in zip(known, known[1:]):
        seen_present = seen_present or before
        if before and not now:
            changes.append(("fixed", v))
        elif now and not before:
            changes.append(("back" if seen_present else "new", v))
    events = [f"{what} in {v}" for what, v in changes]
    fixed_in = next((v for what, v in changes if what == "fixed"), None)
    new_in = next((v for what, v in changes if what == "new"), None)
    back_in = [v for what, v in changes if what == "back"]
    if known and all(state for _, state in known) and len(known) > 1:
        text = NOT_FIXED
    else:
        text = ", ".join(events)
    missing = [v for v in order if states[v] is None]
    return {"order": order, "fixed_in": fixed_in, "back_in": back_in, "new_in": new_in, "changes": changes,
            "events": events, "text": text, "unknown": missing}
