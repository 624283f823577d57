"""Parser plugins: Python files loaded as vLLM's ``--tool-parser-plugin`` /
``--reasoning-parser-plugin`` load them (``vllm.utils.import_utils.import_plugin``).

A plugin runs only when the user names it. ``load`` imports it by its absolute path
(vLLM's ``importlib.import_module`` first would take ``./x.py`` for a relative module
name and raise a TypeError), then reads which tool and reasoning parser names it
registered in vLLM's two managers. Every failure is one line: the file missing, an
exception while it imports (with the plugin's own line), a ``sys.exit``, and, where
the run uses no parser config, a plugin that registers no parser at all.
"""

from __future__ import annotations

import dataclasses
import logging
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

REGISTER_HINT = ("decorate a ToolParser subclass with @ToolParserManager.register_module(\"NAME\") (or a "
                 "ReasoningParser with @ReasoningParserManager.register_module(\"NAME\")), as vLLM's "
                 "--tool-parser-plugin files do")


@dataclass(frozen=True)
class Plugin:
    """A loaded plugin: the path as given, the file, its module and what it registered."""

    path: str
    file: str  # absolute
    module: str
    tool: tuple[str, ...] = ()
    reasoning: tuple[str, ...] = ()

    @property
    def registers(self) -> bool:
        return bool(self.tool or self.reasoning)

    def names(self) -> str:
        """'tool parser ferret, reasoning parser ferret' (or 'no parser')."""
        parts = [f"{kind} parser {', '.join(names)}" for kind, names in
                 (("tool", self.tool), ("reasoning", self.reasoning)) if names]
        return ", ".join(parts) or "no parser"


def _managers() -> dict:
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers import ToolParserManager

    return {"tool": (ToolParserManager, ToolParserManager.tool_parsers),
            "reasoning": (ReasoningParserManager, ReasoningParserManager.reasoning_parsers)}


def _snapshot() -> dict[str, dict[str, object]]:
    return {kind: {**{n: ("lazy", *v) for n, v in manager.lazy_parsers.items()}, **{n: c for n, c in eager.items()}}
            for kind, (manager, eager) in _managers().items()}


def _registered(before: dict, module: str) -> dict[str, tuple[str, ...]]:
    """Names each manager maps to this module's code: new or changed since ``before``, or
    pointing into ``module`` (a plugin loaded again registers the same lazy entries)."""
    out = {}
    for kind, entries in _snapshot().items():
        names = []
        for name, entry in entries.items():
            home = entry[1] if isinstance(entry, tuple) else getattr(entry, "__module__", None)
            if home == module or before[kind].get(name) is not entry and before[kind].get(name) != entry:
                names.append(name)
        out[kind] = tuple(sorted(names))
    return out


def load(path: str | Path) -> Plugin:
    """Import the plugin at ``path`` as vLLM does, loudly (WorkbenchError, one line)."""
    from vllm.utils.import_utils import import_plugin

    given = str(path)
    p = Path(given)
    if not p.exists():
        raise WorkbenchError(f"plugin file {given}: not found")
    if not p.is_file():
        raise WorkbenchError(f"plugin file {given}: not a file")
    if p.suffix != ".py":
        raise WorkbenchError(f"plugin file {given}: not a Python file (vLLM imports a plugin by its .py path)")
    file = str(p.resolve())
    _refuse_shadowing(given, file)
    from workbench.core.trust import file_sha256

    key = (file, file_sha256(file))
    cached = _LOADED.get(key)
    if cached is not None and _still_active(*cached):
        return Plugin(given, *dataclasses.astuple(cached[1])[1:])
    before = _snapshot()
    for (was, _), (_, earlier) in _LOADED.items():  # this file loaded before (edited since): what it
        if was == file:                             # registered then counts again if registered now
            for kind, known in (("tool", earlier.tool), ("reasoning", earlier.reasoning)):
                for name in known:
                    before[kind].pop(name, None)
    records: list[logging.LogRecord] = []
    handler = _ListHandler(records)
    # vLLM logs a failed import with its traceback; the one-line error below says it instead
    logger = logging.getLogger("vllm.utils.import_utils")
    logger.addHandler(handler)
    propagate, logger.propagate = logger.propagate, False
    try:
        module = import_plugin(file)
    except SystemExit as e:  # vLLM catches Exception only: a plugin's sys.exit would end the run silently
        raise WorkbenchError(f"plugin file {given} failed to import: it called sys.exit({e.code!r})") from None
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate
    if module is None:  # vLLM logs the exception and returns None
        _drop_module(Path(file).stem, file)  # the half-run module vLLM left in sys.modules
        cause = next((r.exc_info[1] for r in records if r.exc_info), None)
        raise WorkbenchError(f"plugin file {given} failed to import{_line_of(cause, file)}: "
                             f"{type(cause).__name__}: {_first_line(cause)}")
    _forget_stale(module)
    names = _registered(before, module.__name__)
    plugin = Plugin(given, file, module.__name__, names["tool"], names["reasoning"])
    for old in [k for k in _LOADED if k[0] == file]:  # an earlier version of this file: not kept alive
        stale = _LOADED.pop(old)[0]
        if stale is not module:
            _release(stale)
    _LOADED[key] = (module, plugin)
    return plugin


def _release(module: Any) -> None:
    """An earlier import no one runs any more: the managers' classes from it are dropped and
    its globals cleared (as Python clears a module at exit), so what it holds is freed now,
    not when a full garbage collection finds the module's reference cycles."""
    import sys

    name = module.__name__
    if sys.modules.get(name) is module:
        del sys.modules[name]
    for _, eager in _managers().values():
        for name, cls in list(eager.items()):
            if getattr(module, getattr(cls, "__name__", ""), None) is cls:
                del eager[name]
    module.__dict__.clear()


def forget(plugin: Plugin) -> None:
    """Let go of a plugin no longer used (the editor's last version): its module leaves
    ``sys.modules`` and the cache, and the managers' entries that still point into it are
    dropped, so nothing keeps its module (and what it holds) alive."""
    import sys

    modules = [m for k, (m, _) in _LOADED.items() if k[0] == plugin.file]
    for k in [k for k in _LOADED if k[0] == plugin.file]:
        del _LOADED[k]
    for manager, _ in _managers().values():
        for name, (path, _) in list(manager.lazy_parsers.items()):
            if path == plugin.module:
                del manager.lazy_parsers[name]
    current = sys.modules.get(plugin.module)
    if current is not None and _same_file(getattr(current, "__file__", None), plugin.file):
        modules.append(current)
    for m in {id(m): m for m in modules}.values():
        _release(m)


def _drop_module(name: str, file: str) -> None:
    import sys

    module = sys.modules.get(name)
    if module is not None and _same_file(getattr(module, "__file__", None), file):
        del sys.modules[name]


# (file, sha256) -> (module, Plugin): the same file unchanged is imported once per process
# (doctor and the widget build many sessions), while it is still the module its names point to.
_LOADED: dict[tuple[str, str | None], tuple[object, Plugin]] = {}


def _still_active(module: object, plugin: Plugin) -> bool:
    import sys

    if sys.modules.get(plugin.module) is not module:
        return False
    now = _snapshot()
    for kind, names in (("tool", plugin.tool), ("reasoning", plugin.reasoning)):
        for name in names:
            entry = now[kind].get(name)
            if entry is None:  # no longer registered (the managers were reset): import it again
                return False
            if isinstance(entry, tuple) and entry[1] != plugin.module:
                return False
            if not isinstance(entry, tuple) and getattr(module, getattr(entry, "__name__", ""), None) is not entry:
                return False  # a class cached from another import of the module
    return True


def _forget_stale(module: Any) -> None:
    """vLLM's managers cache a lazily registered class the first time it is asked for; a plugin
    imported again (edited, or a copy beside an exported test) registers lazily again, and the
    cache would go on returning the old class. A server imports once: drop what this import
    replaced, so the next lookup loads the class from the module just imported. A lazy entry
    into a module of the same name whose class this module lacks (another file, or the class
    renamed since) is dropped too: vLLM would fail to import it, shadowing what this one
    registers."""
    for manager, eager in _managers().values():
        for name, (path, class_name) in list(manager.lazy_parsers.items()):
            if path != module.__name__:
                continue
            if not hasattr(module, class_name):  # an earlier module of that name registered it lazily
                del manager.lazy_parsers[name]
                if name in eager and getattr(eager[name], "__module__", None) == module.__name__:
                    del eager[name]
            elif name in eager and eager[name] is not getattr(module, class_name):
                del eager[name]


def _refuse_shadowing(given: str, file: str) -> None:
    """vLLM imports a plugin file under its file's name (``json.py`` as ``json``), putting it in
    ``sys.modules`` in place of a module of that name: the standard library's ``json``,
    ``re`` or ``vllm`` itself would then be the plugin for everything after it. A name that is
    another module's (built in, the standard library's, or importable from the path) is one
    line instead."""
    import importlib.machinery
    import sys

    name = Path(file).stem
    if name in sys.builtin_module_names or name in sys.stdlib_module_names:
        other = "the standard library"
    else:  # an earlier plugin of that name (a copy beside an exported test) is vLLM's way: not refused
        spec = importlib.machinery.PathFinder.find_spec(name) if "." not in name else None
        if spec is None or _same_file(spec.origin, file):
            return
        other = spec.origin or "a package"
    raise WorkbenchError(f"plugin file {given}: vLLM imports it as the module {name!r}, which would replace the "
                         f"module of that name ({other}) for everything after it: rename the file")


def _same_file(a: str | None, b: str) -> bool:
    try:
        return a is not None and Path(a).resolve() == Path(b)
    except OSError:
        return False


def require_parsers(plugin: Plugin) -> None:
    """A plugin named without a parser config must register a parser (else it does nothing)."""
    if not plugin.registers:
        raise WorkbenchError(f"plugin file {plugin.path} registers no parser: {REGISTER_HINT}")


def _first_line(e: BaseException | None) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else "(no message)"


def _line_of(e: BaseException | None, file: str) -> str:
    """' (line N)': where in the plugin's own file the import failed, if it did there."""
    if isinstance(e, SyntaxError) and e.filename and Path(e.filename).resolve() == Path(file) and e.lineno:
        return f" (line {e.lineno})"
    frames = [f for f in traceback.extract_tb(e.__traceback__) if Path(f.filename).resolve() == Path(file)] \
        if e is not None else []
    return f" (line {frames[-1].lineno})" if frames else ""


def registered_by(plugins: Sequence[Plugin]) -> str:
    """'; plugin x.py registers tool parser ferret' for an unknown-name message, or ''."""
    return "".join(f"; plugin {Path(p.path).name} registers {p.names()}" for p in plugins)


class _ListHandler(logging.Handler):
    def __init__(self, records: list) -> None:
        super().__init__(logging.DEBUG)
        self.records = records

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
