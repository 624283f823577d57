"""A config's fields as the vLLM that runs it spells them.

``ParserEngineConfig`` changed between versions: vLLM 0.34 replaced the boolean
``tool_call_body_array`` (0.32, 0.33) with ``tool_call_body_collection``
(``JSON_ARRAY`` or ``SEMICOLON_SEQUENCE``) and added ``complete_tool_call_validator``;
0.33 added ``arg_value_extender``. A config written for one version is read by another
through ``translate``: a field that means the same is rewritten in this version's
spelling (a note says so, once), one this version cannot express is a problem of one
line naming the version that can. Which spelling applies is read from the running
``ParserEngineConfig``'s own fields, never from a version number.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Collection

ARRAY, COLLECTION = "tool_call_body_array", "tool_call_body_collection"
# field -> (the first vLLM that has it, what it does): for "this version has none" lines.
ADDED = {COLLECTION: ("0.34.0", "the framing of several JSON calls in one tool region"),
         "complete_tool_call_validator": ("0.34.0", "the hook that sends a malformed call back to content"),
         "arg_value_extender": ("0.33.0", "the streaming extender of an open argument value")}
# Added fields whose absence changes no answer, only how it is computed: dropped with a note.
# arg_value_extender must stream exactly what arg_converter would (vLLM's own contract).
SAME_WITHOUT = {"arg_value_extender": "arg_converter streams the same text"}
REMOVED = {ARRAY: "0.34.0"}  # field -> the first vLLM without it


def _version() -> str:
    from workbench.core.vllm_version import vllm_version

    return vllm_version()


def translate(data: dict, fields: Collection[str], problem: Callable[[str, str], None],
              note: Callable[[str], None] | None = None) -> dict:
    """``data`` (a merged config's TOML) in the spelling of ``fields`` (this vLLM's
    ``ParserEngineConfig`` field names); ``problem(path, message)`` for what it cannot express."""
    out = dict(data)
    tell = note or (lambda message: None)
    here = _version()
    if ARRAY in out and ARRAY not in fields and COLLECTION in fields:
        value = out.pop(ARRAY)
        if COLLECTION in out:
            problem(ARRAY, f"give {COLLECTION} only: vLLM {here} has no {ARRAY} (removed in {REMOVED[ARRAY]})")
        elif value is True:
            out[COLLECTION] = "JSON_ARRAY"
            tell(f"{ARRAY} = true (vLLM before {REMOVED[ARRAY]}) read as {COLLECTION} = \"JSON_ARRAY\" (vLLM {here})")
        elif value is not False:
            problem(ARRAY, f"expected true or false, got {value!r}")
    elif COLLECTION in out and COLLECTION not in fields and ARRAY in fields:
        value = out.pop(COLLECTION)
        if ARRAY in out:
            problem(COLLECTION, f"give {ARRAY} only: vLLM {here} has no {COLLECTION} (added in "
                                f"{ADDED[COLLECTION][0]})")
        elif value == "JSON_ARRAY":
            out[ARRAY] = True
            tell(f"{COLLECTION} = \"JSON_ARRAY\" (vLLM {ADDED[COLLECTION][0]}) read as {ARRAY} = true (vLLM {here})")
        elif value == "SEMICOLON_SEQUENCE":
            problem(COLLECTION, f"\"SEMICOLON_SEQUENCE\" (Llama's {{...}}; {{...}}) needs vLLM {ADDED[COLLECTION][0]}; "
                                f"vLLM {here} frames a tool body only as a JSON array: run it with --vllm "
                                f"{ADDED[COLLECTION][0]}")
        elif value is not None:
            problem(COLLECTION, f"expected \"JSON_ARRAY\" or \"SEMICOLON_SEQUENCE\", got {value!r}")
    for key, (since, what) in ADDED.items():
        if key != COLLECTION and key in out and key not in fields:
            out.pop(key)
            if key in SAME_WITHOUT:
                tell(f"{key} (vLLM {since}) dropped: vLLM {here} has none, and {SAME_WITHOUT[key]}")
            else:
                problem(key, f"{what} is vLLM {since}'s; vLLM {here} has no {key}: remove it, or run with "
                             f"--vllm {since}")
    return out
