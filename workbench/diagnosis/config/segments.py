"""A config parser's text as the engine read it: the terminals that fired (``Fired``) and the
text cut at them (``Segment``). The types stand alone: where.py makes them, readings.py,
fixes.py and family.py read them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Fired:
    step: int  # the 1-based delta that fed it
    state: str  # the state it met
    terminal: str
    value: str  # the text it matched
    to: str  # the state after it
    events: tuple[str, ...]
    transition: bool  # False: no transition from this state; its text became the state's content


@dataclass(frozen=True)
class Segment:
    """The text in order: a terminal that fired, or content read in one state."""

    state: str
    text: str
    fired: Fired | None = None  # a terminal; None: content
    step: int = 0  # the step the segment ends in
