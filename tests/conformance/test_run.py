"""A matrix run's cells against the known divergences (conformance/run.py's allowance): a
divergence names a grouping (markers), a cell carries its concrete chunking (at:...)."""

from __future__ import annotations

from workbench.conformance import cases as cases_mod
from workbench.conformance.run import allowance


def test_a_markers_divergence_allows_a_markers_cell_by_its_grouping(tmp_path):
    path = tmp_path / "known.toml"
    path.write_text('[[divergence]]\nparser = "hermes"\nchunking = ["markers"]\nfield = "tool_calls"\n'
                    'reason = "why"\nlink = "https://example.org/why"\n', encoding="utf-8")
    divergences = cases_mod.load_divergences(path)
    cell = {"case": "hermes/one-call", "vllm": "0.34.0", "frontend": "python", "api": "chat",
            "grouping": "markers", "chunking": "at:1,2,18,19,20", "field": "tool_calls", "verdict": "differs"}
    assert allowance(divergences, cell) == {"reason": "why", "link": "https://example.org/why"}
    assert allowance(divergences, cell | {"grouping": "token", "chunking": "token"}) is None
    assert allowance(divergences, cell | {"field": "content"}) is None
