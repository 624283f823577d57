"""What `workbench matrix CASES...` reads: the shipped case files (``cases.load_cases``) and
ai-dynamo's ``fixtures-stream-v2`` YAML files (``dynamo.load``), in the order given."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from workbench.conformance.cases import Case

YAML = (".yaml", ".yml")


def load(paths: Sequence[str], parser: str | None = None, tokenizer: str | None = None) -> list[Case]:
    """Every case under ``paths``; ``parser`` / ``tokenizer``: what a dynamo fixture runs with."""
    from workbench.conformance import cases, dynamo

    out: list[Case] = []
    toml: list[str] = []

    def flush() -> None:
        if toml:
            out.extend(cases.load_cases(list(toml)))
            toml.clear()

    for p in paths:
        if p.endswith(YAML):
            flush()
            out.extend(dynamo.load(p, parser=parser, tokenizer=tokenizer))
        else:
            toml.append(p)
    flush()
    seen: set[str] = set()
    unique = []
    for c in out:
        if c.id not in seen:
            seen.add(c.id)
            unique.append(c)
    return unique
