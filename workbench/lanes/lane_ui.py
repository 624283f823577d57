"""What the widget needs from lanes (widget-free): a session for the picked version,
the picker's choices, and the version's parser names."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError
from workbench.lanes import versions

if TYPE_CHECKING:
    from workbench.core.session import Setup


def choices() -> list[tuple[str, str | None]]:
    """(label, value) for the version picker: the installed vLLM first (value None)."""
    here, *others = versions.listed()
    return [(f"{here} (installed)", None)] + [(v, v) for v in others]


def session(inputs, setup: Setup, status):
    """The installed vLLM's Session, or a LaneSession when a lane's version is picked."""
    if versions.is_installed(inputs.vllm):
        from workbench.core.session import Session

        return Session(setup, prompt_token_ids=inputs.prompt_token_ids)
    if inputs.config_text is not None or inputs.plugin_text is not None:
        raise WorkbenchError(f"the parser editor runs on the installed vLLM ({versions.installed()}); "
                             f"pick it to edit a parser")
    from workbench.lanes.lane_session import LaneSession

    version = versions.check(inputs.vllm)
    return LaneSession(setup, version, prompt_token_ids=inputs.prompt_token_ids,
                       lane=_lane(version, status))


def _lane(version: str, status):
    """The version's lane; what starting it says goes to the widget's status line (a
    print would land in JupyterLab's log console, in red, like an error)."""
    from workbench.lanes import lane

    return lane.get(version, progress=lambda message: status(message, None))


def check_source(inputs) -> None:
    """Live sources (engine, server) run on the installed vLLM only."""
    if inputs.source in ("engine", "server") and not versions.is_installed(inputs.vllm):
        raise WorkbenchError(f"the {inputs.source} source runs on the installed vLLM ({versions.installed()}); "
                             f"for vLLM {inputs.vllm}, save its stream as a recording, then replay that")


def names(version: str | None, status=None) -> dict[str, list[str]]:
    """Registered tool/reasoning names of ``version`` (the installed one when None);
    ``status(message, fraction)`` hears a lane start."""
    if versions.is_installed(version):
        from workbench.core.parsers import registered_names

        return registered_names()
    return _lane(version, status or (lambda message, fraction: None)).call("names")["names"]
