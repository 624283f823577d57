"""One-call helpers: ``workbench.show(...)``, ``workbench.parsers()``, ``workbench.flags(...)``,
``workbench.require_gpu()``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any


def show(text: str | None = None, *, run: bool = False, steps: int = 0, **kwargs: Any):
    """Build a ``Workbench``, display it, then optionally step or run it.

    ``show("<think>…</think>…", tool_parser="hermes", reasoning_parser="qwen3", run=True)``
    or ``show(recording="parsers/recordings/….jsonl")``. Returns the widget.
    Errors while stepping land in the widget's banner, never in the cell.
    """
    from IPython.display import display

    from workbench.ui.widget import Workbench

    wb = Workbench(text, **kwargs)
    display(wb)
    if wb.banner.kind == "error":  # the recording did not load: its error stays on screen
        return wb
    from workbench.ui import transitions as T

    if run:
        wb.run(raise_errors=False)  # a failure is the banner's line, not the cell's
    elif steps:
        wb.send("Step", T.step, steps)
    return wb


def parsers():
    """vLLM's registries as a table: every tool and reasoning parser name, its class,
    and whether it is engine-based (``workbench parsers`` as a DataFrame)."""
    import pandas as pd

    from workbench.core.parsers import parser_table

    frame = pd.DataFrame(parser_table())
    frame["style"] = frame["engine_based"].map({True: "engine", False: "legacy"}).fillna("error")
    return frame[["kind", "name", "style", "class"]]


class NoGPU(Exception):
    """Raised by ``require_gpu``; Jupyter shows its one line instead of a traceback."""

    def _render_traceback_(self) -> list[str]:
        return [f"NoGPU: {self}"]


def require_gpu() -> str:
    """The GPU's name, or stop the notebook with one line when torch sees no CUDA device."""
    import torch

    if not torch.cuda.is_available():
        raise NoGPU("torch.cuda.is_available() is False: this notebook needs a GPU and stops "
                    "here; notebooks 01-03 run on CPU.")
    return torch.cuda.get_device_name(0)


def flags(line: str) -> dict:
    """A `vllm serve` command line's parser flags as Workbench settings: ``--tool-call-parser``,
    ``--reasoning-parser`` (``--enable-auto-tool-choice`` and the rest carry no setting here).
    ``workbench.show(TEXT, **workbench.flags("--tool-call-parser hermes ..."))``."""
    import shlex

    from workbench.errors import WorkbenchError

    try:
        words = shlex.split(line)
    except ValueError as e:
        raise WorkbenchError(f"flags: {e}") from None
    names = {"--tool-call-parser": "tool_parser", "--reasoning-parser": "reasoning_parser"}
    out: dict = {"tool_parser": None, "reasoning_parser": None}
    for i, w in enumerate(words):
        key, _, value = w.partition("=")
        if key in names:
            value = value or (words[i + 1] if i + 1 < len(words) else "")
            if not value or value.startswith("--"):
                raise WorkbenchError(f"flags: {key} needs a parser name")
            out[names[key]] = value
    return out
