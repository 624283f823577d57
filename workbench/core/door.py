"""The one door every input comes through.

Every file or stream the workbench reads on a user's behalf (recording, capture,
text, tools, messages, request, config, SSE log, HTTP body, doctor's deltas, a
rebuilt report, any new JSON input) is opened here and nowhere else
(tests/core/test_door.py checks that with ``ast``). Before anything is parsed the door
refuses, in one line naming the input:

- anything but a regular file (a directory, a FIFO, ``/dev/zero``); a stream (an
  HTTP body) comes in as an iterable of byte chunks with its own byte cap;
- more bytes than the input's cap, a line longer than its line cap (a stream is
  refused at the cap, never buffered whole);
- text that is not UTF-8, with the prefix rule: a last line without its newline
  that is cut inside a character (or, for JSON lines, inside its JSON) comes back
  as ``Line.cut`` and the reader decides whether that prefix is fine (a
  recording: yes, a crash mid-write);
- JSON or TOML over the parsing caps (core/door_parse.py: nesting, integer digits,
  ``NaN`` / ``Infinity``, lone surrogates).

API (every refusal is ``InputError``, a ``WorkbenchError`` whose message starts
with the input's name; the caps default to ``core/limits.py``)::

    check_file(path, what, max_bytes) -> int      # a regular file within the cap (its size); not read
    head(path, what, n, max_bytes) -> bytes        # its first n bytes (gzip magic, ...)
    read_bytes(path, what, max_bytes=MAX_TEXT_BYTES) -> bytes
    read_text(path, what, max_bytes=MAX_TEXT_BYTES) -> str       # the whole file, UTF-8
    read_json(path, what, max_bytes=MAX_TEXT_BYTES) -> object    # one JSON value
    read_toml(path, what, max_bytes=MAX_CONFIG_BYTES) -> (text, dict)
    parse_json(text, where) -> object        # a JSON text from argv, a body or a line
    parse_toml(text, where) -> dict          # InputError.line / .column on a syntax error
    read_yaml(path, what, max_bytes=MAX_TEXT_BYTES) -> object    # yaml.safe_load, no aliases
    parse_yaml(text, where) -> object        # plain data only: a tag never constructs an object
    lines(path, what, max_bytes=, max_line=) -> Iterator[Line]             # a file, line by line
    stream_lines(chunks, where, max_bytes=, max_line=) -> Iterator[Line]   # HTTP body / SSE stream
    json_lines(lines) -> Iterator[Line]      # non-blank lines with .value (or .cut on the last)
    read_jsonl(path, what, ...) -> Iterator[Line]   # json_lines(lines(path, what)): a recording
    check_arg(text, where) -> str            # a command-line string: UTF-8 (argv's bytes)

``what`` names the kind of input ("tools file"); messages read
``"{what} {path}: ..."``. ``where`` is the whole prefix for inputs without a path.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from workbench.core import limits
from workbench.core.door_parse import Bad, InputError, parse_json, parse_toml, parse_value

BLOCK = 1 << 20  # bytes read from a file at a time


class Line(NamedTuple):  # a tuple, not a frozen dataclass: one is made per line read
    number: int  # 1-based
    text: str  # decoded, without its newline
    ended: bool = True  # False: the input's last line had no newline
    cut: str | None = None  # why the unterminated last line is cut (a prefix of what was written)
    value: Any = None  # json_lines: the parsed JSON


# -- files ---------------------------------------------------------------------
_KINDS = ((stat.S_ISDIR, "is a directory"), (stat.S_ISFIFO, "is a FIFO (a pipe), not a regular file"),
          (stat.S_ISCHR, "is a character device, not a regular file"),
          (stat.S_ISBLK, "is a block device, not a regular file"),
          (stat.S_ISSOCK, "is a socket, not a regular file"))


def _open(path: str | Path, what: str, max_bytes: int):
    """A regular file opened for reading, its size within ``max_bytes``."""
    p = Path(path)
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer before fstat refuses it.
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise InputError(f"{what} {p}: {e.strerror}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{what} {p}: " + next((why for test, why in _KINDS if test(st.st_mode)),
                                                    "not a regular file"))
        if st.st_size > max_bytes:
            raise InputError(f"{what} {p}: {limits.mb(st.st_size)}, over the {limits.mb(max_bytes)} "
                             f"it may be")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def check_file(path: str | Path, what: str, max_bytes: int) -> int:
    """The size of a regular file within ``max_bytes``, refused as ``read_bytes`` refuses
    it; for files another library reads itself (a tokenizer folder's)."""
    with _open(path, what, max_bytes) as f:
        return os.fstat(f.fileno()).st_size


def head(path: str | Path, what: str, n: int, max_bytes: int) -> bytes:
    """The first ``n`` bytes of a regular file within ``max_bytes`` (what kind of file it is)."""
    with _open(path, what, max_bytes) as f:
        try:
            return f.read(n)
        except OSError as e:
            raise InputError(f"{what} {path}: {e.strerror}") from None


def _too_big(where: str, max_bytes: int) -> InputError:
    return InputError(f"{where}: more than the {limits.mb(max_bytes)} it may be")


def read_bytes(path: str | Path, what: str, max_bytes: int = limits.MAX_TEXT_BYTES) -> bytes:
    with _open(path, what, max_bytes) as f:
        try:  # the size can grow after fstat (or lie: /proc); read(max_bytes + 1) would
            # allocate the whole cap up front (1 GB for a tokenizer file), so read by blocks
            blocks, n = [], 0
            while n <= max_bytes and (block := f.read(min(BLOCK, max_bytes + 1 - n))):
                blocks.append(block)
                n += len(block)
            data = b"".join(blocks)
        except OSError as e:
            raise InputError(f"{what} {path}: {e.strerror}") from None
    if len(data) > max_bytes:
        raise _too_big(f"{what} {path}", max_bytes)
    return data


def read_text(path: str | Path, what: str, max_bytes: int = limits.MAX_TEXT_BYTES) -> str:
    return decode(read_bytes(path, what, max_bytes), f"{what} {path}")


def read_json(path: str | Path, what: str, max_bytes: int = limits.MAX_TEXT_BYTES) -> Any:
    return parse_json(read_text(path, what, max_bytes), f"{what} {path}")


def read_toml(path: str | Path, what: str, max_bytes: int = limits.MAX_CONFIG_BYTES) -> tuple[str, dict]:
    text = read_text(path, what, max_bytes)
    return text, parse_toml(text, f"{what} {path}")


def read_yaml(path: str | Path, what: str, max_bytes: int = limits.MAX_TEXT_BYTES) -> Any:
    return parse_yaml(read_text(path, what, max_bytes), f"{what} {path}")


def parse_yaml(text: str, where: str) -> Any:
    """YAML as plain data: ``yaml.safe_load`` (a tag never constructs an object, nothing
    runs), with aliases refused (a few lines of them expand to gigabytes)."""
    import yaml

    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                raise InputError(f"{where}: YAML aliases (*name) are not read")
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise InputError(f"{where}: not YAML ({first})") from None


def decode(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise InputError(f"{where}: not UTF-8 text (byte {e.start + 1}, line {line}: "
                         f"{data[e.start:e.start + 1]!r})", line=line) from None


def check_arg(text: str, where: str) -> str:
    """A command-line string; argv's non-UTF-8 bytes arrive as lone surrogates."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InputError(f"{where}: not UTF-8 text (character {e.start + 1} is the byte "
                         f"{text[e.start].encode('utf-8', 'surrogateescape')!r})") from None
    return text


# -- lines ---------------------------------------------------------------------
def lines(path: str | Path, what: str, *, max_bytes: int = limits.MAX_RECORDING_BYTES,
          max_line: int = limits.MAX_LINE_BYTES, strip_cr: bool = False, values: bool = False) -> Iterator[Line]:
    """A regular file's lines: ``stream_lines`` over its 64 KB blocks (never a line held past
    ``max_line`` bytes, nor more than ``max_bytes`` read). ``strip_cr`` (SSE): CRLF, LF and a
    lone CR each end a line. ``values``: as ``json_lines`` gives them."""
    where = f"{what} {path}"
    try:
        with _open(path, what, max_bytes) as f:
            blocks = iter(lambda: f.read(1 << 16), b"")
            yield from stream_lines(blocks, where, max_bytes=max_bytes, max_line=max_line, strip_cr=strip_cr,
                                    values=values)
    except OSError as e:
        raise InputError(f"{where}: {e.strerror}") from None


def stream_lines(chunks: Iterable[bytes], where: str, *, max_bytes: int, max_line: int,
                 strip_cr: bool = False, values: bool = False) -> Iterator[Line]:
    """Lines of a byte stream (an HTTP body, an SSE stream, a file's blocks), split on
    ``\\n``; refused as soon as the stream passes ``max_bytes`` or a line passes
    ``max_line`` bytes, so neither is ever held in memory whole. ``strip_cr`` (SSE, HTTP):
    CRLF, LF and a lone CR each end a line, as the SSE format allows all three. Each chunk
    is split at C speed (``bytes.split``); a line running past a chunk's end waits in
    ``pending`` for the rest. ``values``: ``json_lines`` of the lines, its common case (a
    whole line of valid JSON) done here, in the loop that splits them (a recording's load
    is this loop, 100,000 times)."""
    pending: list[bytes] = []
    held = total = number = 0
    for chunk in _one_newline(chunks) if strip_cr else chunks:
        total += len(chunk)
        if total > max_bytes:
            raise _too_big(where, max_bytes)
        cut = chunk.rfind(b"\n")
        if cut < 0:
            held += len(chunk)
            if held > max_line:
                raise _long_line(where, number + 1, max_line)
            pending.append(chunk)
            continue
        ended, rest = chunk[:cut], chunk[cut + 1:]
        if pending:
            ended = b"".join(pending) + ended
            pending, held = [], 0
        if len(ended) > max_line:  # only then may one of its lines be too long
            for n, piece in enumerate(ended.split(b"\n"), number + 1):
                if len(piece) > max_line:
                    raise _long_line(where, n, max_line)
        try:  # "\n" is never inside a UTF-8 sequence: decoding the lines together is decoding each
            texts = ended.decode("utf-8").split("\n")
        except UnicodeDecodeError:  # one by one, to name the line at fault
            for piece in ended.split(b"\n"):
                number += 1
                line = _line(where, number, piece, True)
                yield from json_lines((line,), where) if values else (line,)
        else:
            for text in texts:
                number += 1
                if not values:
                    yield Line(number, text)
                elif text and not text.isspace():
                    try:
                        value = parse_value(text)
                    except Bad as bad:
                        raise bad.error(f"{where} line {number}") from None
                    yield Line(number, text, True, None, value)
        if rest:
            held = len(rest)
            if held > max_line:
                raise _long_line(where, number + 1, max_line)
            pending.append(rest)
    if pending:
        line = _line(where, number + 1, b"".join(pending), False)
        yield from json_lines((line,), where) if values else (line,)


def _one_newline(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """``chunks`` with CRLF and a lone CR made LF; a CR that ends a chunk waits for the next
    one's first byte (it may be the LF of a CRLF cut between two reads)."""
    held = b""
    for chunk in chunks:
        if held:
            chunk, held = held + chunk, b""
        if chunk.endswith(b"\r"):
            chunk, held = chunk[:-1], b"\r"
        yield chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if held:
        yield b"\n"


def _long_line(where: str, number: int, max_line: int) -> InputError:
    return InputError(f"{where} line {number}: longer than the {limits.mb(max_line)} a line may be",
                      line=number)


def _line(where: str, number: int, raw: bytes, ended: bool) -> Line:
    try:
        return Line(number, raw.decode("utf-8"), ended)
    except UnicodeDecodeError as e:
        if not ended and e.end == len(raw) and "end of data" in e.reason:
            # The last line stops inside a multi-byte character: the bytes before it
            # are a prefix of what was written (a crash mid-write).
            return Line(number, raw[:e.start].decode("utf-8"), False, "cut inside a UTF-8 character")
        raise InputError(f"{where} line {number}: not UTF-8 text (byte {e.start + 1} of the line: "
                         f"{raw[e.start:e.start + 1]!r})", line=number, column=e.start + 1) from None


def read_jsonl(path: str | Path, what: str, *, max_bytes: int = limits.MAX_RECORDING_BYTES,
               max_line: int = limits.MAX_LINE_BYTES) -> Iterator[Line]:
    """``json_lines(lines(path, what))``: a JSONL file's non-blank lines with their values."""
    return lines(path, what, max_bytes=max_bytes, max_line=max_line, values=True)


def json_lines(source: Iterable[Line], where: str | None = None) -> Iterator[Line]:
    """The non-blank lines of ``source`` with their JSON as ``.value``. The input's last
    line, when it has no newline and does not parse, comes back with ``.cut`` set
    (the reader decides whether a prefix is fine); any other bad line is refused."""
    for line in source:
        if line.cut is not None:
            yield line
            continue
        text = line.text
        if not text or text.isspace():
            continue
        try:
            value = parse_value(text)
        except Bad as bad:
            if not line.ended:
                yield Line(line.number, text, False, bad.reason)
                continue
            prefix = f"{where} line {line.number}" if where else f"line {line.number}"
            raise bad.error(prefix) from None
        yield Line(line.number, text, line.ended, None, value)


__all__ = ["InputError", "Line", "parse_json", "parse_toml", "check_file", "head", "read_bytes", "read_text", "read_json", "read_toml",
           "decode", "check_arg", "lines", "stream_lines", "read_jsonl", "json_lines"]
