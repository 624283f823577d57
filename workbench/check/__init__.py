"""Find and pin parser bugs: stream vs non-stream, chunking invariance, the client
contract and parser cost, over vLLM's own parsers (widget-free)."""

from workbench.check.findings import Finding
from workbench.check.suite import Checker, Options, Report, check

__all__ = ["Finding", "Checker", "Options", "Report", "check"]
