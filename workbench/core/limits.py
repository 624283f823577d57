"""Stated limits on what one run reads (README "Limits").

Replaying is quadratic in the stream length in vLLM itself (a non-engine parser's
``StreamState.advance`` copies the text and ids so far on every delta), so a
stream past ``MAX_DELTAS`` is refused with this message instead of running for
hours. bench/recording_scale.py measures the figures the README states.
"""

from __future__ import annotations

from workbench.errors import WorkbenchError

MAX_DELTAS = 100_000  # deltas (or tokens of a text) per stream
MAX_TEXT_BYTES = 1 << 20  # --text / --text-file, before tokenizing
MAX_RECORDING_BYTES = 64 << 20  # a recording file
MAX_PROMPT_IDS = 1 << 20  # prompt token ids in a header


def mb(n: int) -> str:
    return f"{n / (1 << 20):.1f} MB"


def check_deltas(n: int, what: str) -> None:
    if n > MAX_DELTAS:
        raise WorkbenchError(f"{what}: more than {MAX_DELTAS:,} deltas, the most one stream may have "
                             f"(replay time grows with the square of the length)")


def check_text(text: str, what: str = "the text") -> None:
    n = len(text.encode("utf-8", "surrogatepass"))
    if n > MAX_TEXT_BYTES:
        raise WorkbenchError(f"{what}: {mb(n)}, over the {mb(MAX_TEXT_BYTES)} a text may be")


def read_text_file(path, what: str) -> str:
    """A UTF-8 text file within MAX_TEXT_BYTES; WorkbenchError naming the file otherwise."""
    from pathlib import Path

    p = Path(path)
    try:
        size = p.stat().st_size
        if p.is_dir():
            raise WorkbenchError(f"{what} {p}: is a directory")
        if size > MAX_TEXT_BYTES:
            raise WorkbenchError(f"{what} {p}: {mb(size)}, over the {mb(MAX_TEXT_BYTES)} a text may be")
        data = p.read_bytes()
    except OSError as e:
        raise WorkbenchError(f"{what} {p}: {e.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise WorkbenchError(f"{what} {p}: not UTF-8 text (byte {e.start}: {data[e.start:e.start + 1]!r})"
                             ) from None
