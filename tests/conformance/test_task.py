"""A matrix task (conformance/task.py): one case on one version and frontend, every API x
grouping, its cells in order; an exception raised for one API fails that API's cells only."""

from __future__ import annotations

import pytest

from workbench.conformance import run as run_mod, runs, task
from workbench.conformance.cases import CASES_DIR, load_cases


@pytest.fixture(scope="module")
def payload():
    case = load_cases([str(CASES_DIR / "hermes" / "one-call.toml")])[0]
    opt = run_mod.check_options(run_mod.Options(apis=["chat", "responses"], groupings=["whole", "token"]))
    (_, _, got), = run_mod.payloads([case], opt)
    return got


def test_cells_are_api_major_then_grouping(payload):
    line = task.run(task.Spec().to_dict(), payload["case"], "k", payload)
    assert [(c["api"], c["grouping"], c["verdict"]) for c in line["cells"]] == [
        ("chat", "whole", "match"), ("chat", "token", "match"),
        ("responses", "whole", "match"), ("responses", "token", "match")]


def test_an_exception_in_one_api_fails_only_its_cells(payload, monkeypatch):
    here = runs._here

    def raising(session, deltas, api):
        if api == "responses":
            raise ValueError("the events could not be built")
        return here(session, deltas, api)

    monkeypatch.setattr(runs, "_here", raising)
    line = task.run(task.Spec().to_dict(), payload["case"], "k", payload)
    assert line["error"] is None
    assert [(c["api"], c["verdict"], c["detail"]) for c in line["cells"]] == [
        ("chat", "match", None), ("chat", "match", None),
        ("responses", "error", "ValueError: the events could not be built"),
        ("responses", "error", "ValueError: the events could not be built")]
