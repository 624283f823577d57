"""A local HTTP server on 127.0.0.1 that answers with raw scripts: bytes and pauses.

``HostileServer(routes)`` is started and stopped by the test that uses it. A route is
``fn(request) -> iterable of bytes | float``: bytes are sent as they are, a float sleeps
that many seconds. So a test can trickle headers, lie in Content-Length, gzip a bomb,
cut a stream or never end one; ``seen`` keeps every request (method, path, headers, body),
``sent`` how much of each path's response went out before the client hung up or the
server closed (a share of its parts: a client that waited it out got 1.0).
"""

from __future__ import annotations

import gzip
import json
import socket
import threading
import time
from dataclasses import dataclass


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self):
        return json.loads(self.body or b"null")


def response(status: int = 200, body: bytes | str | dict | list = b"", headers: dict | None = None,
             reason: str = "OK") -> bytes:
    if isinstance(body, (dict, list)):
        body = json.dumps(body)
    if isinstance(body, str):
        body = body.encode("utf-8")
    head = {"Content-Type": "application/json", "Content-Length": str(len(body)), "Connection": "close",
            **(headers or {})}
    lines = [f"HTTP/1.1 {status} {reason}"] + [f"{k}: {v}" for k, v in head.items() if v is not None]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def sse_head(headers: dict | None = None) -> bytes:
    head = {"Content-Type": "text/event-stream", "Connection": "close", **(headers or {})}
    return ("HTTP/1.1 200 OK\r\n" + "".join(f"{k}: {v}\r\n" for k, v in head.items()) + "\r\n").encode()


def sse(payloads, done: bool = True) -> bytes:
    out = "".join(f"data: {p if isinstance(p, str) else json.dumps(p)}\n\n" for p in payloads)
    return (out + ("data: [DONE]\n\n" if done else "")).encode("utf-8")


def gzipped(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9)


def default_routes(chat):
    """/v1/models lists "m", /version says "0.0.1-hostile", chat completions: ``chat``."""
    return {"/v1/models": lambda r: [response(200, {"data": [{"id": "m"}]})],
            "/version": lambda r: [response(200, {"version": "0.0.1-hostile"})],
            "/v1/chat/completions": chat}


class HostileServer:
    def __init__(self, routes: dict) -> None:
        self.routes = routes
        self.seen: list[Request] = []
        self.sent: dict[str, float] = {}  # path -> the largest share of a response's parts sent
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self._sock.settimeout(0.2)
        self.port = self._sock.getsockname()[1]
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._accept = threading.Thread(target=self._loop, daemon=True)
        self._accept.start()

    def url(self, userinfo: str = "") -> str:
        return f"http://{userinfo}127.0.0.1:{self.port}/v1"

    def __enter__(self) -> HostileServer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._stop.set()
        self._accept.join(5)
        self._sock.close()
        for t in self._threads:
            t.join(5)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except (TimeoutError, OSError):
                continue
            t = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            self._threads.append(t)
            t.start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.settimeout(5)
                request = _read_request(conn)
                if request is None:
                    return
                self.seen.append(request)
                route = self.routes.get(request.path.split("?")[0])
                parts = list(route(request) if route else [response(404, {"detail": "Not Found"})])
                path, done = request.path.split("?")[0], 0
                try:
                    for part in parts:
                        if self._stop.is_set():
                            return
                        if isinstance(part, (int, float)):
                            time.sleep(part)
                        else:
                            conn.sendall(part)
                        done += 1
                finally:
                    self.sent[path] = max(self.sent.get(path, 0.0), done / max(len(parts), 1))
            except OSError:  # the client hung up: expected when it refuses what we send
                pass


def _read_request(conn: socket.socket) -> Request | None:
    data = b""
    while b"\r\n\r\n" not in data:
        more = conn.recv(65536)
        if not more:
            return None
        data += more
    head, _, body = data.partition(b"\r\n\r\n")
    first, *lines = head.decode("latin-1").split("\r\n")
    method, path, _ = first.split(" ", 2)
    headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines)}
    want = int(headers.get("content-length", 0))
    while len(body) < want:
        more = conn.recv(65536)
        if not more:
            break
        body += more
    return Request(method, path, headers, body)
