"""Parser workbench: see every delta vLLM's reasoning and tool parsers produce."""

from workbench.core import env  # noqa: F401
from workbench.errors import WorkbenchError

__all__ = ["WorkbenchError", "Workbench", "show", "parsers", "require_gpu", "NoGPU", "corpus", "faces"]


def __getattr__(name: str):
    # Lazy: `import workbench` must not load ipywidgets (or vLLM).
    if name in ("Workbench", "show", "parsers", "require_gpu", "NoGPU"):
        import workbench.ui as ui

        return getattr(ui, name)
    if name == "faces":  # workbench.faces(wb): the widget's stream on Chat, Responses and Messages
        from workbench.ui.api_frames import faces

        return faces
    if name == "corpus":  # the package, callable: workbench.corpus("folder/", ...) -> DataFrame
        import importlib

        return importlib.import_module("workbench.corpus")
    raise AttributeError(f"module 'workbench' has no attribute {name!r}")
