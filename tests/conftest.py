"""Shared fixtures. vLLM is imported once per test run; expensive objects are
session-scoped (one tokenizer load, one engine per run)."""

from __future__ import annotations

import json
import os

import pytest

import workbench.core.env  # noqa: F401  (offline defaults before vLLM loads)
from tests.support import workers
from tests.support.seed import WEATHER_TOOLS

# Each test run starts its own lanes (one per version, shared by the run); the warm lane
# servers that outlive a command (lanes/warm.py) are tests/lanes/test_warm.py's to start.
os.environ.setdefault("WORKBENCH_WARM_LANES", "0")
# Every `workbench` a test starts as a process runs cold; tests/cli/test_daemon.py starts its own daemon.
os.environ.setdefault("WORKBENCH_NO_DAEMON", "1")


def _parity_module(session):
    return next((i.module for i in getattr(session, "items", ())
                 if getattr(i, "module", None) is not None and i.module.__name__.endswith("test_serve_parity")), None)


def pytest_collection_finish(session):
    """A `vllm serve` takes ~40 s to start: the serve-parity module's first server starts now,
    in the background, and comes up while the tests before that module run. Not on a
    `pytest -n` worker: every worker collects every test, and which one runs that module is
    not known yet."""
    module = _parity_module(session)
    if module is not None and not session.config.option.collectonly and not workers.is_worker(session.config):
        module.start_early(session.items)


def pytest_sessionstart(session):
    workers.prefetch(session.config)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups into the test ids
def pytest_collection_modifyitems(config, items):
    workers.group(config, items)


def pytest_sessionfinish(session):
    module = _parity_module(session)
    if module is not None:
        module.stop_early()  # the early server, where no parity case took it over (-x, -k, Ctrl+C)

@pytest.fixture(autouse=True)
def _parser_registries():
    """A plugin a test loads registers its names in vLLM's two managers for the whole
    process (a real command is a process of its own): each test starts with the names the
    one before it found, so one test's `qwen3` plugin is not the next test's vLLM qwen3."""
    import sys

    managers = []
    if "vllm.tool_parsers" in sys.modules and "vllm.reasoning" in sys.modules:
        from vllm.reasoning import ReasoningParserManager
        from vllm.tool_parsers import ToolParserManager

        managers = [(ToolParserManager, "tool_parsers"), (ReasoningParserManager, "reasoning_parsers")]
    saved = [(m, attr, dict(getattr(m, attr)), dict(m.lazy_parsers)) for m, attr in managers]
    yield
    for manager, attr, eager, lazy in saved:
        getattr(manager, attr).clear()
        getattr(manager, attr).update(eager)
        manager.lazy_parsers.clear()
        manager.lazy_parsers.update(lazy)


@pytest.fixture(autouse=True)
def _no_secrets():
    """A capture registers its API key and URL password for the whole process (a real
    command is a process of its own): the next test does not hold them, so a test's
    `user:pass@` URL does not scrub "pass" out of another test's output."""
    yield
    from workbench.core import secrets

    secrets.forget()


@pytest.fixture(scope="session")
def qwen3_tokenizer():
    from workbench.core.tokenizers import load_tokenizer

    return load_tokenizer("qwen3")


@pytest.fixture
def tools_file(tmp_path):
    p = tmp_path / "tools.json"
    p.write_text(json.dumps(WEATHER_TOOLS))
    return p


@pytest.fixture
def run_cli(capsys):
    """Run `workbench ARGS...` in-process; returns (exit code, stdout, stderr)."""
    from workbench.cli import main

    def run(*argv):
        code = main([str(a) for a in argv])
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


@pytest.fixture(scope="session")
def engine_stepper():
    """The run's one in-process vLLM engine (tiny qwen3 model), as an EngineStepper.

    Tests start their own requests on it; it is shut down at the end of the run."""
    from workbench.engine import EngineStepper

    stepper = EngineStepper()
    yield stepper
    stepper.close()


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    """One JupyterLab server for every browser test of the run (each start costs 80-100 s
    on a loaded 2-core machine): ``.base``, ``.token``, ``.root`` (write notebooks there),
    ``.shutdown_kernels()`` (each test's kernels hold an engine: stop them when done)."""
    import threading
    import types
    import urllib.error
    import urllib.request

    from tests.support.jupyterlab import lab_server, require_chromium

    require_chromium()
    tmp = tmp_path_factory.mktemp("lab")
    root = tmp / "root"
    root.mkdir()
    stopping: list[threading.Thread] = []
    with lab_server(tmp, root) as (base, token):
        def delete(kernel_id: str) -> None:
            req = urllib.request.Request(f"{base}/api/kernels/{kernel_id}?token={token}", method="DELETE")
            try:
                urllib.request.urlopen(req, timeout=60).close()
            except urllib.error.HTTPError as e:
                if e.code != 404:  # 404: it had stopped already
                    raise

        def shutdown_kernels() -> None:
            """Ask the server to stop every kernel now running; the next test need not wait
            for them to exit (about 3 s each), the run's end does."""
            with urllib.request.urlopen(f"{base}/api/kernels?token={token}", timeout=30) as r:
                kernels = json.load(r)
            for k in kernels:
                stopping.append(threading.Thread(target=delete, args=(k["id"],), daemon=True))
                stopping[-1].start()

        yield types.SimpleNamespace(base=base, token=token, root=root, shutdown_kernels=shutdown_kernels)
        for t in stopping:
            t.join(timeout=60)
