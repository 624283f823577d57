"""The engine source: each widget's own ``EngineStepper`` behind the source shape.

The process keeps one vLLM engine (``workbench.engine.build``); every widget
owns its own request on it (its own stepper), so its rows, check, A/B, save and
replay are always about its own stream. Each Reset or Replay starts a new
request. The script text forces the tokens (empty: free generation, for a real
model).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.ui.sources import EngineSource

if TYPE_CHECKING:
    from workbench.ui.model import WorkbenchModel


def factory(model: WorkbenchModel, session) -> EngineSource:
    from workbench.engine import EngineSpec, EngineStepper, build

    spec = EngineSpec(model=model.inputs.model) if model.inputs.model else EngineSpec()
    if model.stepper is None:
        model.stepper = EngineStepper(spec)
    s = model.stepper
    if build.needs_start(spec, session.setup.tokenizer):
        what = model.inputs.model or f"the embedded tiny model for {session.setup.tokenizer}"
        model.status(f"starting the engine ({what}); this takes seconds…", None)
    s.load(session, spec)
    text = model.inputs.text or None
    s.start(session, text=text)
    if s.constraint is not None:
        model.status(f"request started; the first step compiles the {s.constraint['kind']} "
                     "grammar…", None)
    return EngineSource(s)
