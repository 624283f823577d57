"""Marker strings a legacy parser spells only inside its methods, for the doctor's reading of
leaked markup.

InternLM2's ``<|action_start|><|plugin|>`` is a string literal its methods test with ``in``
and cut with ``split``; Step3's ``TOOL_CALLS_BEGIN`` is a class constant its methods compare
against. Neither is an ``X_start_token`` attribute nor a compiled pattern (contract.py), so
markup the stream leaked was only "differs". Here the parser class's own source (vLLM's, via
``inspect``) is read as an ``ast``, never run: the strings its methods compare with (``in``,
``==``) or search for (``split``, ``find``, ``startswith``...), spelled out or named (a module
constant, a class attribute through ``self``), that look like markup.
"""

from __future__ import annotations

import ast
import functools
import inspect
import sys
import textwrap
from typing import TYPE_CHECKING

from workbench.core import vllm_compat as compat
from workbench.core.class_cache import class_cache
from workbench.core.runner import make_parser

if TYPE_CHECKING:
    from workbench.core.session import Session

_SEARCHES = {"split", "rsplit", "partition", "rpartition", "find", "rfind", "index", "rindex", "count",
             "startswith", "endswith", "removeprefix", "removesuffix", "replace"}
_COMPARES = (ast.In, ast.NotIn, ast.Eq, ast.NotEq)
_BRACKETS = set("<>[]|｜")


def looks_like_markup(s: str) -> bool:
    """A marker, not prose or JSON punctuation: no inner space, a letter or digit, a bracket."""
    s = s.strip()
    return (len(s) >= 3 and not any(c.isspace() for c in s) and any(c.isalnum() for c in s)
            and bool(_BRACKETS & set(s)))


def _strings(node: ast.AST, cls: type, module: object) -> list[str]:
    """The str value(s) ``node`` spells: a literal (``"x".strip()`` too), a module constant, a
    class attribute read through ``self`` or the class; tuples of those (``startswith``)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args:
        node = node.func.value  # "<|action_end|>".strip()
    if isinstance(node, ast.Constant):
        return [node.value] if isinstance(node.value, str) else []
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for e in node.elts for s in _strings(e, cls, module)]
    value = None
    if isinstance(node, ast.Name):
        value = vars(module).get(node.id) if module is not None else None
    elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
            node.value.id in ("self", "cls", cls.__name__):
        value = next((vars(k)[node.attr] for k in cls.__mro__ if node.attr in vars(k)), None)
    return [value] if isinstance(value, str) else []


def _compared(tree: ast.AST, cls: type, module: object) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(isinstance(op, _COMPARES) for op in node.ops):
            for side in [node.left, *node.comparators]:
                found.update(_strings(side, cls, module))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in _SEARCHES and node.args:
            found.update(_strings(node.args[0], cls, module))
    return found


@class_cache
def class_literals(cls: type) -> frozenset[str]:
    """The markup-like strings the methods of ``cls`` and its vLLM bases compare with or search
    for (each class's own source; a class without one, made at run time, adds nothing)."""
    found: set[str] = set()
    for klass in cls.__mro__:
        if not klass.__module__.startswith("vllm."):
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError, SyntaxError):
            continue
        found |= _compared(tree, klass, sys.modules.get(klass.__module__))
    return frozenset(s.strip() for s in found if looks_like_markup(s))


def literal_markers(session: Session) -> list[str]:
    """The markup-like literals of the configured sub-parsers' methods (the doctor's reading of
    leaked markup only, as contract.pattern_markers)."""
    parser = make_parser(session.parser_cls, session.tokenizer, session.request,
                         session.setup.request.chat_template_kwargs)
    if parser is None:
        return []
    subs = [sub for role, sub in compat.sub_parsers(parser).items() if sub is not None
            and not (role == "tool" and session.request.tool_choice == "none")]  # tool markup is content then
    return sorted({m for sub in subs for m in class_literals(type(sub))})
