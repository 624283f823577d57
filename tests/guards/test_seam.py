"""vLLM's internals are touched in one place, workbench/core/vllm_compat/. An ``ast`` scan
of workbench/ (nothing is imported but the seam's own lists): outside the seam no module
reads or writes a private attribute (``obj._x``, ``getattr(obj, "_x")``) that is not the
workbench's own, none names one of the seam's vLLM internals as a string, none reaches
the in-process LLMEngine's parts (``compat.ENGINE``), and none sets the EngineCoreRequest
fields the seam sets.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from workbench.core import vllm_compat as compat

ROOT = Path(__file__).resolve().parents[2] / "workbench"
SEAM = ROOT / "core" / "vllm_compat"  # the package: its parts by concept
LISTED = {**compat.PRIVATE, **compat.WRAPPED, **compat.SET, **compat.ENGINE}
# vLLM's private names the seam reads: never outside it, not even through self (a subclass)
SEAM_PRIVATE = {key.split(".", 1)[1] for key in LISTED if key.split(".", 1)[1].startswith("_")}
# the LLMEngine's parts and what is reached through them (add_request is too common a name)
ENGINE_PARTS = {key.split(".", 1)[1] for key in compat.ENGINE
                if not key.startswith("EngineCoreRequest.") and not key.endswith(".add_request")}
ENGINE_FIELDS = {key.split(".", 1)[1] for key in compat.ENGINE if key.startswith("EngineCoreRequest.")}
# the lane worker's test op: a process that dies mid-stream; the CLI's exit past a plugin's
# non-daemon thread (its exit handlers run first)
STDLIB = {("os", "_exit"), ("atexit", "_run_exitfuncs")}
ATTR_CALLS = {"getattr", "hasattr", "setattr", "delattr"}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def own_names(trees: list[ast.AST]) -> set[str]:
    """Private names the workbench defines itself: functions, classes, assignments,
    ``self._x`` attributes, ``__slots__`` and the namespace of a ``type(...)`` call."""
    own: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                own.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                own.add(node.id)
            elif isinstance(node, ast.alias) and node.asname:
                own.add(node.asname)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _is_self(node.value):
                own.add(node.attr)
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__slots__"
                                                      for t in node.targets):
                own |= {c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant)
                        and isinstance(c.value, str)}
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type"
                  and len(node.args) == 3 and isinstance(node.args[2], ast.Dict)):
                own |= {k.value for k in node.args[2].keys if isinstance(k, ast.Constant)
                        and isinstance(k.value, str)}
    return {n for n in own if _private(n)} - SEAM_PRIVATE


def scan(tree: ast.AST, own: set[str]) -> list[tuple[int, str]]:
    """(line, what) for every touch of vLLM's internals in one module."""
    found: list[tuple[int, str]] = []

    def private_use(line: int, receiver: ast.expr, name: str) -> None:
        if not _private(name):
            return
        if name in SEAM_PRIVATE:
            found.append((line, f"{ast.unparse(receiver)}.{name}: a vLLM private the seam reads"))
        elif not _is_self(receiver) and name not in own and (ast.unparse(receiver), name) not in STDLIB:
            found.append((line, f"{ast.unparse(receiver)}.{name}: a private attribute the workbench "
                                f"does not define"))

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            private_use(node.lineno, node.value, node.attr)
            if node.attr in ENGINE_PARTS and not _is_self(node.value):
                found.append((node.lineno, f"{ast.unparse(node)}: the LLMEngine's internals"))
            if node.attr in ENGINE_FIELDS and isinstance(node.ctx, ast.Store) and not _is_self(node.value):
                found.append((node.lineno, f"{ast.unparse(node)} = ...: an EngineCoreRequest field"))
        elif isinstance(node, ast.Constant) and node.value in SEAM_PRIVATE | ENGINE_PARTS:
            found.append((node.lineno, f"{node.value!r}: a vLLM internal named as a string"))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ATTR_CALLS
              and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
              and isinstance(node.args[1].value, str)):
            private_use(node.lineno, node.args[0], node.args[1].value)
    return sorted(set(found))


@functools.cache
def _modules() -> dict[Path, ast.AST]:
    return {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(ROOT.rglob("*.py"))}


def test_no_vllm_internal_outside_the_seam():
    trees = _modules()
    own = own_names(list(trees.values()))
    bad = [f"{path.relative_to(ROOT.parent)}:{line}: {what}"
           for path, tree in trees.items() if path.parent != SEAM for line, what in scan(tree, own)]
    assert not bad, "vLLM internals outside workbench/core/vllm_compat/:\n" + "\n".join(bad)


def test_the_scan_sees_the_seam_itself():
    # The seam does all of it: were the scan blind, this would find nothing.
    own = own_names(list(_modules().values()))
    found = " ".join(what for path, tree in _modules().items() if path.parent == SEAM
                     for _, what in scan(tree, own))
    for expected in ("'_engine'", "'_stream_state'", "som._get_reasoner", "'input_processor'",
                     "'output_processor'", "'engine_core'", "req.reasoning_ended = ..."):
        assert expected in found


def test_the_scan_catches_planted_reads():
    planted = ast.parse(
        "def f(parser, llm, req, wb, os):\n"
        "    parser._engine\n"                          # 2: a listed vLLM private
        "    getattr(parser, '_stream_state')\n"        # 3: the same, through getattr (and named)
        "    parser._unknown_private\n"                 # 4: a private nobody in workbench defines
        "    llm.output_processor.request_states\n"     # 5: the engine's parts (two hops)
        "    req.reasoning_parser_kwargs = {}\n"        # 6: an EngineCoreRequest field set
        "    wb._own\n"                                 # the workbench's own private: allowed
        "    os._exit\n"                                # a named stdlib one: allowed
        "class P:\n"
        "    def g(self):\n"
        "        self._mine\n"                          # own attribute through self: allowed
        "        return self._parser_engine\n"          # 12: a listed vLLM private, via a subclass
    )
    lines = [line for line, _ in scan(planted, {"_own"})]
    assert lines == [2, 3, 3, 4, 5, 5, 6, 12]
