"""Step a real in-process vLLM engine into rows (see stepper.EngineStepper).

Importing this package is cheap: vLLM and torch load when an engine is built.
"""

from workbench.engine.build import EngineSpec
from workbench.engine.stepper import EngineResult, EngineStepper

__all__ = ["EngineSpec", "EngineResult", "EngineStepper"]
