"""Imports whose start-up work nobody in this process may ever use, done on first use.

``rfc3987_syntax`` compiles 38 Earley grammars when it is imported (1.5-5 s, a fifth of
a notebook's time to its first row). Nothing the workbench runs needs it: jsonschema
imports it for its optional "iri" format check, and vLLM imports jsonschema through
mistral_common as soon as its parsers load. ``install()`` puts a stand-in in
``sys.modules`` whose ``is_valid_syntax`` (all jsonschema takes from it) and every other
attribute import the real module, so an IRI check works exactly as before, once it is
first made.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types

NAME = "rfc3987_syntax"


class _Deferred(types.ModuleType):
    def __getattr__(self, attr: str):
        if attr.startswith("__"):  # the import system asking (``__path__``, ``__spec__``...)
            raise AttributeError(attr)
        return getattr(real(), attr)


def real() -> types.ModuleType:
    """The real module (imported now if only the stand-in was there)."""
    module = sys.modules.get(NAME)
    if module is None or isinstance(module, _Deferred):
        sys.modules.pop(NAME, None)
        module = importlib.import_module(NAME)
    return module


def is_valid_syntax(term: str, value: str) -> bool:
    return real().is_valid_syntax(term, value)


def install() -> None:
    """The stand-in, unless the module is already loaded or not installed."""
    if NAME in sys.modules or importlib.util.find_spec(NAME) is None:
        return
    stand_in = _Deferred(NAME, "stands in for rfc3987_syntax until it is first used")
    setattr(stand_in, "is_valid_syntax", is_valid_syntax)
    sys.modules[NAME] = stand_in
