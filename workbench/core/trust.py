"""The trust model: which code a run may execute.

Plugins and a config's callables (``arg_converter``, ``parser_class``, ...) are
code, as vLLM's ``--tool-parser-plugin`` is. They run only when the user names
them on this run (``--config``, ``--plugin``, the widget's picker or editor). A
data file (recording, capture) names its parser, config and plugins but never
loads them: replaying one needs the user to pass them again.

A config's callables resolve only inside ``vllm`` and the modules of plugins
loaded on this run, unless ``--allow-callable MODULE`` trusts one more module.
"""

from __future__ import annotations

import hashlib
import inspect
from dataclasses import dataclass
from pathlib import Path


class UntrustedCallable(ValueError):
    """A config names code outside the modules this run trusts."""


@dataclass(frozen=True)
class CallablePolicy:
    modules: tuple[str, ...] = ("vllm",)  # a module and its sub-modules

    def allows(self, module: str | None) -> bool:
        return bool(module) and any(module == m or module.startswith(m + ".") for m in self.modules)

    def check_module(self, ref: str, module: str) -> None:
        """Before the import: importing a module runs its code."""
        if not self.allows(module):
            raise self.refusal(ref, module)

    def check_object(self, ref: str, obj) -> None:
        """After each attribute hop: a module or callable must live in a trusted module,
        so ``vllm.envs:os.system`` does not reach ``os`` through vLLM."""
        if inspect.ismodule(obj) or callable(obj):
            home = _home(obj)
            if not self.allows(home):
                raise self.refusal(ref, home or "?")

    def refusal(self, ref: str, module: str) -> UntrustedCallable:
        top = module.split(".")[0]
        return UntrustedCallable(
            f"refused callable {ref!r}: {module} is not vllm or a plugin named on this run "
            f"(a config runs only vLLM's code; pass --allow-callable {top} to trust it)")


DEFAULT = CallablePolicy()


def policy(plugin_modules=(), allow_callables=()) -> CallablePolicy:
    return CallablePolicy(("vllm", *plugin_modules, *allow_callables))


def _home(obj) -> str | None:
    if inspect.ismodule(obj):
        return obj.__name__
    module = getattr(obj, "__module__", None)
    if isinstance(module, str):
        return module
    owner = getattr(obj, "__self__", None)  # a C method bound to an object or module
    if owner is not None:
        return _home(owner) if inspect.ismodule(owner) else type(owner).__module__
    return type(obj).__module__


def file_sha256(path: str | Path) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def provenance(spec, plugins=(), config_text: str | None = None) -> dict:
    """A recording header's ``parser``: names, the config's path and sha256, the plugins'."""
    out = spec.to_dict()
    if config_text is not None:
        out["config_sha256"] = hashlib.sha256(config_text.encode("utf-8")).hexdigest()
    elif spec.config:
        out["config_sha256"] = file_sha256(spec.config)
    if plugins:
        out["plugins"] = [{"file": Path(p).name, "sha256": file_sha256(p)} for p in plugins]
    return out
