"""Environment defaults that must be in place before vLLM is imported."""

import os

from workbench.core import deferred

_DEFAULTS = {
    # The in-process engine (InprocClient) is what lets us step it and read its
    # structured-output manager; a separate EngineCore process would hide both.
    "VLLM_ENABLE_V1_MULTIPROCESSING": "0",
    "VLLM_CPU_KVCACHE_SPACE": "1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "VLLM_NO_USAGE_STATS": "1",
    "DO_NOT_TRACK": "1",
    "VLLM_LOGGING_LEVEL": "WARNING",
    # vLLM logs to stdout by default, which would break `--json | jq`; rows keep the lines too.
    "VLLM_LOGGING_STREAM": "ext://sys.stderr",
    "TOKENIZERS_PARALLELISM": "false",
    # transformers' advice is for training and running a model ("Token indices sequence length
    # is longer than..."): printed, it was a second line under a one-line error. Its errors show.
    "TRANSFORMERS_VERBOSITY": "error",
}

for _key, _value in _DEFAULTS.items():
    os.environ.setdefault(_key, _value)

deferred.install()  # jsonschema's optional IRI grammar, compiled only when first used
