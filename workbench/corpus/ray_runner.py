"""The same corpus tasks on Ray: one task per recording, its bytes in the task (the
workers need no shared disk), results taken in the order they finish.

``auto`` starts a Ray on this machine whose every server listens on 127.0.0.1 only and
stops it at the end; an address joins a running cluster (``ray start --head``) and
leaves it running. Each Ray worker process imports vLLM with its first task and keeps
it (and its lanes) for the next ones, as a pool worker does. The workbench and vLLM
must be installed on every node, as for vLLM's own Ray executor.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Iterator

from workbench.corpus import task as task_mod
from workbench.corpus.spec import Spec
from workbench.errors import WorkbenchError

INSTALL = "--ray needs Ray: pip install '.[ray]' (or bash setup/setup.sh --with-ray)"
IN_FLIGHT_PER_CPU = 2  # tasks queued per CPU: enough to keep every worker busy, few in memory
# A local Ray for `auto`: loopback only (Ray's own switch for a one-machine cluster), and
# room for its agents to start on a loaded two-core machine (its raylet gives them 15 s):
# no idle workers started beside them (the first tasks start theirs).
LOCAL_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_agent_register_timeout_ms": "120000",
             "RAY_USAGE_STATS_ENABLED": "0", "RAY_enable_worker_prestart": "0"}


def require() -> None:
    """One line saying how to get Ray, before anything runs."""
    _ray()


def _ray():
    try:
        import ray
    except ImportError:
        raise WorkbenchError(INSTALL) from None
    return ray


def start(address: str, cpus: int | None):
    """Connect (``address``) or start a local Ray (``auto``); returns the ray module."""
    ray = _ray()
    quiet = {"log_to_driver": False, "logging_level": "error", "include_dashboard": False}
    try:
        if address == "auto":
            for k, v in LOCAL_ENV.items():
                os.environ.setdefault(k, v)
            _init_local(ray, cpus, quiet)
        else:
            quiet.pop("include_dashboard")
            ray.init(address=address, **quiet)
    except Exception as e:  # noqa: BLE001  (Ray's start-up failures are bare Exceptions: one line here)
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise WorkbenchError(f"--ray {address}: Ray did not start: {first}") from None
    return ray


def _init_local(ray, cpus: int | None, quiet: dict) -> None:
    for attempt in (1, 2):
        try:
            ray.init(num_cpus=cpus, object_store_memory=128 << 20, **quiet)
            return
        except Exception as e:  # noqa: BLE001  (Ray raises a bare Exception for this one)
            # Ray gives its node 30 s to come up; on a loaded two-core machine its agents'
            # imports can take longer. A second start finds them cached and warm.
            if attempt == 2 or "timed out during startup" not in str(e):
                raise
            ray.shutdown()


def run(spec: Spec, jobs: Iterable, address: str = "auto", cpus: int | None = None) -> Iterator[dict]:
    """Results lines for ``jobs`` ((path, sha256, bytes), or a ready line) as they finish."""
    from workbench.corpus.pool import until_first_job

    before, pending = until_first_job(jobs)
    yield from before
    if pending is None:
        return
    ray = start(address, cpus)
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(task_mod.run)
        spec_ref = ray.put(spec.to_dict())
        window = IN_FLIGHT_PER_CPU * max(1, int(ray.cluster_resources().get("CPU", 1)))
        ready, flying = deque(), {}

        def submit() -> None:
            for job in pending:
                if isinstance(job, dict):
                    ready.append(job)
                    continue
                flying[remote.remote(spec_ref, *job)] = job
                if len(flying) >= window:
                    return

        submit()
        while flying or ready:
            while ready:
                yield ready.popleft()
            if not flying:
                submit()
                continue
            (ref,), _ = ray.wait(list(flying), num_returns=1)
            path, sha, data = flying.pop(ref)
            try:
                line = ray.get(ref)
            except ray.exceptions.RayError as e:  # the worker process died, or Ray lost the task
                line = task_mod.error_line(spec, path, sha, f"its Ray task failed: {type(e).__name__}: "
                                           f"{str(e).strip().splitlines()[-1] if str(e).strip() else ''}",
                                           "worker", data)
            yield line
            submit()
    finally:
        ray.shutdown()
