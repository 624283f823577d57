"""One HTTP/1.0 exchange with the frontend over its Unix socket (or TCP), read as it arrives.

HTTP/1.0 so the body is the bytes the frontend wrote, delimited by the close (no chunked
encoding to undo); ``available()`` takes whatever is in the socket now without waiting,
which ``core`` calls once the frontend has gone quiet after each engine output.
"""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass, field

from workbench.errors import WorkbenchError

MAX_BODY = 256 << 20  # what one exchange may answer
RCVBUF = 4 << 20  # room for a delta's events while the core is not reading


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes = b""
    pieces: list[bytes] = field(default_factory=list)  # the body as it came, one piece per read


class Exchange:
    def __init__(self, address: str | tuple[str, int], method: str, target: str, body: dict | None = None,
                 timeout: float = 30.0) -> None:
        payload = b"" if body is None else json.dumps(body).encode()
        family = socket.AF_UNIX if isinstance(address, str) else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
        self.sock.settimeout(timeout)
        self.buf = bytearray()
        self.eof = False
        self.total = 0
        self.head: tuple[int, dict[str, str]] | None = None
        try:
            self.sock.connect(address)
            self.sock.sendall(f"{method} {target} HTTP/1.0\r\nHost: workbench\r\nContent-Type: "
                              f"application/json\r\nContent-Length: {len(payload)}\r\n\r\n".encode()
                              + payload)
        except OSError as e:
            self.sock.close()
            raise WorkbenchError(f"vllm-rs: {method} {target}: {e}") from None

    def fileno(self) -> int:
        return self.sock.fileno()

    def available(self) -> bytes:
        """Every body byte in the socket now (after the status line and headers)."""
        self.sock.setblocking(False)
        try:
            while not self.eof:
                try:
                    self._take(self.sock.recv(1 << 16))
                except BlockingIOError:
                    break
        finally:
            self.sock.setblocking(True)
        return self._body()

    def rest(self, timeout: float) -> bytes:
        """Every body byte until the frontend closes the connection."""
        deadline = time.monotonic() + timeout
        while not self.eof:
            left = deadline - time.monotonic()
            if left <= 0:
                raise WorkbenchError(f"vllm-rs did not finish its answer within {timeout:g} s")
            self.sock.settimeout(left)
            try:
                self._take(self.sock.recv(1 << 16))
            except socket.timeout:
                continue
        return self._body()

    def status(self) -> tuple[int, dict[str, str]] | None:
        """The status and headers, once they have come."""
        return self.head

    def close(self) -> None:
        self.sock.close()

    def _take(self, data: bytes) -> None:
        if not data:
            self.eof = True
            return
        self.total += len(data)
        if self.total > MAX_BODY:
            raise WorkbenchError(f"vllm-rs answered more than {MAX_BODY >> 20} MB")
        self.buf += data

    def _body(self) -> bytes:
        if self.head is None:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                if self.eof:
                    raise WorkbenchError("vllm-rs closed the connection before its status line")
                return b""
            lines = bytes(self.buf[:end]).decode("latin-1").split("\r\n")
            parts = lines[0].split(" ", 2)
            if len(parts) < 2 or not parts[1].isdigit():
                raise WorkbenchError(f"vllm-rs answered {lines[0][:80]!r}")
            headers = {}
            for line in lines[1:]:
                k, _, v = line.partition(":")
                headers[k.strip().lower()] = v.strip()
            self.head = (int(parts[1]), headers)
            del self.buf[:end + 4]
        out = bytes(self.buf)
        self.buf.clear()
        return out


def request(address: str | tuple[str, int], method: str, target: str, body: dict | None = None,
            timeout: float = 30.0) -> Response:
    """One whole exchange (no engine involved, or the engine already scripted)."""
    ex = Exchange(address, method, target, body, timeout)
    try:
        data = ex.rest(timeout)
        status, headers = ex.status() or (0, {})
        return Response(status, headers, data, [data])
    finally:
        ex.close()
