"""One cell's run (conformance/runs.py): what a cell says when vllm-rs refuses the request."""

from __future__ import annotations

import pytest

from workbench.lanes import versions


@pytest.mark.slow  # a lane and a vllm-rs frontend start (30-60 s)
def test_a_refused_rust_cell_carries_vllm_rs_own_message():
    """vllm-rs refuses every gemma4 request over the shipped tokenizers (HTTP 500); the cell
    says why in vllm-rs's words, not only the status, and the known divergence allows it."""
    from workbench.conformance import run as run_mod
    from workbench.conformance.cases import CASES_DIR, load_cases
    from workbench.conformance.runs import has_rust

    lane = next((v for v in versions.listed() if has_rust(v) and not versions.is_installed(v)), None)
    if lane is None:
        pytest.skip("no lane with vllm-rs in setup/vllm-lanes.lock")
    cases = load_cases([str(CASES_DIR / "gemma4" / "one-call.toml")])
    got = run_mod.run(cases, run_mod.Options(versions=[lane], frontends=["rust"], groupings=["whole"], workers=1))
    (cell,) = got.cells
    head = f"vllm-rs {lane} answered HTTP 500: "
    assert cell["verdict"] == "error" and cell["detail"].startswith(head), cell["detail"]
    assert "gemma4" in cell["detail"][len(head):]  # vllm-rs's own reason names the parser it refused
    assert cell["allowed"] is not None
