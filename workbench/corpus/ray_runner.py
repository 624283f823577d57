"""The same corpus tasks on Ray: one Ray call per recording, its bytes in the call (the
workers need no shared disk), results taken in the order they finish.

``auto`` starts a Ray on this machine whose every server listens on 127.0.0.1 only and
stops it at the end; an address joins a running cluster (``ray start --head``) and
leaves it running. The calls go to long-lived Ray actors, one per CPU of the cluster:
each loads vLLM, the workbench and the recordings' tokenizers once, when it starts (as
the pool's workers are forked with them loaded), gets the spec once, and then runs one
recording per call, with two calls in flight so that a call's round trip overlaps the
one running. A plain task per recording cost 4.9 ms of Ray overhead against 29 ms of
work; an actor call costs ~1 ms (the README's figures). An actor that dies turns the
recording it was running into an error line; the ones queued behind it run again on
its replacement. The workbench and vLLM must be installed on every node, as for vLLM's
own Ray executor.
"""

from __future__ import annotations

import os
import socket
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from types import ModuleType

from workbench.corpus.spec import Spec
from workbench.errors import WorkbenchError

INSTALL = "--ray needs Ray: pip install '.[ray]' (or bash setup/setup.sh --with-ray)"
IN_FLIGHT = 2  # calls queued per actor: one running, one waiting, so the round trip overlaps work
CONNECT_TIMEOUT_S = 5.0  # an address that does not answer: Ray itself would retry for minutes
LOOPBACK = {"localhost", "127.0.0.1", "::1"}
# A local Ray for `auto`: loopback only (Ray's own switch for a one-machine cluster), and
# room for its agents to start on a loaded two-core machine (its raylet gives them 15 s):
# no idle workers started beside them (the actors start their own).
LOCAL_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_agent_register_timeout_ms": "120000",
             "RAY_USAGE_STATS_ENABLED": "0", "RAY_enable_worker_prestart": "0"}


def require() -> None:
    """One line saying how to get Ray, before anything runs."""
    _ray()


def _ray() -> ModuleType:
    try:
        import ray
    except ImportError:
        raise WorkbenchError(INSTALL) from None
    return ray


def start(address: str, cpus: int | None) -> ModuleType:
    """Connect (``address``) or start a local Ray (``auto``); returns the ray module."""
    ray = _ray()
    quiet = {"log_to_driver": False, "logging_level": "error", "include_dashboard": False}
    if address != "auto":
        _answers(address)
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
        ray.shutdown()  # what did start of a local Ray (its GCS, dashboard, agents) stops with it
        raise WorkbenchError(f"--ray {address}: Ray did not start: {first}") from None
    return ray


def _answers(address: str) -> None:
    """A cluster's address is HOST:PORT and something listens where Ray will dial, or one line now."""
    host, sep, port = address.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise WorkbenchError(f"--ray {address}: give auto or the head's HOST:PORT (as `ray start --head` prints)")
    why = _dial(host, int(port))
    if why:
        raise WorkbenchError(f"--ray {address}: no Ray head answers there ({why}); "
                             "start one with `ray start --head`")
    # Ray dials this machine's own address for a loopback one, unless its one-machine switch is off
    if host in LOOPBACK and os.environ.get("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "1").lower() in ("1", "true"):
        import ray.util

        mine = ray.util.get_node_ip_address()
        if mine not in LOOPBACK and _dial(mine, int(port)):
            raise WorkbenchError(f"--ray {address}: Ray dials {mine}:{port} for it (this machine's address), where "
                                 "nothing answers: for a head on 127.0.0.1 only, set "
                                 "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 here too")


def _dial(host: str, port: int) -> str | None:
    """None when a TCP connection opens, else why not."""
    try:
        socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as e:
        return "timed out" if isinstance(e, TimeoutError) else (e.strerror or type(e).__name__)
    return None


def _init_local(ray: ModuleType, cpus: int | None, quiet: dict) -> None:
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


class Worker:
    """The Ray actor: vLLM and the tokenizers loaded once, then one recording per call."""

    def __init__(self, spec: dict, tokenizers: list[str], task: str = "workbench.corpus.task") -> None:
        import importlib

        from workbench.corpus.pool import TASK, preload

        preload(tokenizers)
        self.task = importlib.import_module(task)
        self.spec = Spec.from_dict(spec) if task == TASK else spec

    def ready(self) -> None:
        return None

    def run(self, path: str, sha256: str, data: bytes) -> dict:
        return self.task.run(self.spec, path, sha256, data)


class _Slot:
    def __init__(self, handle: object) -> None:
        self.handle = handle
        self.sent: deque = deque()  # (ref, job) in the order sent: an actor runs them in that order


class Fleet:
    """One actor per CPU of the cluster (or ``size``), kept across runs."""

    def __init__(self, ray: ModuleType, spec: Spec, tokenizers: Iterable[str] = (), size: int | None = None,
                 task: str = "workbench.corpus.task") -> None:
        import importlib

        self.ray, self.spec = ray, spec
        self.task = importlib.import_module(task)
        self._cls = ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(Worker)
        self._args = (spec.to_dict(), list(tokenizers), task)
        self.starting: dict = {}  # ready() ref -> slot, for actors still loading
        self.slots: list[_Slot] = []  # started actors
        self.failed: str | None = None  # why an actor did not start, if one did not
        for _ in range(size or max(1, int(ray.cluster_resources().get("CPU", 1)))):
            self._new()

    def _new(self) -> None:
        slot = _Slot(self._cls.remote(*self._args))
        self.starting[slot.handle.ready.remote()] = slot

    def run(self, jobs: Iterable) -> Iterator[dict]:
        """Results lines for ``jobs`` ((path, sha256, bytes), or a ready line) as they finish."""
        ray, pending, again, ready = self.ray, iter(jobs), deque(), deque()
        flying: dict = {}  # ref -> slot
        more = True

        def feed(slot: _Slot) -> None:
            nonlocal more
            while len(slot.sent) < IN_FLIGHT and (again or more):
                job = again.popleft() if again else next(pending, None)
                if job is None:
                    more = False
                elif isinstance(job, dict):
                    ready.append(job)
                else:
                    ref = slot.handle.run.remote(*job)
                    slot.sent.append((ref, job))
                    flying[ref] = slot

        for slot in self.slots:
            feed(slot)
        while True:
            while ready:
                yield ready.popleft()
            refs = list(flying) + (list(self.starting) if more or again else [])
            if not refs:
                if more or again:  # no actor left to run them
                    raise WorkbenchError(f"--ray: its Ray workers did not start: {self.failed}")
                return
            done, _ = ray.wait(refs, num_returns=len(refs), timeout=0)  # every one done by now
            if not done:
                done, _ = ray.wait(refs, num_returns=1)
            for ref in done:
                if ref in self.starting:
                    self._started(self.starting.pop(ref), ref, feed)
                elif ref in flying:  # not dropped with an actor that died
                    slot = flying.pop(ref)
                    try:
                        line = ray.get(ref)
                    except ray.exceptions.RayActorError as e:
                        self._died(slot, e, flying, again, ready)
                        continue
                    except ray.exceptions.RayError as e:  # Ray lost this one call
                        _, job = next(s for s in slot.sent if s[0] == ref)
                        line = self.task.error_line(self.spec, job[0], job[1], f"its Ray call failed: {_why(e)}",
                                                   "worker", job[2])
                    slot.sent = deque(s for s in slot.sent if s[0] != ref)
                    yield line
                    feed(slot)

    def _started(self, slot: _Slot, ref: object, feed: Callable[[_Slot], None]) -> None:
        try:
            self.ray.get(ref)
        except self.ray.exceptions.RayError as e:  # its constructor raised, or it found no node
            self.failed = self.failed or _why(e)
            return
        self.slots.append(slot)
        feed(slot)

    def _died(self, slot: _Slot, e: Exception, flying: dict, again: deque, ready: deque) -> None:
        """The first call sent is the one it was running: its error line; the rest run again."""
        self.slots.remove(slot)
        self.ray.kill(slot.handle)  # gone, or unreachable: its CPU goes to the replacement
        (_, job), *queued = slot.sent
        for ref, _ in slot.sent:
            flying.pop(ref, None)
        ready.append(self.task.error_line(self.spec, job[0], job[1], f"its Ray worker died: {_why(e)}",
                                         "worker", job[2]))
        again.extendleft(j for _, j in reversed(queued))
        self._new()

    def close(self) -> None:
        for slot in self.slots + list(self.starting.values()):
            self.ray.kill(slot.handle)


def _why(e: Exception) -> str:
    text = str(e).strip()
    return f"{type(e).__name__}: {text.splitlines()[-1]}" if text else type(e).__name__


def run(spec: Spec, jobs: Iterable, address: str = "auto", cpus: int | None = None,
        tokenizers: Iterable[str] = (), task: str = "workbench.corpus.task") -> Iterator[dict]:
    """Results lines for ``jobs`` ((path, sha256, bytes), or a ready line) as they finish;
    ``task``: the module that runs each (pool.run's)."""
    from workbench.corpus.pool import until_first_job

    before, pending = until_first_job(jobs)
    yield from before
    if pending is None:
        return
    ray = start(address, cpus)
    try:
        fleet = Fleet(ray, spec, tokenizers, task=task)
        try:
            yield from fleet.run(pending)
        finally:
            fleet.close()
    finally:
        ray.shutdown()
