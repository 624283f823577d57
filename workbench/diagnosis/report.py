"""The doctor's report and its parts, as types: ``Diagnosis`` (a setting found wrong),
``DoctorOptions`` and ``DoctorReport`` (causes, diagnoses, the evidence behind them).

Types first, in their own module: the diagnosis (diagnosis/diagnose.py), the configuration's
(diagnosis/config/diagnoses.py) and the bug report (diagnosis/bugreport.py) all name them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from workbench.diagnosis.facts import PARSER, Cause

PROBLEM, NOTE = "problem", "note"


@dataclass
class Diagnosis:
    code: str
    severity: str  # problem | note
    message: str
    fix: str = ""
    evidence: dict = field(default_factory=dict)


@dataclass
class DoctorOptions:
    fuzz: int = 10
    shrink_budget_s: float = 2.0
    text_budget_s: float = 2.0
    jobs: int = 0
    evidence_only: bool = False  # check's findings and a parser that cannot start: what "fixed in" reads


@dataclass
class DoctorReport:
    setup: dict
    causes: list[Cause] = field(default_factory=list)
    diagnoses: list[Diagnosis] = field(default_factory=list)
    findings: list = field(default_factory=list)  # check's Differences: the evidence
    modes: dict = field(default_factory=dict)  # {"stream", "nonstream", "parser_content"}
    tool_parsers: list[dict] = field(default_factory=list)  # ranked, those that extract calls
    reasoning_parsers: list[dict] = field(default_factory=list)
    failures: list[dict] = field(default_factory=list)  # {"kind", "parser", "error"}
    checked: dict = field(default_factory=dict)
    context: object = None  # (session, deltas, check report) for --report; not serialised

    def parser_causes(self) -> list:
        return [c for c in self.causes if c.cls in PARSER]

    @property
    def ok(self) -> bool:
        return not any(c.severity == "error" for c in self.causes) and \
            not any(d.severity == PROBLEM for d in self.diagnoses)

    def to_dict(self) -> dict:
        return {"ok": self.ok, "setup": self.setup, "causes": [c.to_dict() for c in self.causes],
                "diagnoses": [asdict(d) for d in self.diagnoses],
                "findings": [f.to_dict() for f in self.findings], "modes": self.modes,
                "tool_parsers": self.tool_parsers, "reasoning_parsers": self.reasoning_parsers,
                "failures": self.failures, "checked": self.checked, "not_reproduced": self.not_reproduced()}

    def not_reproduced(self) -> dict | None:
        """With no cause and no problem: says so, and names what was tried (never a guess)."""
        if self.causes or any(d.severity == PROBLEM for d in self.diagnoses):
            return None
        s, c = self.setup, self.checked
        parser = s.get("parser") or {}
        return {"verdict": f"not reproduced here (vLLM {s.get('vllm')})", "tried": [
            f"vLLM {s.get('vllm')}: {parser.get('config') or parser.get('tool_parser') or 'no tool parser'} + "
            f"{parser.get('reasoning_parser') or 'no reasoning parser'} on the {s.get('tokenizer')} tokenizer",
            f"stream vs non-stream over the {s.get('chunking')} grouping ({s.get('deltas')} deltas, finish_reason "
            f"{s.get('finish_reason')}): they agree",
            f"{c.get('groupings', 0)} other groupings of the {c.get('tokens', '?')} tokens "
            f"({c.get('two_chunk_splits', 0)} two-chunk splits): none changes the answer",
            "the text: no call left open, no word that reaches no field, no markup in a text field",
            "the client contract in every chunk, and the request's settings"]}
