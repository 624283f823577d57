"""Step a real in-process vLLM engine into rows (see stepper.EngineStepper).

Importing this package is cheap: vLLM and torch load when an engine is built.

    instance.py     EngineSpec, checked before it is built; the one engine per process
    tiny_model.py   the embedded default: a tiny random-weight model for a chosen tokenizer
    script.py       a script: the exact token ids the engine is forced to emit
    scripted.py     those ids forced through a v1 logits processor
    stepper.py      EngineStepper: one request on the engine, stepped into rows
    router.py       several requests on one LLMEngine, each output to its owner by request id
    grammar.py      the grammar view: what the engine's structured-output manager allowed
    candidates.py   what the model wanted and what the grammar allowed: each step's top candidates
    quiet.py        vLLM's start-up chatter kept out of the terminal and the cell
"""

from workbench.engine.instance import EngineSpec
from workbench.engine.stepper import EngineResult, EngineStepper

__all__ = ["EngineSpec", "EngineResult", "EngineStepper"]
