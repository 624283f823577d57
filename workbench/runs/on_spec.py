"""check and diff on a RunSpec, placed: here, in other vLLM versions' lanes, or beside vllm-rs.
What the commands and the corpus run. The one ``rust_version`` a ``--frontend`` value names.

check here is check/on_spec.py's (a lane's ``check`` op runs the same); ``frontend``
"rust[@VERSION]" adds where vLLM's Python parsers and vllm-rs disagree. A diff side names
its own vLLM (a lane each) or vllm-rs; the doctor on a RunSpec is diagnosis/on_spec.py's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.check.suite import Options
    from workbench.core.parsers import ParserSpec
    from workbench.core.prepare import RunSpec


def check_spec(spec: RunSpec, options: Options | None = None, frontend: str | None = None):
    """(check's Report, the run's notes) for ``spec``; a grouping given by name is the label.
    ``frontend`` "rust[@VERSION]": where vLLM's Python parsers and vllm-rs disagree is a finding."""
    from workbench.check.on_spec import prepared_check

    prepared, report = prepared_check(spec, options)
    rust = rust_version(frontend)
    if rust is not None:
        from workbench.rustfe import side_by_side

        setup = prepared.setup
        sides = (side_by_side.Side(setup.parser), side_by_side.Side(setup.parser, rust, rust=True))
        result = side_by_side.compare(setup, *sides, deltas=prepared.deltas,
                                      prompt_token_ids=prepared.session.prompt_ids)
        report.findings += side_by_side.findings(result)
        report.checked["frontend"] = f"vllm-rs {rust}"
    return report, prepared.notes


def rust_version(frontend: str | tuple[str, str | None] | list | None) -> str | None:
    """The vllm-rs version a ``--frontend`` value asks for, as typed ("rust@0.34.0") or parsed
    (("rust", "0.34.0"): cli/frontend_option.py's; a list once it crossed into a lane),
    checked; None for vLLM's Python parsers."""
    if isinstance(frontend, (tuple, list)):
        name, version = frontend
    else:
        name, _, version = (frontend or "python").partition("@")
    if name != "rust":
        return None
    if not version:
        from workbench.rustfe import lane

        return lane.default_version()
    from workbench.lanes import versions

    return versions.check(version)


def parse_side(text: str) -> tuple[ParserSpec, str | None, bool]:
    """A diff side, 'hermes+qwen3[@VERSION]' or 'hermes+qwen3@rust[@VERSION]' or a config path:
    (its parser, the vLLM version or None, whether vllm-rs runs it). ValueError when empty."""
    import re

    from workbench.core.parsers import ParserSpec

    rust = re.match(r"^(.*)@rust(?:@(\d[^@/]*))?$", text.strip())
    m = rust or re.match(r"^(.*)@(\d[^@/]*)$", text.strip())
    body, version = (m.group(1), m.group(2)) if m else (text, None)
    if not body.strip() or body.strip() == "+":
        raise ValueError("empty parser spec")
    return ParserSpec.parse(body), version, rust is not None


def diff_spec(spec: RunSpec, a: tuple[ParserSpec, str | None, bool], b: tuple[ParserSpec, str | None, bool],
              api_b: str | None = None):
    """(the A/B of ``spec``'s stream through parsers ``a`` and ``b`` (``parse_side``'s), the
    run's notes): core.diff, across vLLM versions in their lanes, or against vllm-rs."""
    from workbench.core import diff
    from workbench.core.prepare import resolve
    from workbench.lanes import versions

    if not (a[1] or b[1] or a[2] or b[2]):  # both sides here, on this process's vLLM
        return diff.on_spec(spec, a[0], b[0], api_b)
    src = resolve(spec, what="compare", with_parser=False)
    prompt_ids = (src.recording.prompt_token_ids or None) if src.recording is not None else None
    source = ({"deltas": src.recording.deltas, "chunking": spec.chunking} if src.recording is not None
              else {"text": spec.text})
    if a[2] or b[2]:  # vllm-rs on a side (workbench.rustfe)
        if api_b not in (None, src.setup.api):
            raise WorkbenchError("a vllm-rs side compares on one API (--api); drop --api-b")
        from workbench.rustfe import side_by_side

        sa, sb = (side_by_side.Side(*side) for side in (a, b))
        return side_by_side.compare(src.setup, sa, sb, prompt_token_ids=prompt_ids, **source), src.notes
    # across vLLM versions (workbench.lanes)
    if src.setup.api != "chat" or api_b not in (None, "chat"):
        raise WorkbenchError("diff across vLLM versions (@VERSION) compares the chat face; for another API "
                             "run `workbench replay --api API --vllm VERSION` on each version")
    from workbench.lanes import version_diff

    sides = [(p, versions.check(v) if v else None) for p, v, _ in (a, b)]
    return version_diff.run(src.setup, *sides, prompt_token_ids=prompt_ids, **source), src.notes


def diff_in(version: str, spec: RunSpec, a: str, b: str, api_b: str | None = None) -> tuple[dict, list[str], str | None]:
    """(the A/B's ``to_dict()``, the run's notes, the line saying a parser raised or None) of
    sides ``a`` and ``b`` (as typed, no @VERSION) over ``version``'s vLLM: here for the
    installed one, else the lane worker's ``diff`` op (its answer as data)."""
    from workbench.core import diff
    from workbench.lanes import carried, lane, versions

    if versions.is_installed(version):
        result, notes = diff_spec(spec, parse_side(a), parse_side(b), api_b)
        return result.to_dict(), notes, diff.raised(result)
    try:
        done = lane.get(version).call("diff", spec=carried.spec(spec), a=carried.side(a), b=carried.side(b),
                                      api_b=api_b)
    except WorkbenchError as e:  # bad input: the version's own one-line message
        raise WorkbenchError(f"vLLM {version}: {e}") from None
    return done["result"], done["notes"], done["raised"]
