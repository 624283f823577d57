"""The parser names a vllm-rs registers, asked of the binary itself.

vllm-rs has no listing command: a frontend started with a name it does not register stops
at once and says "tool parser `X` is not registered (choose from: a, b, ...)". So the names
are that list, read from its log: one start for the tool parsers, one for the reasoning
parsers (a start that fails costs well under a second), kept per version for the process.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from workbench.errors import WorkbenchError
from workbench.rustfe.process import Frontend

PROBE = "workbench-list-names"  # a name no parser has
TOKENIZER = "qwen3"  # any shipped tokenizer with a tokenizer.json: the frontend needs a model folder
_CHOOSE = re.compile(r"(tool|reasoning) parser `[^`]*` is not registered \(choose from: ([^)]*)\)")


@lru_cache(maxsize=None)
def names(version: str) -> dict[str, frozenset[str]]:
    """{"tool": names, "reasoning": names} that vllm-rs ``version`` registers."""
    return {kind: frozenset(_ask(version, kind)) for kind in ("tool", "reasoning")}


def _ask(version: str, kind: str) -> list[str]:
    from workbench.core.tokenizers import load_tokenizer
    from workbench.rustfe import binary, lane
    from workbench.rustfe.model_dir import model_dir

    folder = model_dir(TOKENIZER, load_tokenizer(TOKENIZER))
    flag = "tool_call_parser" if kind == "tool" else "reasoning_parser"
    args = {"served_model_name": [lane.MODEL], flag: PROBE}
    probe = _Probe(binary.ensure(version), Path(folder), args, version)
    try:
        probe.start()
    except WorkbenchError:
        pass
    else:  # it started: this vllm-rs takes any name at start-up
        probe.close()
        raise WorkbenchError(f"vllm-rs {version} started with the {kind} parser {PROBE!r}: "
                             f"its registered names cannot be read")
    found = [m for m in _CHOOSE.finditer(probe.log) if m.group(1) == kind]
    if not found:
        raise WorkbenchError(f"vllm-rs {version} did not list its {kind} parsers "
                             f"({probe.log.strip().splitlines()[-1][:200] if probe.log.strip() else 'no log'})")
    return [n.strip() for n in found[-1].group(2).split(",") if n.strip()]


class _Probe(Frontend):
    """A Frontend whose log is kept when it closes (its folder goes with it)."""

    log = ""

    def close(self) -> None:
        self.log = self.log_text()
        super().close()
