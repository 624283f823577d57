"""The notebook layer: ipywidgets over the widget-free core.

``Workbench`` and ``show`` load ipywidgets on first use, so ``workbench.ui.model``
and ``final`` (the logic the widget renders) import without it.
"""

from __future__ import annotations

__all__ = ["Workbench", "show", "parsers", "require_gpu", "NoGPU"]


def __getattr__(name: str):
    if name == "Workbench":
        from workbench.ui.widget import Workbench

        return Workbench
    if name in ("show", "parsers", "require_gpu", "NoGPU"):
        from workbench.ui import api

        return getattr(api, name)
    raise AttributeError(f"module 'workbench.ui' has no attribute {name!r}")
