"""vLLM's pydantic request models validated within a memory bound (a request body, --messages, --tools).

pydantic reports every mistake of every array entry against every member of every union it
could be, and builds them all before the first is shown: a Responses ``input`` of 100,000
entries of one wrong shape (700 KB) made 23.6 million errors, 16 GB, before it was killed
(236 errors an entry, about 3 KB each). So a body is validated in steps whose errors stay
small (``limits.VALIDATE_ITEMS``), each a refusal in one line:

1. a sample: every array, at any depth, cut to its first ``VALIDATE_ITEMS`` entries;
2. every longer array, at any depth, in windows of that many entries (the rest of the body
   sampled, each array on the way to it holding the one entry that leads there);
3. the whole body, as vLLM's server validates it (a valid body only: steps 1-2 passed).

What is accepted is exactly what vLLM accepts: every step validates with vLLM's own model.
"""

from __future__ import annotations

from typing import Any

from workbench.core import limits
from workbench.errors import WorkbenchError


def sample(value: Any, most: int = limits.VALIDATE_ITEMS) -> Any:
    """``value`` with every array, at any depth, cut to its first ``most`` entries."""
    if isinstance(value, list):
        return [sample(v, most) for v in value[:most]]
    if isinstance(value, dict):
        return {k: sample(v, most) for k, v in value.items()}
    return value


def _short(value: Any) -> bool:
    """No array in ``value`` longer than the sample keeps (so the sample is the value)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, list):
            if len(v) > limits.VALIDATE_ITEMS:
                return False
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
    return True


def _long_lists(value: Any, path: tuple = ()):
    """(path, list) of every array longer than the sample keeps, at any depth."""
    stack = [(path, value)]
    while stack:
        at, v = stack.pop()
        if isinstance(v, list):
            if len(v) > limits.VALIDATE_ITEMS:
                yield at, v
            stack.extend((at + (i,), x) for i, x in enumerate(v))
        elif isinstance(v, dict):
            stack.extend((at + (k,), x) for k, x in v.items())


def _window(fields: dict, path: tuple, window: list) -> dict:
    """The sample of ``fields`` on the way to ``path`` (each array on it holding only the entry
    the path goes through), with ``window`` at its end."""
    def build(value: Any, rest: tuple) -> Any:
        if not rest:
            return sample(window)
        head, tail = rest[0], rest[1:]
        if isinstance(value, list):
            return [build(value[head], tail)]
        return {**{k: sample(v) for k, v in value.items() if k != head}, head: build(value[head], tail)}
    return build(fields, path)


def validate(cls: Any, fields: dict, what: str) -> Any:
    """``cls.model_validate(fields)`` (a vLLM request model), refused in one line
    (``invalid {what} ({loc}): {msg}``), its errors never more than a few windows' worth."""
    if not _short(fields):
        _check(cls, sample(fields), what, early=True)
        step = limits.VALIDATE_ITEMS
        for path, value in _long_lists(fields):
            indexes = [p for p in path if isinstance(p, int)]
            for start in range(step, len(value), step):
                _check(cls, _window(fields, path, value[start:start + step]), what, (*indexes, start), early=True)
    return _check(cls, fields, what)


def _check(cls: Any, fields: dict, what: str, offsets: tuple = (), early: bool = False) -> Any:
    """One step. ``early`` (a sample or a window): only a mistake inside an entry or an
    object refuses; the body's own checks (``tool_choice`` names a tool, ...) may depend on
    entries cut away, so the whole body's step decides them. ``offsets``: what a window's
    array indexes were in the whole body (the arrays on its path, then the window's start)."""
    from pydantic import ValidationError
    from vllm.exceptions import VLLMValidationError

    try:
        return cls.model_validate(fields)
    except ValidationError as e:
        errors = e.errors(include_url=False, include_context=False, include_input=False)
        if early:
            errors = [x for x in errors if len(x.get("loc", ())) >= 2]
            if not errors:
                return None
        loc, k = [], 0
        for p in errors[0].get("loc", ()):
            if isinstance(p, int) and k < len(offsets):
                p, k = p + offsets[k], k + 1  # a window's entry, numbered in the whole body
            loc.append(p)
        where = ".".join(str(p) for p in loc)
        raise WorkbenchError(f"invalid {what} ({where or 'request'}): {errors[0].get('msg')}") from None
    except (VLLMValidationError, ValueError) as e:  # vLLM's own checks (the server answers 400)
        if early:
            return None
        lines = str(e).splitlines()
        raise WorkbenchError(f"invalid {what}: {lines[0] if lines else type(e).__name__}") from None
