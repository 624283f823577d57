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
    if inputs.config_text is not None:
        raise WorkbenchError(f"the config editor runs on the installed vLLM ({versions.installed()}); "
                             f"pick it to edit a config")
    from workbench.lanes.session import LaneSession

    status(f"vLLM {inputs.vllm}: starting its lane (a worker process, about 10 s the first time)…", None)
    return LaneSession(setup, versions.check(inputs.vllm), prompt_token_ids=inputs.prompt_token_ids)


def check_source(inputs) -> None:
    """Live sources (engine, server) run on the installed vLLM only."""
    if inputs.source in ("engine", "server") and not versions.is_installed(inputs.vllm):
        raise WorkbenchError(f"the {inputs.source} source runs on the installed vLLM ({versions.installed()}); "
                             f"for vLLM {inputs.vllm}, save its stream as a recording, then replay that")


def names(version: str | None) -> dict[str, list[str]]:
    """Registered tool/reasoning names of ``version`` (the installed one when None)."""
    if versions.is_installed(version):
        from workbench.core.parsers import registered_names

        return registered_names()
    from workbench.lanes import lane

    return lane.get(version).call("names")["names"]
