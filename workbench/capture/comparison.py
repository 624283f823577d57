"""A capture against this vLLM, step by step: the one result type of chunk_compare (chat:
the server's chunks) and api_compare (Responses / Messages: the server's events)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.core.messages import Difference


@dataclass
class Comparison:
    steps: list[Difference]  # kind "server", one per step: the server's output (a), this vLLM's (b)
    first_difference: int | None
    cause: str | None
    server_version: str | None
    notes: list[str] = field(default_factory=list)
    api: str = "chat"  # chat: chunks are compared; responses / messages: events
    client: dict = field(default_factory=dict)  # an API's: {"server": SDK over its SSE, "here": over ours}

    @property
    def unit(self) -> str:
        """What is compared: "chunks" (chat) or "events"."""
        return "chunks" if self.api == "chat" else "events"

    def to_dict(self) -> dict:
        out: dict = {"first_difference": self.first_difference, "cause": self.cause,
                     "server_vllm_version": self.server_version, "notes": self.notes,
                     "steps": [s.to_dict() for s in self.steps]}
        return out if self.api == "chat" else {"api": self.api, **out, "client": self.client}
