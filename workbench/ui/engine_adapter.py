"""The engine source: a ``workbench.engine.EngineStepper`` behind the source shape.

One stepper per process (vLLM's engine is one per process too); each Reset or
Replay starts a new request on the running engine. The script text forces the
tokens (empty: free generation, for a real model).
"""

from __future__ import annotations

from workbench.ui.sources import EngineSource

_stepper = None


def use_stepper(stepper) -> None:
    """Drive this EngineStepper (e.g. one a test run already owns) instead of a new one."""
    global _stepper
    _stepper = stepper


def stepper():
    global _stepper
    if _stepper is None:
        from workbench.engine import EngineStepper

        _stepper = EngineStepper()
    return _stepper


def factory(model, session) -> EngineSource:
    from workbench.engine import EngineSpec
    from workbench.engine import build

    s = stepper()
    spec = EngineSpec(model=model.inputs.model) if model.inputs.model else EngineSpec()
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


def origin() -> dict | None:
    return _stepper.origin() if _stepper is not None and _stepper.engine is not None else None
