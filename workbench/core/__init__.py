"""The widget-free core: tokenizers, requests, deltas, vLLM parsers, rows.

Nothing under ``workbench.core`` imports ipywidgets or IPython. vLLM is imported
lazily inside functions, so ``import workbench.core`` stays cheap.
"""

from workbench.core import env  # noqa: F401  (sets offline defaults before vLLM loads)
