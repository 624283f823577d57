"""HTTP to a vLLM (OpenAI-compatible) server: every failure is one line.

The API key comes from an environment variable and is only ever sent in the
Authorization header; credentials in the URL are stripped before it is used
or written anywhere.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit

from workbench.errors import WorkbenchError

SECRET_KEY = re.compile(r"api[_-]?key|secret|passw|authorization|bearer|credential|access[_-]?token",
                        re.IGNORECASE)


def strip_credentials(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WorkbenchError(f"--url must be http(s)://HOST:PORT/v1, got {strip_url_userinfo(url)!r}")
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def strip_url_userinfo(url: str) -> str:
    return re.sub(r"//[^/@]*@", "//", url)


def api_key(env_var: str | None) -> str | None:
    if env_var is None:
        return None
    value = os.environ.get(env_var)
    if not value:
        raise WorkbenchError(f"--api-key-env {env_var}: that environment variable is not set")
    return value


def scrub(obj, key: str | None):
    """A copy without secret-looking fields (at any depth) and without the key's value."""
    if isinstance(obj, dict):
        return {k: scrub(v, key) for k, v in obj.items() if not SECRET_KEY.search(str(k))}
    if isinstance(obj, list):
        return [scrub(v, key) for v in obj]
    if isinstance(obj, str) and key and key in obj:
        return obj.replace(key, "[removed]")
    return obj


def error_message(status: int, body: bytes) -> str:
    """vLLM's own message from an error body ({"error": {"message": ...}})."""
    text = body.decode("utf-8", "replace")
    try:
        obj = json.loads(text)
        err = obj.get("error", obj) if isinstance(obj, dict) else obj
        msg = err.get("message") if isinstance(err, dict) else None
        text = msg or (obj.get("detail") if isinstance(obj, dict) else None) or text
    except ValueError:
        pass
    first = " ".join(str(text).split())
    return f"server answered HTTP {status}: {first[:300] or '(empty body)'}"


class Server:
    """``Server("http://127.0.0.1:8000/v1", key, timeout)``; ``url`` is credential-free."""

    def __init__(self, url: str, key: str | None = None, timeout: float = 60.0) -> None:
        import httpx

        self.url = strip_credentials(url)
        self.root = self.url[:-3] if self.url.endswith("/v1") else self.url
        self.timeout = timeout
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._http = httpx.Client(headers=headers, timeout=httpx.Timeout(timeout))

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _fail(self, e: Exception, what: str) -> WorkbenchError:
        import httpx

        if isinstance(e, httpx.TimeoutException):
            return WorkbenchError(f"{what}: no answer from {self.url} within {self.timeout:g} s")
        if isinstance(e, httpx.ConnectError):
            return WorkbenchError(f"{what}: cannot reach {self.url} ({_reason(e)})")
        return WorkbenchError(f"{what}: {type(e).__name__}: {_reason(e)}")

    def get_json(self, path: str, root: bool = False):
        import httpx

        url = (self.root if root else self.url) + path
        try:
            r = self._http.get(url)
        except httpx.HTTPError as e:
            raise self._fail(e, f"GET {path}") from None
        if r.status_code >= 400:
            raise WorkbenchError(f"GET {path}: " + error_message(r.status_code, r.content))
        try:
            return r.json()
        except ValueError:
            raise WorkbenchError(f"GET {path}: the server did not answer JSON") from None

    def models(self) -> list[str]:
        data = self.get_json("/models").get("data") or []
        return [m.get("id") for m in data if isinstance(m, dict)]

    def version(self) -> str | None:
        """The server's vLLM version (``/version``); None when the server has none."""
        try:
            return self.get_json("/version", root=True).get("version")
        except WorkbenchError as e:
            if "HTTP 404" in str(e):
                return None
            raise

    def post_chat(self, body: dict) -> dict:
        import httpx

        try:
            r = self._http.post(self.url + "/chat/completions", json=body)
        except httpx.HTTPError as e:
            raise self._fail(e, "non-streaming request") from None
        if r.status_code >= 400:
            raise WorkbenchError("non-streaming request: " + error_message(r.status_code, r.content))
        return r.json()

    def stream_chat(self, body: dict) -> Iterator[str]:
        """Each SSE ``data:`` payload exactly as sent, up to ``[DONE]``; a cut raises."""
        import httpx

        try:
            with self._http.stream("POST", self.url + "/chat/completions", json=body) as r:
                if r.status_code >= 400:
                    raise WorkbenchError("streaming request: " + error_message(r.status_code, r.read()))
                for line in r.iter_lines():
                    if not line.startswith("data:"):
                        continue
                    data = line[5:].strip()
                    if data == "[DONE]":
                        return
                    yield data
        except httpx.HTTPError as e:
            raise self._fail(e, "stream cut") from None
        raise WorkbenchError("stream cut: the server closed the connection before [DONE]")


def _reason(e: Exception) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return strip_url_userinfo(text)[:200]
