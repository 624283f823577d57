"""A/B across vLLM versions: ``hermes+qwen3@0.32.0`` vs ``hermes+qwen3@0.33.0``.

Each side is a Session of its version (in-process for the installed one, a lane
for others) fed the same stream, and ``core.diff.compare`` pairs the rows. A
spec without ``@VERSION`` is the installed version.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from workbench.core import diff
from workbench.core.parsers import ParserSpec
from workbench.core.session import Setup
from workbench.errors import WorkbenchError
from workbench.lanes import versions
from workbench.lanes.lane_session import session_for

if TYPE_CHECKING:
    from collections.abc import Sequence
    from workbench.core.deltas import Delta

_AT_VERSION = re.compile(r"^(.*)@(\d+(?:\.\d+)*\S*)$")


def split_version(text: str) -> tuple[str, str | None]:
    """'hermes+qwen3@0.33.0' -> ('hermes+qwen3', '0.33.0'); no suffix -> (text, None)."""
    m = _AT_VERSION.match(text.strip())
    return (m.group(1), versions.check(m.group(2))) if m else (text.strip(), None)


def label(spec: ParserSpec, version: str | None) -> str:
    return spec.label() + (f"@{version}" if version else "")


def run(setup: Setup, a: tuple[ParserSpec, str | None], b: tuple[ParserSpec, str | None], *,
        text: str | None = None, deltas: Sequence[Delta] | None = None, chunking: str | None = None,
        prompt_token_ids: Sequence[int] | None = None) -> diff.DiffResult:
    if (text is None) == (deltas is None):
        raise WorkbenchError("diff needs exactly one of text or deltas")
    results = []
    for spec, version in (a, b):
        session = session_for(dataclasses.replace(setup, parser=spec), version, prompt_token_ids)
        if text is not None:
            ds = session.deltas_from_text(text, chunking)
        else:
            ds = session.regroup(deltas, chunking) if chunking else deltas
        results.append(session.replay(ds))
    return diff.compare(results[0], results[1], label(*a), label(*b))
