"""The widget state a reloaded page asks the kernel for, by model kind.

On a page reload JupyterLab's widget manager sends one ``request_states`` on the control
comm and waits 4 s for the answer (every live widget's state, in one message), else falls
back to asking each model alone. This runs the cells of the look browser test's notebook
(tests/ui/test_browser.py LOOK) and notebook 01's workbench cells in-process and sums the
state ipywidgets would send (``Widget._handle_control_comm_msg``: ``get_state()`` of every
instance) by model kind. Prints a table, then one JSON line (last).
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def state_by_kind() -> dict[str, list[int]]:
    from ipywidgets.widgets.widget import _instances, _remove_buffers

    kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for w in list(_instances.values()):
        state, _, buffers = _remove_buffers(w.get_state())
        kind = state.get("_anywidget_id") or w._model_name
        kinds[kind][0] += 1
        kinds[kind][1] += len(json.dumps(state)) + sum(len(b) for b in buffers)
    return dict(kinds)


def answer_seconds() -> float:
    """What ipywidgets does for one request_states (it also makes get_manager_state() and
    drops it), and the JSON the kernel's session encodes it to."""
    from ipywidgets.widgets.widget import Widget, _instances, _remove_buffers

    t = time.perf_counter()
    Widget.get_manager_state()
    full = {w.model_id: {"model_name": w._model_name, "state": w.get_state()} for w in list(_instances.values())}
    full, _, _ = _remove_buffers(full)
    json.dumps({"method": "update_states", "states": full})
    return time.perf_counter() - t


def main() -> None:
    from tests.support.browser_notebooks import LOOK

    scope: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):  # display() without a front end prints
        for cell in LOOK:
            exec(cell, scope)  # noqa: S102 - the test's own cells
    kinds = state_by_kind()
    answer_s = min(answer_seconds() for _ in range(3))
    total = sum(n for _, n in kinds.values())
    for kind, (count, n) in sorted(kinds.items(), key=lambda kv: -kv[1][1]):
        print(f"{kind:45s} {count:5d} models {n / 1000:9.1f} KB")
    print(f"{'total':45s} {sum(c for c, _ in kinds.values()):5d} models {total / 1000:9.1f} KB")
    print(f"the kernel's request_states answer, made and encoded: {answer_s * 1000:.0f} ms (best of 3)")
    print(json.dumps({"bench": "widget_state", "notebook": "look", "bytes": total, "answer_s": round(answer_s, 3),
                      "kinds": {k: v for k, v in kinds.items()}}))


if __name__ == "__main__":
    main()
