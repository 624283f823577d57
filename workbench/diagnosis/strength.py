"""Which evidence ranks a cause: the doctor's rule, written down as data.

Causes are ordered by severity (an error before a warning), then by the strongest kind of
evidence behind each, in ``EVIDENCE``'s order; causes ranked by the same kind keep the
order diagnosis/causes.py found them in. An answer a client cannot parse is the broken one,
whatever the word count; a cause a later vLLM fixed outranks one only the groupings or a
count of words point at.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.core.messages import COSMETIC, SEVERE, WARNING

if TYPE_CHECKING:
    from collections.abc import Iterable

    from workbench.diagnosis.facts import Cause

# (kind, what it is), strongest first
EVIDENCE: tuple[tuple[str, str], ...] = (
    ("configuration", "a setting tried and found wrong: the parser, the tools, the template, the request's constraint"),
    ("contract", "a client contract broken: arguments that are not valid JSON, an unknown tool, a call without a "
                 "name, a parser that raises, a finish_reason that contradicts the calls"),
    ("markup", "a mode that matches the text's own markup (a call left open, markup no field carries)"),
    ("version", "a version where it is fixed"),
    ("groupings", "agreement across groupings"),
    ("words", "word counts: one mode carries words of the text the other does not"),
    ("timing", "when the bytes arrive: the answer is right, only late"),
)
KINDS = tuple(k for k, _ in EVIDENCE)
WHAT = dict(EVIDENCE)
_SEVERITY = {SEVERE: 0, WARNING: 1, COSMETIC: 2}


def key(cause: Cause) -> tuple[int, int]:
    return _SEVERITY.get(cause.severity, 3), KINDS.index(cause.ranked_by)


def ordered(causes: Iterable[Cause]) -> list[Cause]:
    """``causes`` by severity, then evidence (a stable sort: the finder's order within a kind)."""
    return sorted(causes, key=key)


def by(kind: str, causes: list[Cause]) -> list[Cause]:
    """``causes``, each ranked by ``kind``."""
    for c in causes:
        c.ranked_by = kind
    return causes


def with_versions(causes: list[Cause]) -> list[Cause]:
    """After the lanes answered: a cause gone in a later version is ranked by that, where
    its own evidence was weaker; the causes ordered again."""
    for c in causes:
        fixed = (c.versions or {}).get("fixed_in")
        if fixed and KINDS.index(c.ranked_by) > KINDS.index("version"):
            c.ranked_by = "version"
    causes[:] = ordered(causes)
    return causes
