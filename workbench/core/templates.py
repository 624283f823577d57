"""Chat templates that are data: rendered only when the user says so, and then boxed.

A chat template is code for Jinja: ``{{ ('x' * 100000000) * 50 }}`` takes gigabytes
and two nested ``range`` loops take hours. The built-in tokenizers' own templates (pinned
by hash) render in this process, as vLLM's server renders its own; the template of
a folder the user names with ``--tokenizer`` renders boxed as below. A template that arrives with a recording or a
request (``chat_template``, ``chat_template_kwargs.chat_template``) is data: vLLM's server refuses it
unless started with ``--trust-request-chat-template``, and so does the workbench,
unless this run passes ``--trust-template`` (render it) or ``--chat-template FILE``
(vLLM's flag: render that file instead). A recording made with FILE records its
name and sha256; where its prompt must be rendered again it replays only with a file
given again. Either is rendered in a forked child with
at most ``limits.TEMPLATE_MEMORY_BYTES`` more memory and ``limits.TEMPLATE_SECONDS``
of time, and only the token ids come back (as JSON).
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import select
import signal
import time
from pathlib import Path
from typing import Any

from workbench.core import limits
from workbench.errors import WorkbenchError

REFUSED = ("the request carries its own chat template ({where}): a template from a recording or request is "
           "data and is not rendered; pass --trust-template to render it, or --chat-template FILE to render "
           "your own (either in a subprocess, at most {s} s and {mb})")


def choose(carried: str | None, kwargs: dict[str, Any], chat_template: str | None,
           trust: bool) -> tuple[str | None, dict]:
    """(the template to render in a box, or None for the tokenizer's own; the kwargs to
    render with), for a request's ``chat_template`` (``carried``) and ``chat_template_kwargs``.

    As vLLM's server: a template the request carries (``chat_template``, or
    ``chat_template_kwargs.chat_template``) wins over ``--chat-template FILE`` when it is
    trusted, and is refused when it is not, unless FILE is given (then FILE renders)."""
    rest = {k: v for k, v in kwargs.items() if k != "chat_template"}
    where = "chat_template" if carried is not None else "chat_template_kwargs.chat_template"
    data = carried if carried is not None else kwargs.get("chat_template")
    if data is not None and trust:
        if not isinstance(data, str):
            raise WorkbenchError(f"{where} must be a string")
        return data, rest
    if chat_template is not None or data is None:
        return chat_template, rest
    raise WorkbenchError(REFUSED.format(where=where, s=limits.TEMPLATE_SECONDS,
                                        mb=limits.mb(limits.TEMPLATE_MEMORY_BYTES)))


def sha256(text: str) -> str:
    """A template's sha256: of its text as UTF-8 (a UTF-8 file's own sha256)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def provenance(text: str | None, path: str | None) -> dict:
    """A recording header's ``chat_template``: the --chat-template file's name and sha256."""
    if text is None:
        return {}
    return {"chat_template": {"file": Path(path).name if path else None, "sha256": sha256(text)}}


def recorded(entry: dict | None, given: str | None, renders: bool = True) -> list[str]:
    """A recording made with --chat-template FILE whose prompt must be rendered again
    (``renders``: it holds no prompt ids) replays only with a file given again (a
    recording never loads a template this run did not name); notes when it differs."""
    if not entry:
        return []
    name = entry.get("file") or "FILE"
    if given is None and not renders:  # the recorded prompt ids are replayed; the template is not needed
        return []
    if given is None:
        raise WorkbenchError(f"made with chat template {name}: a recording never renders a template this run "
                             f"does not name; pass your copy again (--chat-template {name})")
    sha = sha256(given)
    if entry.get("sha256") and sha != entry["sha256"]:
        return [f"chat template differs from the {name} the recording was made with "
                f"(sha256 {sha[:12]}, recorded {entry['sha256'][:12]})"]
    return []


def _address_space() -> int:
    fd = os.open("/proc/self/statm", os.O_RDONLY)
    try:
        return int(os.read(fd, 256).split()[0]) * os.sysconf("SC_PAGE_SIZE")
    finally:
        os.close(fd)


def render_boxed(tokenizer: Any, messages: list, tools: list | None, template: str | None,
                 kwargs: dict) -> list[int]:
    """``apply_chat_template`` with ``template`` (None: the tokenizer's own) in a forked child,
    memory and time capped."""
    read, write = os.pipe()
    budget = _address_space() + limits.TEMPLATE_MEMORY_BYTES
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    if hard != resource.RLIM_INFINITY:  # a process already limited (ulimit -v) may not raise its limit
        budget = min(budget, hard)
    pid = os.fork()
    if pid == 0:  # the child: render, write the ids, never return into the caller's code
        try:
            os.close(read)
            resource.setrlimit(resource.RLIMIT_AS, (budget, budget))
            ids = tokenizer.apply_chat_template(messages, tools=tools, chat_template=template,
                                                add_generation_prompt=True, tokenize=True, **kwargs)
            if hasattr(ids, "keys"):
                ids = ids["input_ids"]
            out: dict[str, object] = {"ids": [int(i) for i in ids]}
        except MemoryError:
            out = {"error": f"over the {limits.mb(limits.TEMPLATE_MEMORY_BYTES)} a template may use"}
        except BaseException as e:  # noqa: BLE001  (reported by the parent in one line)
            out = {"error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]}
        try:
            data = json.dumps(out).encode()
            while data:
                data = data[os.write(write, data):]
        finally:
            os._exit(0)
    os.close(write)
    return _collect(pid, read)


def _collect(pid: int, read: int) -> list[int]:
    deadline = time.monotonic() + limits.TEMPLATE_SECONDS
    parts: list[bytes] = []
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                raise WorkbenchError(f"chat template failed: still rendering after {limits.TEMPLATE_SECONDS} s, "
                                     f"the most a template from data may take")
            ready, _, _ = select.select([read], [], [], left)
            if ready:
                chunk = os.read(read, 1 << 20)
                if not chunk:
                    break
                parts.append(chunk)
    finally:
        os.close(read)
        _, status = os.waitpid(pid, 0)
    if not parts:
        raise WorkbenchError(f"chat template failed: the rendering process died ({_why(status)})")
    out = json.loads(b"".join(parts))
    if "error" in out:
        raise WorkbenchError(f"chat template failed: {out['error']}")
    return out["ids"]


def _why(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    return f"exit code {os.waitstatus_to_exitcode(status)}"
