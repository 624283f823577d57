"""``class_cache``: a function of a class, remembered while the class lives.

``functools.cache`` keyed on a class keeps the class alive for the whole process, and with
it its module: every version of a plugin reloaded in ``watch`` or the editor, and what its
module holds. Here the memo is a ``WeakKeyDictionary``: an entry goes with its class.
"""

from __future__ import annotations

import functools
import weakref
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

T = TypeVar("T")


def class_cache(fn: Callable[[type], T]) -> Callable[[type], T]:
    memo: weakref.WeakKeyDictionary[type, T] = weakref.WeakKeyDictionary()

    @functools.wraps(fn)
    def cached(cls: type) -> T:
        try:
            return memo[cls]
        except KeyError:
            memo[cls] = value = fn(cls)
            return value

    cached.cache_clear = memo.clear  # type: ignore[attr-defined]
    return cached
