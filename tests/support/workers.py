"""`make test` runs on two pytest-xdist workers (``-n 2 --dist loadgroup``), one per core of
CI's machine: one pytest process keeps one core busy, and most of a test's time is one
process importing vLLM or stepping a parser.

Tests that share something costly to start run on one worker, in order, so the run starts
it once: the JupyterLab of the browser tests, the in-process engine, the Rust frontend, a
lane, and whatever a module's own module-scoped fixtures start (its servers, its pool). Every
other test goes on its own to whichever worker is free. Before the workers start, the
controller fetches what two of them must not fetch at once: the lanes' trees, vllm-rs and
the tiny models (each is written under .cache/ by whoever needs it first).
"""

from __future__ import annotations

# A test using one of these session fixtures joins the group of that name.
SHARED = ("lab", "engine_stepper", "seed_frontend", "lane")


def active(config) -> bool:
    """Is this run spread over xdist workers (on the controller or on a worker)?"""
    return is_worker(config) or bool(getattr(config.option, "numprocesses", None))


def is_worker(config) -> bool:
    return hasattr(config, "workerinput")


def group_of(item) -> str | None:
    """The group a test runs in, or None: any worker may run it."""
    names = item.fixturenames
    shared = next((name for name in SHARED if name in names), None)
    if shared:
        return shared
    if item.get_closest_marker("engine"):  # the Workbench's own embedded engine: one per process
        return "engine_stepper"
    defs = item._fixtureinfo.name2fixturedefs  # pytest keeps each fixture's scope only here
    if any(d[-1].scope in ("module", "package") for d in defs.values()):
        return item.module.__name__
    return None


def group(config, items) -> None:
    """Mark each test with its xdist group (loadgroup keeps a group on one worker)."""
    if not active(config):
        return
    import pytest

    for item in items:
        name = group_of(item)
        if name is not None:
            item.add_marker(pytest.mark.xdist_group(name))


def prefetch(config) -> None:
    """On the controller of a `pytest -n` run: what the workers would otherwise race to write."""
    if not active(config) or is_worker(config):
        return
    from workbench.engine.tiny_model import ensure_tiny_model
    from workbench.lanes import tree
    from workbench.lanes.versions import locked
    from workbench.rustfe import binary

    for version in locked():
        tree.ensure(version)
    binary.ensure()
    for tokenizer in ("qwen3", "gpt_oss"):
        ensure_tiny_model(tokenizer)
