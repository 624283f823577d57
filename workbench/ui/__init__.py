"""The notebook layer: ipywidgets over the widget-free core.

``Workbench`` and ``show`` load ipywidgets on first use, so the widget-free modules
(marked *) import without it.

    api.py            workbench.show(...), workbench.parsers(), require_gpu() / NoGPU
    widget.py         Workbench: the panels around a WorkbenchModel; mixins below
    model.py        * the state and actions, no widgets (tests drive it directly)
    inputs.py       * what the controls say, as plain data: Inputs -> Setup
    sources.py      * where a widget's rows come from (widget-free adapters)
    engine_adapter.py   each widget's own EngineStepper behind the source shape
    recordings.py   * settings from a recording's header; saving the stream so far
    choices.py      * what the pickers offer, and setting a picker to a value
    truth.py        * the what-runs line: parser class and origin, vLLM, API, stream
    final.py        * stream vs non-stream final fields, first divergent step; FIELD_COLUMNS
    faces_view.py   * a row's events on the picked API; every API's final beside its body
    ab_apis.py      * the sides of an A/B over two APIs, compared by core.diff
    page_table.py   * the table component without a kernel (corpus/html.py): table.js/css inlined
    api_frames.py     workbench.faces(wb): a stream on each API, frames and tables from one schema
    controls.py       the control panel: pickers, editors, buttons, status lines
    settings.py       mixin: settings that cannot apply are refused as they are picked
    views.py          mixin: the table, the detail, the final tab, the status summary
    takeaway.py       mixin: Save, copy JSON, JSONL, and the same from Python
    running.py        Run streams rows as they arrive in short slices, so Stop is heard
    table.py          RecordTable (records under a column schema) and DeltaTable (rows, strip, cost chart)
    shared.py         one copy of each front-end module per kernel (a Module widget; stubs wait for it)
    panels.py         the banner and the shared HTML (theme colours, a row's properties)
    detail.py         the selected row in full: properties, tokens, states, events (tables)
    final_panel.py    the final-message tab, field by field
    check.py          the check panel: findings, the minimal grouping, the pytest export
    ab.py             A/B: the same table twice, scrolled together, differing steps marked
    editor.py         the live config editor (CodeMirror bundle) with its problems banner
    diagram.py        the parser's state machine (dagre bundle), current state lit
    static/           table.js / table.css (own ES module), editor.js / diagram.js (built from js/)
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
