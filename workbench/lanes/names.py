"""The parser names a vLLM version declares, read from its source without running it.

vLLM registers its tool and reasoning parsers lazily from one dict literal each
(``_TOOL_PARSERS_TO_REGISTER`` in ``vllm/tool_parsers/__init__.py``,
``_REASONING_PARSERS_TO_REGISTER`` in ``vllm/reasoning/__init__.py``). Reading them with
``ast`` answers "is NAME in version V" for every listed version without a lane start
(the lane's tree is hash-checked first, ``tree.ensure``), and gives tests a second,
independent account of what a lane's worker registers.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from workbench.errors import WorkbenchError
from workbench.lanes import versions

REGISTRIES = {"tool": ("vllm/tool_parsers/__init__.py", "_TOOL_PARSERS_TO_REGISTER"),
              "reasoning": ("vllm/reasoning/__init__.py", "_REASONING_PARSERS_TO_REGISTER")}


def _root(version: str | None) -> Path:
    if versions.is_installed(version):
        import vllm

        return Path(vllm.__file__).resolve().parents[1]
    from workbench.lanes import tree

    return tree.ensure(version)


def _registry(path: Path, variable: str) -> dict[str, tuple[str, str]]:
    try:
        module = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except (OSError, SyntaxError) as e:
        raise WorkbenchError(f"{path}: cannot read the parser registry: {e}") from None
    for node in module.body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        if isinstance(target, ast.Name) and target.id == variable and node.value is not None:
            return {k: tuple(v) for k, v in ast.literal_eval(node.value).items()}
    raise WorkbenchError(f"{path}: no {variable} dict (vLLM moved its parser registry)")


@functools.cache
def declared(version: str | None = None) -> dict[str, dict[str, tuple[str, str]]]:
    """{"tool": {name: (module file, class name)}, "reasoning": {...}} of ``version`` (None:
    the installed vLLM), as its registry dicts spell them."""
    root = _root(version)
    return {kind: _registry(root / rel, var) for kind, (rel, var) in REGISTRIES.items()}


def has(version: str | None, kind: str, name: str) -> bool:
    return name in declared(version)[kind]
