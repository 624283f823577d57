"""The corpus pool's workers and the warm lanes: a worker takes a temporary folder of its own,
yet its lanes meet the user's warm servers (the socket folder the run's process has), so a
matrix or corpus run on the pool starts no servers of its own that outlive it.

This module is also the pool's task here (``run``, ``error_line``): a worker answers with
the folders it sees."""

from __future__ import annotations

import os
import tempfile

import pytest

from workbench.corpus import pool
from workbench.lanes import versions, warm, warm_socket


class _Spec:
    def to_dict(self) -> dict:
        return {}


def run(spec: dict, name: str, key: str, payload: object) -> dict:
    return {"name": name, "tmp": tempfile.gettempdir(), "sockets": str(warm_socket.runtime_dir()),
            "lane": str(warm.socket_path(key)), "pid": os.getpid()}


def error_line(spec: dict, name: str, key: str, error: str, kind: str, payload: object = None) -> dict:
    return {"name": name, "error": error}


@pytest.fixture
def own_tmp(tmp_path, monkeypatch):
    """This process's temporary folder under tmp_path, no XDG_RUNTIME_DIR: the sockets' folder
    follows the temporary one, as on a machine without a session runtime folder."""
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def test_each_worker_finds_the_users_sockets_not_its_own(own_tmp):
    lane = next((v for v in versions.listed() if not versions.is_installed(v)), versions.installed())
    jobs = [(f"job{i}", lane, None) for i in range(4)]
    lines = list(pool.run(_Spec(), iter(jobs), 2, task=__name__))
    assert len(lines) == 4 and len({ln["pid"] for ln in lines}) == 2
    for ln in lines:
        assert ln["tmp"] != str(own_tmp)  # the worker's own folder, removed when it stops
        assert ln["sockets"] == str(warm_socket.runtime_dir()) == str(own_tmp / f"workbench-lanes-{os.getuid()}")
        assert ln["lane"] == str(warm.socket_path(lane))  # the server this process's commands use


@pytest.fixture
def short_tmp(monkeypatch):
    """As own_tmp, in a folder short enough for a Unix socket's path (108 bytes)."""
    import shutil

    folder = tempfile.mkdtemp(prefix="wbp-", dir="/tmp")
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", folder)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow  # a warm server's start (30-90 s)
def test_a_matrix_run_on_the_pool_shares_one_warm_server_and_leaves_no_process(short_tmp, monkeypatch):
    import psutil

    from workbench.conformance import run as run_mod
    from workbench.conformance.cases import CASES_DIR, load_cases
    from workbench.lanes import lane as lanes

    lane = next((v for v in versions.listed() if not versions.is_installed(v)), None)
    if lane is None:
        pytest.skip("no lane in setup/vllm-lanes.lock")
    monkeypatch.setenv(warm.OFF_ENV, "1")
    monkeypatch.setenv(warm.IDLE_ENV, "120")
    monkeypatch.setattr(lanes, "_LANES", {})
    me = psutil.Process()
    before = {p.pid for p in me.children(recursive=True)}
    cases = load_cases([str(CASES_DIR / "hermes" / f"{n}.toml") for n in ("one-call", "no-call", "parallel-calls")])
    try:
        got = run_mod.run(cases, run_mod.Options(versions=[lane], frontends=["python", "rust"],
                                                 groupings=["whole", "token"], workers=2))
        assert {c["verdict"] for c in got.cells if c["frontend"] == "python"} == {"match"}
        servers = [p for p in psutil.process_iter(["cmdline"])
                   if warm.SERVER in " ".join(p.info["cmdline"] or ()) and short_tmp in " ".join(p.info["cmdline"])]
        assert [s.info["cmdline"][-2] for s in servers if s.ppid() == 1 or s.ppid() not in {x.pid for x in servers}] \
            == [str(warm.socket_path(lane))]  # one server, at the user's socket, none per worker
        left = [p for p in me.children(recursive=True) if p.pid not in before and p.is_running()
                and p.status() != psutil.STATUS_ZOMBIE and warm.SERVER not in " ".join(p.cmdline())]
        assert left == []  # no worker, lane worker or vllm-rs frontend of the run: only the shared server stays
    finally:
        warm.stop(lane)
