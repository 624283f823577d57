"""The doctor's types: what it gathered (``Facts``) and what it concludes (``Cause``).

They stand apart from diagnosis/causes.py, which turns the one into the other, so that the
rules it calls (modes, finish, strength) name them without importing it back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from workbench.core.messages import SEVERE

if TYPE_CHECKING:
    from collections.abc import Callable

CALLS_OFF = ("no_tool_parser", "tools_off_in_request", "wrong_tool_parser", "wrong_chat_template")  # config_diagnoses' codes
CLASSES = ("parser_streaming", "parser_nonstreaming", "serving", "configuration", "model_output", "truncation")
PARSER = ("parser_streaming", "parser_nonstreaming")


@dataclass
class Cause:
    cls: str
    summary: str
    evidence: list[str] = field(default_factory=list)
    severity: str = SEVERE  # error | warning | cosmetic
    where: dict | None = None
    findings: list[dict] = field(default_factory=list)  # {"kind", "field"} of check findings behind it
    versions: dict | None = None  # {"checked": [...], "verdict": "fixed in 0.33.0", per version: "present"/"gone"}
    ranked_by: str = "words"  # the kind of evidence that ranks it (strength.EVIDENCE)

    def to_dict(self) -> dict:
        return {"class": self.cls, "summary": self.summary, "severity": self.severity,
                "evidence": self.evidence, "where": self.where, "findings": self.findings,
                "versions": self.versions, "ranked_by": self.ranked_by}



@dataclass
class Facts:
    """What the doctor gathered: check's findings, the two answers, the text."""

    text: str
    finish: str  # how the stream ended (stop, length...)
    stream: object  # Final
    nonstream: object  # Final
    findings: list  # check's Differences
    diagnoses: list  # doctor's configuration Diagnoses (problems)
    markers: list[str]
    literals: list[str]
    pairs: list[tuple[str, str]]
    tool_names: set[str]
    starts: list[str] = field(default_factory=list)  # markers that open tool-call markup
    parallel_tool_calls: bool | None = None
    phase_at: dict = field(default_factory=dict)  # step -> phase of the row
    prompt_ended_reasoning: bool = False  # the parser's is_reasoning_end(prompt ids), as streaming asks it
    reads: Callable | None = None  # coverage.reader: does Parser.parse read these words (syntax, not loss)?
    stream_reads: Callable | None = None  # coverage.stream_reader: the same asked of the streaming path
    step_ends: list[int] = field(default_factory=list)  # the text's length after each step (1-based steps)
    thinking: object = None  # thinking.Thinking, or None without a reasoning parser
    reasoning_deltas: int = 0  # chunks that carried reasoning
