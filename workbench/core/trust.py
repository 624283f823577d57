"""The trust model: which code a run may execute.

Plugins and a config's callables (``arg_converter``, ``parser_class``, ...) are
code, as vLLM's ``--tool-parser-plugin`` is. They run only when the user names
them on this run (``--config``, ``--plugin``, the widget's picker or editor). A
data file (recording, capture) names its parser, config and plugins but never
loads them: replaying one needs the user to pass them again.

A config's callables are named ``"module:attr"`` and resolve only when the exact
name is in ``VLLM_CALLABLES`` (what vLLM's own parser configs and our shipped
``parsers/*.toml`` use), is an attribute defined in a plugin named on this run,
or is given with ``--allow-callable module:attr`` (in a notebook,
``workbench.show(..., allow_callable=["module:attr"])``). A module prefix is never
enough: vLLM holds modules that run ``exec``, ``pickle`` or ``subprocess`` on their
arguments (``vllm.compilation.codegen:compile_execution_fn``), so "anything in
vllm" would run anything.

Where a trusted module is found: installed, else beside the config or a plugin named on this
run (``beside``), so the author's converter module needs no ``PYTHONPATH``.
"""

from __future__ import annotations

import hashlib
import inspect
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core.config.plain import home_of

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any
    from workbench.core.parsers import ParserSpec

# Every callable (and every object a partial's argument refers to) that vLLM's
# engine-based families build their ParserEngineConfig with, in vLLM 0.32 and the
# 0.33 and 0.34 lanes, plus the family classes a config may name as parser_class. Tests
# prove it covers every family and shipped config (tests/core/test_trust.py, and every lane's
# own export in tests/core/config/test_spelling.py).
VLLM_CALLABLES = frozenset({
    "vllm.parser.deepseek_v32:DeepSeekV32Parser",
    "vllm.parser.deepseek_v32:_dsml_arg_value_extender",  # 0.34
    "vllm.parser.deepseek_v41:DeepSeekV41Parser",
    "vllm.parser.deepseek_v41:_PARAM_RE",
    "vllm.parser.deepseek_v41:_PARTIAL_PARAM_RE",
    "vllm.parser.deepseek_v41:_dsml_arg_value_extender",  # 0.34
    "vllm.parser.deepseek_v4:DeepSeekV4Parser",
    "vllm.parser.deepseek_v4:_dsml_arg_converter",
    "vllm.parser.deepseek_v4:_dsml_arg_value_extender",  # 0.34
    "vllm.parser.gemma4:Gemma4Parser",
    "vllm.parser.gemma4:_gemma4_arg_converter",
    "vllm.parser.gemma4:_gemma4_arg_value_extender",  # 0.33
    "vllm.parser.glm47_moe:Glm47MoeParser",
    "vllm.parser.glm47_moe:_glm47_arg_converter",
    "vllm.parser.glm47_moe:_glm47_arg_value_extender",  # 0.33
    "vllm.parser.granite:GraniteParser",
    "vllm.parser.granite:_granite_arg_converter",
    "vllm.parser.granite_thinking:GraniteThinkingParser",
    "vllm.parser.granite_toolcall:GraniteToolCallParser",  # 0.34
    "vllm.parser.inkling:InklingParser",
    "vllm.parser.inkling:_inkling_arg_converter",
    "vllm.parser.kimi_k2:KimiK2Parser",
    "vllm.parser.ling3:Ling3Parser",
    "vllm.parser.llama_json:LlamaJsonParser",  # 0.34
    "vllm.parser.llama_json:_llama_arg_converter",  # 0.34
    "vllm.parser.llama_json:_validate_complete_tool_output",  # 0.34
    "vllm.parser.mimo:MiMoParser",
    "vllm.parser.mimo:_mimo_arg_converter",
    "vllm.parser.minicpmv:MiniCPMVParser",
    "vllm.parser.minimax_m2:MinimaxM2Parser",
    "vllm.parser.minimax_m2:_minimax_m2_arg_converter",
    "vllm.parser.minimax_m2:_minimax_m2_arg_value_extender",  # 0.33
    "vllm.parser.minimax_m3:MinimaxM3Parser",
    "vllm.parser.minimax_m3:_minimax_m3_arg_converter",
    "vllm.parser.mistral:MistralParser",
    "vllm.parser.nemotron_v3:NemotronV3Parser",
    "vllm.parser.plamo3:Plamo3Parser",
    "vllm.parser.qwen3:Qwen3Parser",
    "vllm.parser.qwen3:_param_value_extender",  # 0.33
    "vllm.parser.qwen3:_qwen3_arg_converter",
    "vllm.parser.qwen3:_qwen3_arg_value_extender",  # 0.33
    "vllm.parser.ripple:RippleParser",  # 0.34
    "vllm.parser.ripple:_ripple_arg_converter",  # 0.34
    "vllm.parser.seed_oss:SeedOssParser",
    "vllm.parser.step3p5:Step3p5Parser",
    "vllm.parser.zaya:ZayaParser",  # 0.34
})

_NAME = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


class UntrustedCallable(ValueError):
    """A config names code this run does not trust."""


@dataclass(frozen=True)
class CallablePolicy:
    names: frozenset[str] = VLLM_CALLABLES  # exact "module:attr" names
    plugins: tuple[str, ...] = ()  # module names of the plugins named on this run
    beside: tuple[str, ...] = ()  # the folders of those plugins: a trusted module may live there
    spelling: str = "cli"  # how the refusal says to trust a name: "cli" or "notebook"

    def check_module(self, ref: str, module: str) -> None:
        """Before the import: importing a module runs its code."""
        if ref not in self.names and module not in self.plugins:
            raise self.refusal(ref)

    def check_object(self, ref: str, obj: Any) -> None:
        """After each attribute hop of a plugin's name: a module or callable must be the
        plugin's own, so ``plugin:os.system`` does not reach ``os`` through the plugin."""
        if ref in self.names or not (inspect.ismodule(obj) or callable(obj)):
            return
        if home_of(obj) not in self.plugins:
            raise self.refusal(ref)

    def refusal(self, ref: str) -> UntrustedCallable:
        from workbench.errors import close_matches

        how = (f"add allow_callable=[{ref!r}] to workbench.show(...) or Workbench(...)" if self.spelling == "notebook"
               else f"pass --allow-callable {ref}")
        return UntrustedCallable(
            f"refused callable {ref!r}{close_matches(ref, self.names)}: not one of the callables vLLM's "
            f"own parser configs use, nor defined in a plugin named on this run ({how} to trust this one)")

    def trusted(self) -> tuple[list[str], list[str]]:
        """(names, plugin modules) as plain lists: what an exported test checks a config with
        (``config.plain.resolve``'s ``trusted``)."""
        return sorted(self.names), list(self.plugins)


DEFAULT = CallablePolicy()


def allow_callable_arg(text: str) -> str:
    """``--allow-callable module:attr``; the old MODULE form is refused in one line."""
    if ":" not in text:
        raise ValueError(f"{text!r} is a module: name one callable as module:attr "
                         f"(a module is never trusted whole)")
    if not _NAME.match(text):
        raise ValueError(f"{text!r}: expected module:attr")
    return text


def policy(plugin_modules: Iterable[str] = (), allow_callables: Iterable[str] = (), beside: Iterable[str] = (),
           spelling: str = "cli") -> CallablePolicy:
    from workbench.errors import WorkbenchError

    for name in allow_callables:
        try:
            allow_callable_arg(name)
        except ValueError as e:
            raise WorkbenchError(f"{'allow_callable=' if spelling == 'notebook' else '--allow-callable '}{e}") from None
    return CallablePolicy(VLLM_CALLABLES | frozenset(allow_callables), tuple(plugin_modules),
                          tuple(dict.fromkeys(str(b) for b in beside)), spelling)


def for_plugins(loaded: Iterable[Any], allow_callables: Iterable[str] = (), spelling: str = "cli") -> CallablePolicy:
    """The policy of a run with these loaded plugins (``plugins.Plugin``): their modules are
    trusted, and a module beside one of them is found without ``PYTHONPATH``."""
    loaded = list(loaded)
    return policy([p.module for p in loaded], allow_callables, [str(Path(p.file).parent) for p in loaded], spelling)


def file_sha256(path: str | Path) -> str | None:
    from workbench.core import door, limits

    try:
        return hashlib.sha256(door.read_bytes(path, "file", limits.MAX_CODE_BYTES)).hexdigest()
    except door.InputError:
        return None


def provenance(spec: ParserSpec, plugins: Iterable[str] = (), config_text: str | None = None) -> dict:
    """A recording header's ``parser``: names, the config's path and sha256, the plugins'."""
    out = spec.to_dict()
    if config_text is not None:
        out["config_sha256"] = hashlib.sha256(config_text.encode("utf-8")).hexdigest()
    elif spec.config:
        out["config_sha256"] = file_sha256(spec.config)
    if plugins:
        out["plugins"] = [{"file": Path(p).name, "sha256": file_sha256(p)} for p in plugins]
    return out
