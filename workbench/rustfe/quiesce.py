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

    def look(self) -> tuple | None:
        """Every thread's (id, times on a CPU) when all sleep; None when one does not."""
        try:
            tids = sorted(os.listdir(self.tasks))  # anew each time: tokio starts threads on demand
        except FileNotFoundError:
            return ()
        seen = []
        for tid in tids:
            try:
                with open(f"{self.tasks}/{tid}/stat", "rb") as f:
                    stat = f.read()
                with open(f"{self.tasks}/{tid}/schedstat", "rb") as f:
                    runs = f.read().split()[2]
            except (FileNotFoundError, ProcessLookupError, IndexError):
                continue  # it exited
            if stat[stat.rindex(b")") + 2] not in ASLEEP:
                return None
            seen.append((tid, runs))
        return tuple(seen)

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
