"""The secrets this process holds (an API key, a URL's password), kept out of every output.

``register(value)`` is called where a secret is read (capture's client); ``scrub(text)``
and ``scrub_obj(obj)`` where output leaves the process: the CLI's stdout and stderr
(``scrubbed_stdio``, tracebacks included), every file written for the user
(``ScrubbedFile``, from ``core/outputs.create``), the recording writer and the widget's
banner, details and table.
Each secret is removed in every spelling this process or a server may give it: as is,
JSON- and repr-escaped, percent-encoded and decoded. A JSON text whose escapes spell a
secret (``"\\u0073k-..."``: a server echoing it on purpose) is re-encoded without it.
"""

from __future__ import annotations

import html
import json
import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING
from urllib.parse import quote, quote_plus, unquote

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

PLACEHOLDER = "[secret]"
# the fields that carry a stream's text in each API face (chat deltas, Responses and
# Anthropic events): a secret spelled across them is joined in their order
TEXT_FIELDS = frozenset({"content", "reasoning", "reasoning_content", "refusal", "text", "delta", "thinking",
                         "arguments", "partial_json", "name"})
_FORMS: list[str] = []  # every spelling of every secret, longest first


def register(value: str | None) -> None:
    if not value:
        return
    forms = {value, unquote(value), quote(value, safe=""), quote_plus(value, safe=""),
             repr(value)[1:-1], json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1],
             html.escape(value)}
    _FORMS[:] = sorted(set(_FORMS) | {f for f in forms if f}, key=len, reverse=True)
    _install_excepthook()


def active() -> bool:
    return bool(_FORMS)


def forget() -> None:
    """Tests: drop every registered secret."""
    _FORMS.clear()


def _present(text: str) -> bool:
    return any(f in text for f in _FORMS)


def spelled_in(text: str) -> bool:
    """Whether ``text`` holds a registered secret (model output that spells one is refused)."""
    return bool(_FORMS) and _present(text)


def longest() -> int:
    return len(_FORMS[0]) if _FORMS else 0


def scrub(text: str) -> str:
    """``text`` without any registered secret."""
    if not _FORMS or not isinstance(text, str) or not _present(text):
        return text
    for placeholder in (PLACEHOLDER, ""):  # "" when a secret overlaps the placeholder itself
        for _ in range(4):
            for f in _FORMS:
                text = text.replace(f, placeholder)
            if not _present(text):
                return text
    while _present(text):  # each pass deletes, so this ends
        for f in _FORMS:
            text = text.replace(f, "")
    return text


def scrub_obj(obj: Any) -> Any:
    """A copy of JSON-like ``obj`` without any registered secret, in values or keys."""
    if not _FORMS:
        return obj
    if isinstance(obj, str):
        return _scrub_json_text(obj)
    if isinstance(obj, dict):
        return {scrub(k) if isinstance(k, str) else k: scrub_obj(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [scrub_obj(v) for v in obj]
    if isinstance(obj, (int, float)) and not isinstance(obj, bool) and _present(repr(obj)):
        return PLACEHOLDER
    return obj


def _scrub_json_text(text: str) -> str:
    """A string that is JSON with escapes may spell a secret only once decoded."""
    if "\\" in text and text[:1] in "{[\"":
        from workbench.core import door

        try:
            value = door.parse_json(text, "output")
        except door.InputError:
            return scrub(text)
        clean = scrub_obj(value)
        if clean != value:
            return scrub(json.dumps(clean, ensure_ascii=False, separators=(",", ":")))
    return scrub(text)


def refuse_spelled(written: Iterable[Any], what: str) -> None:
    """Before anything of a stream is written: ``written`` (its chunks or events, JSON text
    or SSE text or values, in order) scrubbed as the writer will scrub each, then read as
    one stream, must not spell a secret. The writer scrubs a secret within one string; one
    spelled over several (a key sent two deltas at a time) is only seen joined: per field
    across the stream, across the text fields of every API face, in stream order, and in
    the values that change from one to the next."""
    if not _FORMS:
        return
    leaves: list[tuple[str, str]] = []
    for item in written:
        _leaves(_decoded(scrub_obj(item)), "", leaves)
    by_path: dict[str, list[str]] = {}
    changing: list[str] = []
    text: list[str] = []
    last: dict[str, str] = {}
    for path, value in leaves:
        by_path.setdefault(path, []).append(value)
        if last.get(path) != value and not path.endswith("/"):  # a value (not a key) that changed
            changing.append(value)
        if path.rpartition("/")[2] in TEXT_FIELDS:
            text.append(value)
        last[path] = value
    joins = ["".join(v for _, v in leaves), "".join(changing), "".join(text),
             *("".join(v) for v in by_path.values())]
    if any(_present(j) for j in joins):
        from workbench.errors import WorkbenchError

        raise WorkbenchError(f"{what} spell a secret (its API key or URL password) over more than one of them: "
                             "nothing of them is written")


def _decoded(value: Any) -> Any:
    """A written string read back as what it holds: JSON, or an SSE event's data lines."""
    if not isinstance(value, str):
        return value
    from workbench.core import door

    texts = [ln[5:].strip() for ln in value.splitlines() if ln.startswith("data:")] or [value]
    out = []
    for t in texts:
        try:
            out.append(door.parse_json(t, "output") if t[:1] in "{[\"" else t)
        except door.InputError:
            out.append(t)
    return out if len(out) > 1 else out[0]


def _leaves(value: Any, path: str, out: list[tuple[str, str]]) -> None:
    if isinstance(value, str):
        out.append((path, value))
    elif isinstance(value, dict):
        for k, v in value.items():
            out.append((path + "/", str(k)))
            _leaves(v, f"{path}/{k}", out)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _leaves(v, path + "/*", out)


class ScrubbedStream:
    """A text stream that writes through ``scrub``, a line at a time (a secret split over
    two writes of one line is still found); ``flush`` writes what is held."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.encoding = getattr(stream, "encoding", "utf-8")
        self._held = ""

    def write(self, s: str) -> int:
        if not _FORMS and not self._held:
            return self.stream.write(s)
        text = self._held + s
        cut = max(text.rfind("\n"), text.rfind("\r")) + 1
        self._held = text[cut:]
        if cut:
            self.stream.write(scrub(text[:cut]))
        return len(s)

    def flush(self) -> None:
        if self._held:
            self.stream.write(scrub(self._held))
            self._held = ""
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


class ScrubbedFile(ScrubbedStream):
    """A file written for the user (``core/outputs.py``: -o, --save, --all, a report),
    through ``scrub`` as the CLI's streams are."""

    def close(self) -> None:
        try:
            try:
                self.flush()
            finally:
                self.stream.close()
        except OSError as e:  # a full disk shows at the last flush
            from workbench.errors import WorkbenchError

            raise WorkbenchError(f"cannot write {getattr(self.stream, 'name', 'a file')}: {e.strerror}") from None

    def __enter__(self) -> ScrubbedFile:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.close()
        except Exception:
            if exc[0] is None:
                raise  # else the error already on its way is the one to show


@contextmanager
def scrubbed_stdio() -> Iterator[None]:
    """sys.stdout and sys.stderr through ``scrub`` for the duration (the CLI's boundary)."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = ScrubbedStream(out), ScrubbedStream(err)
    try:
        yield
    finally:
        for s in (sys.stdout, sys.stderr):
            try:
                s.flush()
            except (OSError, ValueError):  # a closed pipe: nothing more can be written anyway
                pass
        sys.stdout, sys.stderr = out, err


_HOOKED = False


def _install_excepthook() -> None:
    """A traceback (a bug) is printed after the CLI's streams are restored: scrub it too."""
    global _HOOKED
    if _HOOKED:
        return
    _HOOKED = True
    previous = sys.excepthook

    def hook(kind: type[BaseException], value: Any, tb: Any) -> None:
        import traceback

        if not _FORMS:
            return previous(kind, value, tb)
        from workbench.core.writing import terminal

        terminal.document(scrub("".join(traceback.format_exception(kind, value, tb))), err=True)

    sys.excepthook = hook
