"""ui/screen.py's parser pickers: they list what the kernel's vLLM registered, including a
plugin a cell imports after the widget is shown (refreshed after every cell)."""

from __future__ import annotations

import pytest

from tests.support.owl_plugin import PLUGIN
from tests.support.seed import SEED_TEXT, WEATHER_TOOLS


def test_a_plugin_imported_in_the_kernel_appears_in_the_pickers(tmp_path):
    from workbench import Workbench
    from workbench.core import plugins
    from workbench.ui import screen

    wb = Workbench(SEED_TEXT, tools=WEATHER_TOOLS).load()
    listed = [v for _, v in wb.controls.tool_parser.options]
    assert "hermes" in listed and "owl_kernel" not in listed
    path = tmp_path / "owl_kernel_plugin.py"
    path.write_text(PLUGIN.replace('register_module("owl")', 'register_module("owl_kernel")'))
    plugins.load(path)  # what a cell's `import owl_kernel_plugin` does to vLLM's registry
    screen._after_cell()  # IPython's post_run_cell, after that cell
    assert "owl_kernel" in [v for _, v in wb.controls.tool_parser.options]
    assert wb.controls.tool_parser.value == "hermes"  # the pick stays
    wb.controls.tool_parser.value = "owl_kernel"
    wb.replay()
    assert "OwlToolParser" in wb.controls.truth.value and "from the pickers" in wb.controls.truth.value


def test_drawing_writes_nothing_to_the_runtime_or_the_state(monkeypatch):
    """Every panel draws from the state alone: while a state is drawn, no attribute of the
    controller's Runtime is set and no final is filled in (FinalView is frozen)."""
    from dataclasses import FrozenInstanceError

    from workbench import Workbench
    from workbench.ui import screen
    from workbench.ui.runtime import Runtime

    drawing, writes = [False], []
    setattr_ = Runtime.__setattr__

    def watched(rt, name, value):
        if drawing[0]:
            writes.append(name)
        setattr_(rt, name, value)
    monkeypatch.setattr(Runtime, "__setattr__", watched)
    render = screen.render

    def drawn(wb, old, new):
        drawing[0] = True
        try:
            render(wb, old, new)
        finally:
            drawing[0] = False
    monkeypatch.setattr(screen, "render", drawn)

    wb = Workbench(SEED_TEXT, tools=WEATHER_TOOLS)
    wb.step(3)
    wb.select(2)
    wb.run()
    final = wb.state.final
    assert final is not None and final.apis  # every API's final, made before it was drawn
    for api in ("responses", "messages"):  # the detail's events come from the stream's API faces
        wb.controls.api.value = api
        wb.replay()
        wb.select(4)
        assert screen.row_events(wb.state, 4)  # drawn in the detail: this API's events of step 4
    wb.reset()
    screen._after_cell()
    assert wb.banner.kind != "error", wb.banner.value  # every drawing went through
    assert not writes, f"drawing wrote the runtime's {sorted(set(writes))}"
    with pytest.raises(FrozenInstanceError):
        final.apis = None
