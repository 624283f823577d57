"""The values a server makes up, masked so that two streams of one request compare equal.

Item, message, call and response ids, thinking signatures and timestamps are random
per request; prefix-cache counts are the server's cache state. Each distinct made-up
value becomes ``<key#n>`` in order of first appearance, so a comparison still checks
that the same id is used where the server reuses it (an item's ``id`` and its events'
``item_id``, a ``call_id`` across the stream and the final response).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

MADE_UP = {"id": "id", "item_id": "id", "call_id": "call", "signature": "signature",
           "created_at": "time", "created": "time", "completed_at": "time"}
CACHE_STATE = {"cached_tokens", "cache_write_tokens", "cache_read_input_tokens", "cache_creation_input_tokens",
               "cached_tokens_per_turn"}  # (Harmony's usage: one count per turn)


def masked(value: Any, names: dict | None = None) -> Any:
    """A copy of ``value`` (JSON) with made-up values replaced; ``names`` carries the
    numbering across several objects (a stream's events, then its final response)."""
    names = {} if names is None else names

    def walk(v: Any, key: Any = None) -> Any:
        if isinstance(v, dict):
            return {k: walk(x, k) for k, x in v.items()}
        if key in CACHE_STATE and (isinstance(v, int) or isinstance(v, list)):
            return "<cache>"
        if isinstance(v, list):
            return [walk(x) for x in v]
        kind = MADE_UP.get(key)
        if kind is None or v is None:
            return v
        if (kind, v) not in names:
            names[(kind, v)] = f"<{kind}#{sum(1 for k in names if k[0] == kind) + 1}>"
        return names[(kind, v)]

    return walk(value)
