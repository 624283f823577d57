"""Chat templates that are data: rendered only when the user says so, and then boxed.

A chat template is code for Jinja: ``{{ ('x' * 100000000) * 50 }}`` takes gigabytes
and two nested ``range`` loops take hours. The built-in tokenizers' own templates
(and a folder the user names with ``--tokenizer``) render in this process, as
vLLM's server renders its own. A template that arrives with a recording or a
request (``chat_template_kwargs.chat_template``) is data: vLLM's server refuses it
unless started with ``--trust-request-chat-template``, and so does the workbench,
unless this run passes ``--trust-template`` (render it) or ``--chat-template FILE``
(vLLM's flag: render that file instead). Either is rendered in a forked child with
at most ``limits.TEMPLATE_MEMORY_BYTES`` more memory and ``limits.TEMPLATE_SECONDS``
of time, and only the token ids come back (as JSON).
"""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import time

from workbench.core import limits
from workbench.errors import WorkbenchError

REFUSED = ("the request carries its own chat template (chat_template_kwargs.chat_template): a template from a "
           "recording or request is data and is not rendered; pass --trust-template to render it, or "
           "--chat-template FILE to render your own (either in a subprocess, at most {s} s and {mb})")


def choose(kwargs: dict, chat_template: str | None, trust: bool) -> tuple[str | None, dict]:
    """(the template to render in a box, or None for the tokenizer's own; the other kwargs)."""
    rest = {k: v for k, v in kwargs.items() if k != "chat_template"}
    data = kwargs.get("chat_template")
    if chat_template is not None:
        return chat_template, rest
    if data is None:
        return None, rest
    if not trust:
        raise WorkbenchError(REFUSED.format(s=limits.TEMPLATE_SECONDS, mb=limits.mb(limits.TEMPLATE_MEMORY_BYTES)))
    if not isinstance(data, str):
        raise WorkbenchError("chat_template_kwargs.chat_template must be a string")
    return data, rest


def _address_space() -> int:
    fd = os.open("/proc/self/statm", os.O_RDONLY)
    try:
        return int(os.read(fd, 256).split()[0]) * os.sysconf("SC_PAGE_SIZE")
    finally:
        os.close(fd)


def render_boxed(tokenizer, messages, tools, template: str, kwargs: dict) -> list[int]:
    """``apply_chat_template`` with ``template`` in a forked child, memory and time capped."""
    read, write = os.pipe()
    budget = _address_space() + limits.TEMPLATE_MEMORY_BYTES
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
