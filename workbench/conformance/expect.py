"""Each case's non-streaming answer on one vLLM version: how a case's expectation is checked.

The run is the workbench's normal path (``lanes.lane_session.prepare``: core.prepare in
this process, or the version's lane), prepared once per setting that cases share (tokenizer,
parser, request), then each case's text made into deltas by that session and parsed whole by
a fresh parser (``Session.nonstream``: vLLM's ``Parser.parse``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from workbench.core.messages import Final
    from workbench.conformance.cases import Case


def nonstream_answers(cases: Sequence[Case], vllm: str | None = None) -> Iterator[tuple[Case, Final]]:
    """(case, its non-streaming final answer) on ``vllm`` (None: the installed version)."""
    from workbench.lanes.lane_session import prepare

    sessions: dict[str, object] = {}
    for case in cases:
        spec = case.run.with_(vllm=vllm)
        key = json.dumps(spec.with_(text="", finish_reason=None).to_dict(), sort_keys=True)
        finish = spec.finish_reason or "stop"
        session = sessions.get(key)
        if session is None:
            prepared = prepare(spec)
            session = sessions[key] = prepared.session
            deltas = prepared.deltas
        else:
            deltas = session.deltas_from_text(spec.text, None, finish)
        text = "".join(d.text for d in deltas)
        ids = [t for d in deltas for t in d.token_ids]
        yield case, session.nonstream(text, ids, finish)
