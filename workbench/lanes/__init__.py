"""Other vLLM versions' parsers, each in its own worker subprocess (a *lane*).

The installed vLLM runs in-process and is the only one that steps the engine. A
version listed in ``setup/vllm-lanes.lock`` runs parse-only: its wheel's Python
tree (no compiled code) is extracted to ``.cache/vllm/<version>/`` and put first
on ``sys.path`` of a worker that runs the workbench's own core over it.
"""
