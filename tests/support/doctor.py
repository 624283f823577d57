"""`workbench doctor --json` on the installed vLLM, as the doctor tests call it."""

from __future__ import annotations

import json


def doctor(run_cli, *argv):
    code, out, err = run_cli("doctor", "--json", "--vllm", _installed(), *argv)
    assert "Traceback" not in err, err
    return code, json.loads(out)


def _installed() -> str:
    from workbench.lanes.versions import installed

    return installed()  # the installed version only: no lane (tests/lanes/test_lane.py has the lanes)
