"""The engine source: each widget's own ``EngineStepper`` behind the source shape.

The process keeps one vLLM engine (``workbench.engine.instance``); every widget
owns its own request on it (its own stepper), so its rows, check, A/B, save and
replay are always about its own stream. Each Reset or Replay starts a new
request. The script text forces the tokens (empty: free generation, for a real
model).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.ui.sources import EngineSource

if TYPE_CHECKING:
    from collections.abc import Callable

    from workbench.engine import EngineStepper
    from workbench.ui.inputs import Inputs


def stepper(i: Inputs) -> EngineStepper:
    """The widget's own stepper, made once: each Reset or Replay is a new request on it."""
    from workbench.engine import EngineStepper

    return EngineStepper(engine_spec(i))


def start(s: EngineStepper, i: Inputs, session, status: Callable[[str, float | None], None]) -> EngineSource:
    from workbench.engine import instance

    spec = engine_spec(i)
    if instance.needs_start(spec, session.setup.tokenizer):
        what = i.model or f"the embedded tiny model for {session.setup.tokenizer}"
        status(f"starting the engine ({what}); this takes seconds…", None)
    s.load(session, spec)
    s.start(session, text=i.text or None)
    if s.constraint is not None:
        status(f"request started; the first step compiles the {s.constraint['kind']} "
               "grammar…", None)
    return EngineSource(s)


def engine_spec(i: Inputs):
    """The engine the settings name: the model, and ``engine``'s EngineSpec fields over the
    defaults (an unknown one is one line)."""
    from dataclasses import fields

    from workbench.engine import EngineSpec
    from workbench.errors import WorkbenchError, close_matches

    more = dict(i.engine or {})
    known = {f.name for f in fields(EngineSpec)} - {"model", "tiny"}
    for key in more:
        if key not in known:
            raise WorkbenchError(f"Workbench(engine=...): EngineSpec has no field {key!r}{close_matches(key, known)}")
    return EngineSpec(model=i.model, **more)
