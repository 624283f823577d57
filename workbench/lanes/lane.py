"""This process's lanes: one per vLLM version, started once (``get``), closed at exit.

``get(version)`` gives the lane a command or the widget asks: a warm lane's worker
(``warm.py``: a server per version kept after a command, so the next one pays no start)
when warm lanes are on, else a worker process of this process's own (``process.py``:
``Lane``, its requests and ``Stream``). A lane that died is replaced by a new one on the
next ``get``; a forked child starts lanes of its own.
"""

from __future__ import annotations

import atexit
import os
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError
from workbench.lanes import versions
from workbench.lanes.process import (START_TIMEOUT_S, WORKER, Lane, LaneDied, Stream,  # noqa: F401  (lanes' API)
                                     lane_env)

if TYPE_CHECKING:
    from collections.abc import Callable


_LANES: dict[tuple[str, str], Lane] = {}
# A forked child (a corpus or check worker) starts its own lanes: the parent's pipes are the parent's.
os.register_at_fork(after_in_child=_LANES.clear)


def get(version: str, progress: Callable[[str], None] | None = None, program: str | None = None) -> Lane:
    """This process's lane for ``version`` (a locked, not installed version), started once.
    ``program``: the module it must run; None takes any live lane of that version (every
    program serves the worker's ops) or starts ``WORKER``."""
    version = versions.check(version)
    if versions.is_installed(version):
        raise WorkbenchError(f"vLLM {version} is installed: it runs in-process, not in a lane")
    if program is None:
        live = [ln for (v, _), ln in _LANES.items() if v == version and ln.alive]
        if live:
            return live[0]
        program = WORKER
    lane = _LANES.get((version, program))
    if lane is None or not lane.alive:
        if lane is not None:
            lane.close()
        lane = _LANES[version, program] = _start(version, program, progress)
    return lane


def _start(version: str, program: str, progress: Callable[[str], None] | None) -> Lane:
    """A warm lane's worker (lanes/warm.py) for the CLI's and the worker's programs, else,
    or when warm lanes are off or busy, a worker process of this command's own."""
    from workbench.core.writing import terminal
    from workbench.lanes import warm

    if warm.enabled() and program in (WORKER, warm.SERVED):
        try:
            return warm.WarmLane(version).start(progress)
        except (LaneDied, OSError) as e:  # busy past its wait, or no socket here: this command's own lane
            terminal.say("vLLM {} warm lane not used ({}); starting this command's own", version, str(e), err=True)
    tell = progress or (lambda msg: terminal.say("{}", msg, err=True))
    tell(f"starting the vLLM {version} lane (a worker process, about 10 s)…")
    return Lane(version, program).start(progress)


@atexit.register
def close_all() -> None:
    for lane in list(_LANES.values()):
        lane.close()
    _LANES.clear()
