"""ui/screen.py's parser pickers: they list what the kernel's vLLM registered, including a
plugin a cell imports after the widget is shown (refreshed after every cell)."""

from __future__ import annotations

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
