"""ZMTP 3.0 with the NULL mechanism, the engine core's end of the frontend's two sockets.

vLLM's engine core connects a DEALER to the frontend's input ROUTER and a PUSH to its
output PULL (``EngineCoreProc.process_input_sockets`` / ``process_output_sockets``).
The scripted core speaks the same wire protocol on plain blocking Unix sockets rather
than through libzmq: when ``send`` returns, the frames are in the frontend's socket,
which is what lets ``quiesce`` tell when the frontend has dealt with an output.
"""

from __future__ import annotations

import socket
import struct
from collections.abc import Sequence

from workbench.errors import WorkbenchError

MORE, LONG, COMMAND = 1, 2, 4
_GREETING = (b"\xff" + b"\x00" * 8 + b"\x7f" + bytes([3, 0]) + b"NULL".ljust(20, b"\x00")
             + b"\x00" + b"\x00" * 31)
MAX_FRAME = 256 << 20  # a frame the frontend sends us is a request: far below this


class Peer:
    """One connected ZMTP socket of type ``socket_type`` (DEALER or PUSH)."""

    def __init__(self, address: str, socket_type: bytes, identity: bytes | None = None,
                 timeout: float = 30.0) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect(address)
            self.sock.sendall(_GREETING)
            peer = self._exact(64)
            if peer[0] != 0xFF or peer[9] != 0x7F or peer[10] < 3:
                raise WorkbenchError(f"vllm-rs: {address} does not speak ZMTP 3 (greeting {peer[:11]!r})")
            props = _prop(b"Socket-Type", socket_type)
            if identity is not None:
                props += _prop(b"Identity", identity)
            self.sock.sendall(_frame(b"\x05READY" + props, COMMAND))
            flags, body = self._frame()
            if not flags & COMMAND or not body.startswith(b"\x05READY"):
                raise WorkbenchError(f"vllm-rs: {address} answered the handshake with {body[:40]!r}")
        except OSError as e:
            self.sock.close()
            raise WorkbenchError(f"vllm-rs: cannot connect to {address}: {e}") from None

    def send(self, frames: Sequence[bytes]) -> None:
        """One multipart message; on return it is in the peer's socket buffer."""
        last = len(frames) - 1
        self.sock.sendall(b"".join(_frame(f, MORE if i < last else 0) for i, f in enumerate(frames)))

    def recv(self, timeout: float | None = None) -> list[bytes]:
        """The next message (commands such as PING are skipped)."""
        self.sock.settimeout(timeout)
        out = []
        while True:
            flags, body = self._frame()
            if flags & COMMAND:
                continue
            out.append(body)
            if not flags & MORE:
                return out

    def close(self) -> None:
        self.sock.close()

    def _frame(self) -> tuple[int, bytes]:
        flags = self._exact(1)[0]
        size = struct.unpack(">Q", self._exact(8))[0] if flags & LONG else self._exact(1)[0]
        if size > MAX_FRAME:
            raise WorkbenchError(f"vllm-rs sent a {size:,}-byte frame")
        return flags, self._exact(size)

    def _exact(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise WorkbenchError("vllm-rs closed its engine socket")
            buf += chunk
        return bytes(buf)


def _prop(name: bytes, value: bytes) -> bytes:
    return bytes([len(name)]) + name + struct.pack(">I", len(value)) + value


def _frame(body: bytes, flags: int) -> bytes:
    if len(body) > 255:
        return bytes([flags | LONG]) + struct.pack(">Q", len(body)) + body
    return bytes([flags, len(body)]) + body
