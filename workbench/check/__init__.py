"""Find and pin parser bugs: stream vs non-stream, chunking invariance, the client
contract and parser cost, over vLLM's own parsers (widget-free)."""

from workbench.check.suite import Checker, Options, Report, check
from workbench.core.messages import Difference

__all__ = ["Difference", "Checker", "Options", "Report", "check"]
