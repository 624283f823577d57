"""ui/tools.py: the widget's A/B across vLLM versions says where a version fixed a finding.

``session_for`` gives the installed vLLM's session for any version (no lane starts): what is
tested is that the A/B's verdict line carries lanes/version_diff's words.
"""

from __future__ import annotations

from tests.support.seed import WEATHER_TOOLS
from workbench.lanes import version_diff

PRETTY = ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n"
          "```json\n{\n  \"city\": \"Paris\"\n}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>")


def test_ab_across_versions_names_what_each_version_shows(monkeypatch):
    from workbench import Workbench

    real = version_diff.session_for
    monkeypatch.setattr(version_diff, "session_for", lambda setup, version, ids=None: real(setup, None, ids))
    wb = Workbench(PRETTY, tools=WEATHER_TOOLS, tokenizer="deepseek_v3", tool_parser="deepseek_v3")
    wb.run()
    res = wb.compare("deepseek_v3@0.32.0", "deepseek_v3@0.33.0")
    assert res.across_versions and (res.label_a, res.label_b) == ("deepseek_v3@0.32.0", "deepseek_v3@0.33.0")
    status = wb.controls.status.value
    assert "A/B: A and B agree · stream_vs_nonstream " in status
    assert "stream_vs_nonstream tool_calls: not fixed in any version here" in status
    wb.compare("deepseek_v3", "hermes@0.33.0")  # two parsers: no version's verdict
    assert "not fixed" not in wb.controls.status.value
