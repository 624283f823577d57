"""Parser workbench: see every delta vLLM's reasoning and tool parsers produce."""

from workbench.core import env  # noqa: F401
from workbench.errors import WorkbenchError

__all__ = ["WorkbenchError"]
