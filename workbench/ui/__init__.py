"""The notebook layer: ipywidgets over the widget-free core.

``Workbench`` and ``show`` load ipywidgets on first use, so the widget-free modules
(marked *) import without it. One state behind every line on screen: the controller owns
it, every action is a transition ``(state, runtime) -> state``, every panel a view of it.

    api.py            workbench.show(...), parsers(), flags(...), require_gpu() / NoGPU
    state.py        * State (frozen): settings, the stream and what made it, selection, outcome, drafts
    controller.py   * Controller: runs each action behind the error boundary, keeps the state; Run/Stop, one writer
    runtime.py      * what a state refers to: the session, the source, the engine request, by stream id; Save
    transitions.py  * the stream's actions: Step, a Run's slice, Stop, Reset, Replay, a recording, a row
    settings.py     * a picker or box (refused when it cannot go with the others), a recording, the config editor
    plugin_editor.py * the editor's reload: its TOML config or Python plugin (core/live_plugin.py) as the parser; its language
    tools.py        * Check, the minimal grouping and text, A/B, Save, Export on the stream on screen
    diagnose.py     * doctor on the stream on screen, its report and test; workbench.doctor(...)
    views.py        * what each line says: status, settings title, banner, verdicts, check counts, Help
    what_runs.py    * the what-runs line: parser class and origin, vLLM, API, stream
    inputs.py       * what the controls say, as plain data: Inputs -> Setup; Workbench(...)'s checks
    sources.py      * where a widget's rows come from (widget-free adapters)
    engine_adapter.py * each widget's own EngineStepper behind the source shape
    recordings.py   * settings from a recording's header; a recording's deltas, opened once; the stream written
    choices.py      * what the pickers offer, and setting a picker to a value
    final.py        * stream vs non-stream final fields, first divergent step; FIELD_COLUMNS
    faces_view.py   * a row's events on the picked API; every API's final beside its body
    ab_apis.py      * the sides of an A/B over two APIs, compared by core.diff; a spec's label
    surface.py      * Surface: what screen, wiring and takeaway hold of a Workbench (its panels, its actions)
    widget.py         Workbench: the panels, one Controller, the notebook methods
    wiring.py         every control sends an action to the controller
    screen.py         draws a state: each panel from its part of the state, only where it changed
    takeaway.py       Save, Copy JSON, JSONL, the doctor's report and test, and the same from Python
    api_frames.py     workbench.faces(wb): a stream on each API, frames and tables from one schema
    frame_table.py    workbench.table(frame): a DataFrame or records in the widget's table, nothing cut
    matrix_view.py    workbench.matrix(...): the conformance matrix drawn in the cell (a button per cell), a DataFrame back
    controls.py       the control panel: pickers, boxes, buttons, the two status lines
    table.py          RecordTable (records under a column schema) and DeltaTable (rows, strip, cost chart)
    shared.py         one copy of each front-end module per kernel (a Module widget; stubs wait for it)
    panels.py         the banner and the shared HTML (theme colours, a row's properties)
    detail.py         the selected row in full: its header, properties, tokens, states, events (tables)
    final_panel.py    the final-message tab, field by field, and every API's final
    check.py          the check tab: findings, the minimal grouping, the pytest export
    doctor_panel.py   the Diagnose tab: causes, where in vLLM, versions, the report to download
    ab.py             A/B: the same table twice, scrolled together, differing steps marked
    editor.py         the live parser editor, TOML or Python (CodeMirror bundle), with its problems banner
    diagram.py        the parser's state machine (dagre bundle), current state lit, whose machine it is
    static/           table.js / table.css (own ES module), editor.js / diagram.js (built from js/)

Alike on purpose (`duplicates` lists them): state.py's and widget.py's read-only properties
(each hands on one part of the state; the widget's are its notebook face); static/table.js's
``Strip`` and ``CostChart`` constructors (each class's own fields).
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
