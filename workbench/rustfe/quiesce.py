"""When the frontend has dealt with what it was sent: every thread of its process asleep.

The scripted core writes an engine output into the frontend's socket with a blocking
send; the kernel wakes the reading thread inside that send, and every hand-off after it
(libzmq's mailbox, tokio's wakers, the write into our HTTP socket) is such a wake-up. So
once the send has returned, some thread of the frontend is runnable until everything
that output causes is done; then all sleep, and each SSE event it caused is in our
socket. That is the boundary between one delta's events and the next's, found without
timing guesses. Linux only (``/proc``).

One look at the threads is not a snapshot: a thread read as asleep may be woken by one
read after it. So it is quiet when two looks in a row find every thread asleep and none
of them has run in between (``schedstat``'s count of times on a CPU unchanged): at the
moment between the two looks, nothing in the process was runnable. What no look can see
is work the process has put on a timer: nothing on the frontend's way from an engine
output to the SSE body waits on one (0.34.0 and 0.33.0; tests/rustfe/test_core.py checks
that every step's chunk carries exactly that step's token ids).
"""

from __future__ import annotations

import os
import time

from workbench.errors import WorkbenchError

ASLEEP = frozenset(b"SIPZX")  # sleeping, idle, parked, or exiting: nothing left to do
PAUSE_S = 0.00005  # between two looks: the frontend needs the CPU more than we do


class Quiet:
    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.tasks = f"/proc/{pid}/task"
        self.looks = 0  # looks that found it busy (the bench reports them)
        self._fds: dict[str, tuple[int, int]] = {}  # thread id -> its stat and schedstat, kept open

    def _files(self, tid: str) -> tuple[int, int] | None:
        fds = self._fds.get(tid)
        if fds is None:
            try:
                stat = os.open(f"{self.tasks}/{tid}/stat", os.O_RDONLY)
            except OSError:
                return None
            try:
                sched = os.open(f"{self.tasks}/{tid}/schedstat", os.O_RDONLY)
            except OSError:
                os.close(stat)
                return None
            fds = self._fds[tid] = (stat, sched)
        return fds

    def look(self) -> tuple | None:
        """Every thread's (id, times on a CPU) when all sleep; None when one does not."""
        try:
            tids = sorted(os.listdir(self.tasks))  # anew each time: tokio starts threads on demand
        except FileNotFoundError:
            return ()
        for gone in set(self._fds) - set(tids):
            for fd in self._fds.pop(gone):
                os.close(fd)
        seen = []
        for tid in tids:
            read = self._read(tid)
            if read is None:
                continue  # it exited
            state, runs = read
            if state not in ASLEEP:
                return None
            seen.append((tid, runs))
        return tuple(seen)

    def _read(self, tid: str) -> tuple[int, bytes] | None:
        """(state, times on a CPU) of a thread; its files opened anew once if they fail (a
        thread id used again after its thread exited)."""
        for _ in range(2):
            fds = self._files(tid)
            if fds is None:
                return None
            try:
                stat = os.pread(fds[0], 1024, 0)
                return stat[stat.rindex(b")") + 2], os.pread(fds[1], 256, 0).split()[2]
            except (OSError, ValueError, IndexError):
                for fd in self._fds.pop(tid):
                    os.close(fd)
        return None

    def wait(self, timeout: float) -> None:
        """Until the frontend is quiet; one busy past ``timeout`` s is an error."""
        deadline = time.monotonic() + timeout
        before = self.look()
        while True:
            now = self.look()
            if now is not None and now == before:
                return
            before = now
            self.looks += 1
            if time.monotonic() > deadline:
                raise WorkbenchError(f"vllm-rs (pid {self.pid}) was still busy after {timeout:g} s")
            time.sleep(PAUSE_S)

    def close(self) -> None:
        for fds in self._fds.values():
            for fd in fds:
                os.close(fd)
        self._fds.clear()
