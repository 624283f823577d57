"""Warm lanes (lanes/warm.py): a lane server per version that outlives a command.

The module starts one server of its own (its own socket folder, XDG_RUNTIME_DIR under
tmp_path, so the user's servers are never touched) and stops it at the end. What is
checked: two commands share it (the second pays no lane start) and get the rows a lane of
their own gives; the folder and socket are the user's only; a worker that dies takes
only its own connection; an idle server exits and removes its socket; an edited
workbench means another server.
"""

from __future__ import annotations

import os
import socket
import stat
import time
from pathlib import Path

import pytest

from tests.support.seed import SEED_TEXT, WEATHER_TOOLS
from workbench.cli import warm_server
from workbench.lanes import lane as lanes, versions, warm

LANE = next((v for v in versions.listed() if not versions.is_installed(v)), None)
pytestmark = pytest.mark.skipif(LANE is None, reason="no lane in setup/vllm-lanes.lock")


@pytest.fixture(scope="module")
def warm_env(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_RUNTIME_DIR", str(tmp_path_factory.mktemp("run")))
    mp.setenv(warm.OFF_ENV, "1")
    mp.setenv(warm.IDLE_ENV, "300")
    mp.setattr(lanes, "_LANES", {})
    yield
    lanes.close_all()
    warm.stop()
    mp.undo()


def _command_lane():
    """The lane a new command would get: none of this process's kept."""
    lanes.close_all()
    return lanes.get(LANE)


def test_two_commands_share_one_server_and_get_a_lanes_rows(warm_env):
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Setup
    from workbench.lanes.lane_session import session_for

    first = _command_lane()
    assert isinstance(first, warm.WarmLane) and first.spawned and not first.warm
    running = warm.main(["status"]) == 0 and list(warm.runtime_dir().glob("*.pid"))
    assert len(running) == 1
    second = _command_lane()
    assert second.warm and not second.spawned and second.start_s < first.start_s
    assert second.info["vllm"] == LANE and second.call("ping") == {}
    setup = Setup("qwen3", ParserSpec("hermes", "qwen3"), RequestSpec(tools=WEATHER_TOOLS))
    warm_rows = session_for(setup, LANE).replay(session_for(setup, LANE).deltas_from_text(SEED_TEXT))
    lanes.close_all()
    os.environ[warm.OFF_ENV] = "0"  # a lane of this command's own, as before warm lanes
    try:
        own = session_for(setup, LANE)
        assert not isinstance(own.lane, warm.WarmLane)
        own_rows = own.replay(own.deltas_from_text(SEED_TEXT))
    finally:
        lanes.close_all()
        os.environ[warm.OFF_ENV] = "1"
    view = lambda r: [(x.step, x.text, x.phase, x.sse, x.error) for x in r.rows]  # noqa: E731
    calls = lambda r: [(c["name"], c["arguments"]) for c in r.nonstream["tool_calls"]]  # noqa: E731  (ids are random)
    assert view(warm_rows) == view(own_rows) and calls(warm_rows) == calls(own_rows) == [("get_weather", '{"city": "Paris"}')]


def test_the_socket_is_the_users_only(warm_env):
    _command_lane()
    folder = warm.runtime_dir()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and folder.stat().st_uid == os.getuid()
    sock = warm.socket_path(LANE)
    assert stat.S_ISSOCK(sock.stat().st_mode) and stat.S_IMODE(sock.stat().st_mode) & 0o077 == 0
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(sock))
        assert warm_server._peer_uid(s) == os.getuid()  # what the server compares each peer with


def test_the_server_and_each_worker_work_in_a_private_folder(warm_env):
    """Never the project checkout (where a relative --config once found the shipped file of
    that name): an empty 0700 folder each, the worker's removed when its command ends."""
    first, second = _command_lane(), lanes.get(LANE, program=warm.SERVED)
    folders = [Path(first.info["folder"]), Path(second.info["folder"])]
    server = Path(os.readlink(f"/proc/{warm._server_pid(warm.socket_path(LANE).with_suffix('.pid'))}/cwd"))
    assert len({*folders, server}) == 3
    for folder in (*folders, server):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert versions.REPO_ROOT not in (folder, *folder.parents) and folder != Path.cwd()
    lanes.close_all()
    deadline = time.monotonic() + 10
    while any(f.exists() for f in folders) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(f.exists() for f in folders) and server.is_dir()


def test_a_worker_that_dies_takes_only_its_connection(warm_env):
    dying = _command_lane()
    folder = Path(dying.info["folder"])
    with pytest.raises(lanes.LaneDied, match="closed the connection"):
        dying.call("exit", code=3)
    assert not dying.alive
    deadline = time.monotonic() + 10
    while folder.exists() and time.monotonic() < deadline:  # the server removes what it could not
        time.sleep(0.1)
    assert not folder.exists()
    again = _command_lane()
    assert again.warm and again.call("ping") == {}


def test_an_edited_workbench_gets_another_server(warm_env, monkeypatch):
    before = warm.key(LANE)
    monkeypatch.setattr(warm, "code_stamp", lambda: "edited")
    assert warm.key(LANE) != before
    path = warm.versions.REPO_ROOT / "workbench" / "lanes" / "warm.py"
    st = path.stat()
    try:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
        monkeypatch.undo()
        assert warm.key(LANE) != before
    finally:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert warm.key(LANE) == before


@pytest.mark.slow  # a second server start (about 30 s)
def test_an_idle_server_exits_and_removes_its_socket(warm_env, monkeypatch):
    warm.stop()
    monkeypatch.setenv(warm.IDLE_ENV, "2")
    lane = _command_lane()
    assert lane.spawned
    lanes.close_all()
    sock = warm.socket_path(LANE)
    deadline = time.monotonic() + 30
    while (sock.exists() or warm._server_pid(sock.with_suffix(".pid"))) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not sock.exists() and warm._server_pid(sock.with_suffix(".pid")) is None
