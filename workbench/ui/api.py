"""``workbench.show(...)``: one call renders a Workbench inline."""

from __future__ import annotations


def show(text: str | None = None, *, run: bool = False, steps: int = 0, **kwargs):
    """Build a ``Workbench``, display it, then optionally load, step or run it.

    ``show("<think>…</think>…", tool_parser="hermes", reasoning_parser="qwen3", run=True)``
    or ``show(recording="parsers/recordings/….jsonl")``. Returns the widget.
    Errors while stepping land in the widget's banner, never in the cell.
    """
    from IPython.display import display

    from workbench.ui.widget import Workbench

    wb = Workbench(text, **kwargs)
    display(wb)
    if run:
        wb._guard(lambda: wb.run(), "Run")()
    elif steps:
        wb._guard(lambda: wb.step(steps), "Step")()
    return wb
