"""HTTP to a vLLM (OpenAI-compatible) server that may be hostile: every failure is one line.

Plain ``http.client`` over a socket whose every receive waits no longer than the
``stream.Clock`` allows, so a server that trickles bytes (headers, a body, an SSE
stream) cannot hold a capture past ``--timeout`` for the next whole event or past the
overall ``--deadline``. Bodies are read through ``stream``'s caps (bytes per line, in
all, after decompression). The API key comes from an environment variable and goes only
into the Authorization header; credentials in the URL are never sent. Both are
registered with ``core.secrets``, which keeps them out of every output.
"""

from __future__ import annotations

import http.client
import os
import re
import socket
import ssl
from collections.abc import Iterator
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from workbench.capture import chunks, stream
from workbench.core import door, secrets
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from typing import Any

MAX_ANSWER_BYTES = stream.MAX_LINE_BYTES  # a whole non-streaming JSON answer


def strip_credentials(url: str) -> str:
    """``url`` without user:password@ (registered as secrets), checked to be http(s)://HOST."""
    if not isinstance(url, str):
        raise WorkbenchError("--url must be http(s)://HOST:PORT/v1")
    scheme, sep, rest = url.partition("://")
    if not sep:  # no scheme ("user:pw@host/v1"): credentials are still credentials
        scheme, rest = "", url
    at = rest.rfind("@")  # a password may hold "/", "#", "?" or "@": the host follows the last "@"
    if at >= 0:
        password = rest[:at].partition(":")[2]
        secrets.register(password)
        secrets.register(rest[:at])
        rest = rest[at + 1:]
    shown = f"{scheme}{sep}{rest}"
    try:
        parts = urlsplit(shown)
        port = parts.port
    except ValueError:
        raise WorkbenchError(f"--url must be http(s)://HOST:PORT/v1, got {chunks.snippet(shown)}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WorkbenchError(f"--url must be http(s)://HOST:PORT/v1, got {chunks.snippet(shown)}")
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    return urlunsplit((parts.scheme, host + (f":{port}" if port else ""), parts.path.rstrip("/"), "", ""))


def api_key(env_var: str | None) -> str | None:
    if env_var is None:
        return None
    value = os.environ.get(env_var)
    if not value:
        raise WorkbenchError(f"--api-key-env {env_var}: that environment variable is not set")
    secrets.register(value)
    return value


SECRET_FIELD = re.compile(r"api[_-]?key|secret|passw|authorization|bearer|credential|access[_-]?token",
                          re.IGNORECASE)


def scrub(obj: Any):
    """A request to keep: without secret-looking fields (at any depth) or any secret's value."""
    if isinstance(obj, dict):
        return {k: scrub(v) for k, v in obj.items() if not SECRET_FIELD.search(str(k))}
    if isinstance(obj, list):
        return [scrub(v) for v in obj]
    return secrets.scrub_obj(obj)


def error_message(status: int, body: bytes) -> str:
    """vLLM's own message from an error body ({"error": {"message": ...}})."""
    text = body.decode("utf-8", "replace")
    try:
        obj = chunks.loads(text, "the error body")
        err = obj.get("error", obj) if isinstance(obj, dict) else obj
        msg = err.get("message") if isinstance(err, dict) else None
        text = msg or (obj.get("detail") if isinstance(obj, dict) else None) or text
    except WorkbenchError:
        pass
    first = " ".join(secrets.scrub(str(text)).split())
    return f"server answered HTTP {status}: {first[:300] or '(empty body)'}"


class _TimedSocket(socket.socket):
    """A socket whose every receive and send blocks only as long as its clock allows."""

    clock: stream.Clock

    def recv_into(self, buffer, nbytes=0, flags=0):
        self.settimeout(self.clock.wait())
        return super().recv_into(buffer, nbytes, flags)

    def sendall(self, data, flags=0):
        self.settimeout(self.clock.wait())
        return super().sendall(data, flags)


class _TimedSSLSocket(ssl.SSLSocket):
    clock: stream.Clock

    def recv_into(self, buffer, nbytes=None, flags=0):
        self.settimeout(self.clock.wait())
        return super().recv_into(buffer, nbytes, flags)

    def sendall(self, data, flags=0):
        self.settimeout(self.clock.wait())
        return super().sendall(data, flags)


def _connect(host: str, port: int, https: bool, clock: stream.Clock):
    raw = socket.create_connection((host, port), timeout=clock.wait())
    sock = _TimedSocket(raw.family, raw.type, raw.proto, fileno=raw.detach())
    sock.clock = clock
    if https:
        context = ssl.create_default_context()
        context.sslsocket_class = _TimedSSLSocket
        sock = context.wrap_socket(sock, server_hostname=host)
        sock.clock = clock
    return sock


class Server:
    """``Server("http://127.0.0.1:8000/v1", key, timeout, deadline)``; ``url`` is credential-free."""

    def __init__(self, url: str, key: str | None = None, timeout: float = stream.DEFAULT_TIMEOUT_S,
                 deadline: float = stream.DEFAULT_DEADLINE_S) -> None:
        self.url = strip_credentials(url)
        self.root = self.url[:-3] if self.url.endswith("/v1") else self.url
        self.clock = stream.Clock(timeout, deadline)
        self.timeout = self.clock.timeout
        self.key = key
        secrets.register(key)
        self.closed = False  # hung up by its user: no more requests
        self._open_conns: set[http.client.HTTPConnection] = set()
        self._version: dict | None = None  # the /version answer, read once

    def close(self) -> None:
        self.closed = True
        for conn in list(self._open_conns):
            self._hang_up(conn)

    def _hang_up(self, conn) -> None:
        response = getattr(conn, "workbench_response", None)
        if response is not None:
            response.close()
        conn.close()
        self._open_conns.discard(conn)

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _fail(self, e: BaseException, what: str) -> WorkbenchError:
        if isinstance(e, TimeoutError):
            return WorkbenchError(f"{what}: no answer from {self.url}: {self.clock.reason()}")
        return WorkbenchError(f"{what}: {type(e).__name__}: {_reason(e)}")

    def _open(self, method: str, path: str, body: bytes | None = None):
        """Send one request on a fresh connection: (connection, response with its headers read)."""
        if self.closed:
            raise WorkbenchError(f"the connection to {self.url} was closed")
        parts = urlsplit(path)
        https = parts.scheme == "https"
        host, port = parts.hostname, parts.port or (443 if https else 80)
        clock = self.clock
        clock.progress()  # a new request: a new wait for its answer
        try:
            sock = _connect(host, port, https, clock)
        except TimeoutError:
            raise
        except OSError as e:
            raise WorkbenchError(f"cannot reach {self.url} ({_reason(e)})") from None
        conn = (http.client.HTTPSConnection if https else http.client.HTTPConnection)(host, port)
        conn.sock = sock
        self._open_conns.add(conn)
        target = urlunsplit(("", "", parts.path or "/", parts.query, ""))
        headers = {"Accept-Encoding": "identity", "Accept": "application/json, text/event-stream"}
        if self.key:
            headers["Authorization"] = f"Bearer {self.key}"
        if body is not None:
            headers["Content-Type"] = "application/json"
        try:
            conn.request(method, target, body=body, headers=headers)
            response = conn.getresponse()
            conn.workbench_response = response  # closed with it (a hang-up stops the read)
            return conn, response
        except BaseException:
            self._hang_up(conn)
            raise

    def _request(self, method: str, path: str, what: str, body: dict | None = None):
        """The parsed JSON answer (one line for any failure, an HTTP error with vLLM's message)."""
        data = None if body is None else _json_body(body)
        conn = None
        try:
            conn, r = self._open(method, path, data)
            raw = b"".join(stream.decoded(r.read1, r.getheader("Content-Encoding"), MAX_ANSWER_BYTES))
            self.clock.progress()
        except WorkbenchError as e:
            raise WorkbenchError(f"{what}: {e}") from None
        except (OSError, http.client.HTTPException, ValueError) as e:
            raise self._fail(e, what) from None
        finally:
            if conn is not None:
                self._hang_up(conn)
        if not 200 <= r.status < 300:  # an error, or a redirect capture does not follow
            raise WorkbenchError(f"{what}: " + error_message(r.status, raw))
        return chunks.loads(door.decode(raw, f"{what}: the server's answer"), f"{what}: the server's answer")

    def get_json(self, path: str, root: bool = False):
        return self._request("GET", (self.root if root else self.url) + path, f"GET {path}")

    def models(self) -> list[str]:
        answer = self.get_json("/models")
        data = answer.get("data") if isinstance(answer, dict) else None
        if not isinstance(data, list):
            raise WorkbenchError("GET /models: the answer has no data list (not an OpenAI server?)")
        return [m["id"] for m in data if isinstance(m, dict) and isinstance(m.get("id"), str) and m["id"]]

    def _version_answer(self) -> dict:
        if self._version is None:
            try:
                answer = self.get_json("/version", root=True)
            except WorkbenchError as e:
                if "HTTP 404" not in str(e):
                    raise
                answer = None
            self._version = answer if isinstance(answer, dict) else {}
        return self._version

    def version(self) -> str | None:
        """The server's vLLM version (``/version``); None when the server has none."""
        v = self._version_answer().get("version")
        return v[:100] if isinstance(v, str) else None

    def frontend(self) -> str | None:
        """Which frontend serves: "vllm-rs VERSION" when ``/version`` names a
        ``rust_frontend_version`` (VLLM_USE_RUST_FRONTEND=1: its Rust parsers parse), "python"
        for a vLLM server without one, None when the server says no version at all."""
        answer = self._version_answer()
        rust = answer.get("rust_frontend_version")
        if isinstance(rust, str) and rust:
            return f"vllm-rs {rust[:100]}"
        return "python" if isinstance(answer.get("version"), str) else None

    def post_chat(self, body: dict) -> dict:
        answer = self._request("POST", self.url + "/chat/completions", "non-streaming request", body)
        if not isinstance(answer, dict):
            raise WorkbenchError("non-streaming request: the answer is not a JSON object")
        return answer

    def post_api(self, path: str, body: dict) -> dict:
        """A non-streaming answer of ``path`` (``/responses``, ``/messages``) as a JSON object."""
        answer = self._request("POST", self.url + path, "non-streaming request", body)
        if not isinstance(answer, dict):
            raise WorkbenchError("non-streaming request: the answer is not a JSON object")
        return answer

    def stream_chat(self, body: dict) -> Iterator[str]:
        """Each SSE event's data exactly as sent, up to ``[DONE]``; a cut raises."""
        for _, data in self.stream_events("/chat/completions", body, done="[DONE]"):
            yield data

    def stream_events(self, path: str, body: dict, done: str | None = None) -> Iterator[tuple[str | None, str]]:
        """(``event:`` name or None, ``data:`` payload) of each SSE event exactly as sent, until
        the payload ``done`` (not yielded; a stream that closes before it is cut, and raises)
        or, with ``done`` None, until the server closes the stream."""
        what = "streaming request"
        conn = None
        try:
            conn, r = self._open("POST", self.url + path, _json_body(body))
            encoding = r.getheader("Content-Encoding")
            if not 200 <= r.status < 300:  # an error, or a redirect capture does not follow
                raw = b"".join(stream.decoded(r.read1, encoding, MAX_ANSWER_BYTES))
                raise WorkbenchError(f"{what}: " + error_message(r.status, raw))
            what = "stream cut"
            self.clock.progress()
            body_lines = stream.lines(stream.decoded(r.read1, encoding, stream.MAX_STREAM_BYTES))
            for _, name, data in stream.named_events(body_lines, self.clock):
                if done is not None and data.strip() == done:
                    return
                yield name, data
        except (OSError, http.client.HTTPException, ValueError) as e:
            raise self._fail(e, what) from None
        finally:
            if conn is not None:
                self._hang_up(conn)
        if done is not None:
            raise WorkbenchError(f"stream cut: the server closed the connection before {done}")


def _json_body(body: dict) -> bytes:
    import json

    try:
        return json.dumps(body, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as e:
        raise WorkbenchError(f"the request cannot be sent as JSON ({e})") from None


def _reason(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return secrets.scrub(text)[:200]
