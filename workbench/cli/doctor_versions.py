"""Is a parser cause fixed in another vLLM? `doctor` asks the lanes: ``lanes/asked.py``
(the widget's Diagnose tab asks there too)."""

from __future__ import annotations

from workbench.lanes.asked import attach, findings_in, verdict

__all__ = ["attach", "findings_in", "verdict"]
