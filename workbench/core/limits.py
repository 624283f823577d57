"""Stated limits on what one run reads (README "Limits").

Replaying is quadratic in the stream length in vLLM itself (a non-engine parser's
``StreamState.advance`` copies the text and ids so far on every delta), so a
stream past ``MAX_DELTAS`` is refused with this message instead of running for
hours. bench/recording_scale.py measures the figures the README states.
"""

from __future__ import annotations

import os

from workbench.errors import WorkbenchError

MAX_DELTAS = 100_000  # deltas (or tokens of a text) per stream
MAX_TEXT_BYTES = 1 << 20  # --text / --text-file, before tokenizing
MAX_RECORDING_BYTES = 64 << 20  # a recording file
MAX_PROMPT_IDS = 1 << 20  # prompt token ids in a header
MAX_CONFIG_BYTES = 1 << 20  # a parser config (.toml) file
MAX_CODE_BYTES = 16 << 20  # a plugin file (hashed for a recording's header)
MAX_FOLDER_JSON_BYTES = 16 << 20  # a tokenizer's or model's own config.json, generation_config.json
# A tokenizer folder's vocabulary file (tokenizer.json, tekken.json, tokenizer.model, ...): the
# largest known are ~35 MB (Gemma 3), and loading one takes about ten times its size in memory.
MAX_TOKENIZER_FILE_BYTES = 64 << 20
MAX_FOLDER_ENTRIES = 10_000  # entries of a tokenizer folder given with --tokenizer
MAX_LINE_BYTES = 16 << 20  # one line of a recording or SSE log (a header with 1M prompt ids is ~7 MB)
# A parser config's size drives vLLM's cost of building and running it: the lexer
# keeps every prefix of every terminal (memory grows with the square of a terminal's
# length: one 900,000-character terminal passed 21 GB). vLLM's own families use at
# most 72 characters, 17 terminals and 23 transitions.
MAX_TERMINAL_CHARS = 256  # one spelling of a terminal (or a token_id_terminals entry)
MAX_TERMINALS = 256  # spellings in terminals + token_id_terminals
MAX_TRANSITIONS = 1024
MAX_CONFIG_ITEMS = 1024  # entries of any other array or table (preserve_tokens, arg_structural_chars, ...)
# check's random groupings (--fuzz): each replays the whole stream, and a billion of them
# were drawn and held before the first one ran.
MAX_FUZZ = 10_000
# check's text_dropped aligns the text's words with each answer's (difflib): its time grows
# with the square of the text (100,000 characters took 49 s), so longer texts are not
# checked for it, and the report says so.
MAX_COVERAGE_CHARS = 20_000
# A chat template from a recording or a request (core/templates.py) renders in a
# forked child with this much more memory and time, and only with --trust-template
# or --chat-template FILE.
TEMPLATE_SECONDS = 10
TEMPLATE_MEMORY_BYTES = 1 << 30
# JSON and TOML, checked by core/door.py before parsing: deeper nesting overflows the
# recursion of the parsers and of everything that walks the value after them (pydantic,
# jinja, json.dumps); Python refuses to turn an integer of over 4,300 digits into text.
MAX_JSON_DEPTH = 64
MAX_INT_DIGITS = 100
# A value a notebook hands over (Workbench(messages=..., tools=...)): entries in all, at any
# depth (core/door_value.py), as many as a recording may hold deltas ten times over.
MAX_VALUE_ITEMS = 1_000_000
# A request body (--request, --messages, --tools) is validated by vLLM's pydantic models in
# steps of at most this many entries an array (core/validation.py): pydantic builds every
# error of every entry against every union member before showing one (a 700 KB Responses
# input of 100,000 wrong entries passed 16 GB).
VALIDATE_ITEMS = 16
# Forked processes (corpus --workers, check --jobs): each holds its own vLLM (~0.6 GB), and
# the work is CPU-bound, so more than 2 per CPU buys nothing (--workers 100000 forked 3,500).
PROCESSES_PER_CPU = 2


def mb(n: int) -> str:
    return f"{n / (1 << 20):.1f} MB"


def check_deltas(n: int, what: str) -> None:
    if n > MAX_DELTAS:
        raise WorkbenchError(f"{what}: more than {MAX_DELTAS:,} deltas, the most one stream may have "
                             f"(replay time grows with the square of the length)")


def check_tokens(n: int, what: str) -> None:
    """A stream's token ids: each may become a delta (``--chunking token``, check's groupings)."""
    if n > MAX_DELTAS:
        raise WorkbenchError(f"{what}: more than {MAX_DELTAS:,} token ids, the most one stream may have "
                             f"(each may become a delta; replay time grows with the square of the length)")


def cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1


def check_processes(n: int, flag: str) -> None:
    most = PROCESSES_PER_CPU * cpus()
    if n > most:
        raise WorkbenchError(f"{flag} {n:,}: at most {most} here ({PROCESSES_PER_CPU} per CPU; each process "
                             f"holds its own vLLM)")


def check_text(text: str, what: str = "the text") -> None:
    n = len(text.encode("utf-8", "surrogatepass"))
    if n > MAX_TEXT_BYTES:
        raise WorkbenchError(f"{what}: {mb(n)}, over the {mb(MAX_TEXT_BYTES)} a text may be")
