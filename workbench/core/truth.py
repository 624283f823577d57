"""What a recording is checked against before it replays: the ids are the truth.

- Its tokenizer: the header's name (a built-in; a local folder only when the user
  passes that folder with ``--tokenizer``, since a recording never picks what to
  load) and the sha256 of every file that changes the tokenizer's behaviour
  (vocabulary, chat template, special tokens, stop ids, model_type). A recording
  made before the hash covered them all carries the sha256 of tokenizer.json only:
  it still loads, with a note.
- Its ids: each delta's text must be what vLLM's incremental detokenizer makes of
  its ids (with this request's settings and the prompt before them), or the
  recording is refused naming the delta; ``force`` makes that a note and replays
  the ids' text. Every id must be in the vocabulary.
"""

from __future__ import annotations

from typing import TYPE_CHECKING


from workbench.core.deltas import Delta, deltas_from_ids
from workbench.errors import WorkbenchError
from workbench.core.clip import clip

if TYPE_CHECKING:
    from vllm.tokenizers import TokenizerLike

    from workbench.core.parsers import ParserSpec
    from workbench.core.recording import Recording
    from workbench.core.session import Session


def tokenizer_of(header: dict, given: str | None) -> str:
    """The tokenizer to replay with: ``given`` (``--tokenizer``), else the header's when it
    is a built-in name. A header that names a folder is refused unless it is given."""
    from workbench.core.tokenizers import is_builtin

    named = header["tokenizer"]["name"]
    if given:
        return given
    if not is_builtin(named):
        raise WorkbenchError(f"the recording names the tokenizer folder {named!r}: a recording never picks a "
                             f"folder to load; pass it with --tokenizer {named} to use it")
    return named


def _same_folder(a: str, b: str) -> bool:
    from workbench.core.tokenizers import ensure_tokenizer

    try:
        return ensure_tokenizer(a) == ensure_tokenizer(b)
    except WorkbenchError:
        return False


def check_tokenizer(r: Recording, name: str, tokenizer: TokenizerLike, force: bool = False) -> list[str]:
    """Notes (with ``force``) or WorkbenchError when the tokenizer is not the recording's;
    WorkbenchError for any id outside its vocabulary, which would replay as wrong text."""
    from workbench.core.tokenizers import ensure_tokenizer, main_file_sha256, tokenizer_sha256

    notes, problems = [], []
    recorded = r.header["tokenizer"]
    if name != recorded["name"] and not _same_folder(name, recorded["name"]):
        problems.append(f"the header names {recorded['name']!r}")
    folder = ensure_tokenizer(name)
    if recorded.get("sha256"):
        old = recorded.get("files") is None
        sha = main_file_sha256(folder) if old else tokenizer_sha256(folder)
        if sha != recorded["sha256"]:
            problems.append(f"its sha256 is {sha[:12]}, the header's {recorded['sha256'][:12]}")
        elif old:
            notes.append("the header's tokenizer sha256 covers its main file only (an older recording): "
                         "the chat template and config files are not checked")
    if problems:
        whose = "the server's" if (r.header.get("origin") or {}).get("kind") == "capture" else "the recording's"
        problems = [f"tokenizer {name} is not {whose}: {'; '.join(problems)}"]
        if not force:
            raise WorkbenchError(f"{problems[0]} (--force replays anyway)")
    vocab = len(tokenizer)
    bad = next((i for i in r.prompt_token_ids if i >= vocab), None)
    if bad is not None:
        raise WorkbenchError(f"prompt token id {bad} is outside tokenizer {name!r}'s vocabulary of {vocab}")
    for step, d in enumerate(r.deltas, 1):
        bad = next((i for i in d.token_ids if i >= vocab), None)
        if bad is not None:
            raise WorkbenchError(f"delta {step}: token id {bad} is outside tokenizer {name!r}'s "
                                 f"vocabulary of {vocab}")
    return problems + notes


def ids_parser(header: dict, this_run: ParserSpec | None) -> ParserSpec:
    """The parser whose ``adjust_request`` decides how the ids were detokenized (special
    tokens kept or skipped): the recording's own when it is vLLM's by name, else this run's."""
    from workbench.core.parsers import ParserSpec, registered_names

    recorded = header.get("parser") or {}
    if recorded.get("config") or recorded.get("plugins") or not recorded:
        return this_run or ParserSpec(None, None)
    names = registered_names()
    tool, reasoning = recorded.get("tool_parser"), recorded.get("reasoning_parser")
    if (tool and tool not in names["tool"]) or (reasoning and reasoning not in names["reasoning"]):
        return this_run or ParserSpec(None, None)
    spec = ParserSpec(tool, reasoning)
    if recorded.get("tool_strict_level"):
        spec = ParserSpec(tool, reasoning, tool_strict_level=recorded["tool_strict_level"])
    return this_run if this_run == spec else spec


def text_of_ids(session: Session, deltas: list[Delta], force: bool = False) -> tuple[list[Delta], list[str]]:
    """(deltas whose text is what vLLM's detokenizer makes of their ids, notes).

    A delta whose recorded text differs is refused in one line naming it; with
    ``force`` it is a note and every delta takes its ids' text."""
    from workbench.core.tokenizers import stop_token_ids

    if not deltas:
        return deltas, []
    ids = [t for d in deltas for t in d.token_ids]
    finish = deltas[-1].finish_reason or "stop"
    stopped = finish == "stop" and bool(ids) and ids[-1] in stop_token_ids(session.tokenizer)
    made = deltas_from_ids(session.tokenizer, ids, session.prompt_ids, session.params,
                           [d.token_ids for d in deltas], finish_reason=finish, stop_terminated=stopped)
    out, first = [], None
    for n, (d, m) in enumerate(zip(deltas, made), 1):
        if d.text != m.text and first is None:
            first = (n, d.text, m.text)
        out.append(d if d.text == m.text else Delta(d.token_ids, m.text, d.finish_reason, d.engine_steps, d.extra))
    if first is None:
        return list(deltas), []
    n, said, spelled = first
    line = (f"delta {n}: its text {clip(said)} is not what vLLM's detokenizer makes of its ids "
            f"({clip(spelled)})")
    if not force:
        raise WorkbenchError(f"{line}; the ids are the truth (--force replays the ids' text)")
    return out, [f"{line}: replaying the ids' text"]
