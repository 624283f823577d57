"""What `workbench check` reports: one ``Finding`` per thing that differs."""

from __future__ import annotations

from dataclasses import dataclass, field

# kind: what was compared
STREAM_VS_NONSTREAM = "stream_vs_nonstream"  # accumulated stream vs the non-streaming answer
CHUNKING = "chunking"  # another grouping of the same tokens vs one-token deltas
CONTRACT = "contract"  # a client-contract rule broken by the chunks themselves
ERROR = "error"  # the parser raised

# severity: "error" fails `check`; "cosmetic" (whitespace, None vs "") only with --strict
SEVERE = "error"
COSMETIC = "cosmetic"


@dataclass
class Finding:
    kind: str
    field: str  # tool_calls, content, reasoning, finish_reason
    first_step: int | None  # 1-based delta of ``chunking`` from which it can no longer match
    chunking: str  # the grouping it was seen with: token, whole, split:K, random:SEED#I, ...
    stream: object  # the streamed value (raw view)
    nonstream: object  # the reference value: the non-streaming answer, or the one-token stream
    severity: str = SEVERE
    detail: str = ""
    normalised: dict | None = None  # {"stream", "nonstream"} when the normalised view differs
    extra: dict = field(default_factory=dict)  # e.g. minimal grouping / minimal text

    @property
    def cosmetic(self) -> bool:
        return self.severity == COSMETIC

    def to_dict(self) -> dict:
        d = {"kind": self.kind, "field": self.field, "first_step": self.first_step,
             "chunking": self.chunking, "stream": self.stream, "nonstream": self.nonstream,
             "severity": self.severity, "detail": self.detail}
        if self.normalised is not None:
            d["normalised"] = self.normalised
        d.update(self.extra)
        return d

    def headline(self) -> str:
        step = f" from step {self.first_step}" if self.first_step else ""
        return f"[{self.severity}] {self.kind} {self.field} ({self.chunking}{step}): {self.detail}"
