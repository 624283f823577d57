"""Quiet: the frontend has dealt with what it was sent once all its threads sleep and none
ran between two looks. Checked on processes whose state is known: a sleeper, a spinner,
one that wakes on its own, and one that has exited."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from workbench.errors import WorkbenchError
from workbench.rustfe.quiesce import Quiet

# timing: how long a look takes, on processes that sleep or spin (make test runs these alone)
pytestmark = pytest.mark.serial


def _proc(code: str) -> subprocess.Popen:
    p = subprocess.Popen([sys.executable, "-c", code])
    time.sleep(0.3)  # past its start-up
    return p


def test_a_sleeping_process_is_quiet_at_once():
    p = _proc("import time; time.sleep(30)")
    try:
        q = Quiet(p.pid)
        t0 = time.monotonic()
        q.wait(timeout=5)
        assert time.monotonic() - t0 < 1 and q.looks <= 2
    finally:
        p.kill()
        p.wait()


def test_a_busy_process_is_never_quiet():
    p = _proc("while True: pass")
    try:
        with pytest.raises(WorkbenchError, match=rf"pid {p.pid}\) was still busy after 0.3 s"):
            Quiet(p.pid).wait(timeout=0.3)
    finally:
        p.kill()
        p.wait()


def test_what_a_write_sets_off_is_waited_for():
    """As the core uses it: a write wakes the process (inside the write), which then works
    for a while and writes back; once quiet, its answer is there."""
    p = subprocess.Popen([sys.executable, "-c", "import sys, time\nfor line in sys.stdin:\n"
                          "    end = time.monotonic() + 0.3\n    while time.monotonic() < end: pass\n"
                          "    print('done', flush=True)"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    time.sleep(0.3)
    try:
        q = Quiet(p.pid)
        q.wait(timeout=5)
        t0 = time.monotonic()
        p.stdin.write(b"go\n")
        p.stdin.flush()
        q.wait(timeout=5)
        assert time.monotonic() - t0 >= 0.3 and q.looks > 0
        import select

        assert select.select([p.stdout], [], [], 0)[0] and p.stdout.readline() == b"done\n"
    finally:
        p.kill()
        p.wait()


def test_an_exited_process_is_quiet():
    p = _proc("pass")
    p.wait()
    Quiet(p.pid).wait(timeout=1)
