"""Settings that cannot apply are refused the moment they are chosen (mixed into
``Workbench``): the picker goes back to its last value and the widget's own status line
says why. Nothing goes to the log console, and no later Replay finds out instead.

What cannot go together: the config editor and a lane (the editor's config is built by
the installed vLLM), a live source (engine, server) and a lane, another API than chat and
a lane (the widget reads the API faces in-process). After any change the status line's
first line says again what runs and which changes wait for Replay or Reset.
"""

from __future__ import annotations

from workbench.errors import WorkbenchError
from workbench.lanes import versions
from workbench.ui import truth


def conflict(vllm: str | None, source: str, api: str, editor: bool) -> str | None:
    """Why these settings cannot run together, or None."""
    if versions.is_installed(vllm):
        return None
    here = versions.installed()
    if editor:
        return (f"vLLM {vllm} with the config editor on: the editor's config runs on the installed "
                f"vLLM ({here}) only; switch the editor off (config editor tab) to pick another vLLM")
    if source in ("engine", "server"):
        return (f"vLLM {vllm} with the {source} source: a live stream runs on the installed vLLM ({here}); "
                f"save it as a recording, then replay that on {vllm}")
    if api != "chat":
        return (f"vLLM {vllm} with API {api}: the widget shows another API's events on the installed vLLM "
                f"({here}); on a lane use `workbench replay --vllm {vllm} --api {api}`")
    return None


class SettingsActions:
    """The refusals and the what-runs line (mixed into ``Workbench``)."""

    def _init_settings(self) -> None:
        c = self.controls
        self._last = {w: w.value for w in (c.vllm, c.source, c.api)}
        for w in (c.vllm, c.source, c.api):
            w.observe(self._guard(self._on_setting, "settings", clear=False), "value")

    def _refusal(self, editor: bool | None = None) -> str | None:
        c = self.controls
        on = self.model.inputs.config_text is not None if editor is None else editor
        return conflict(c.vllm.value or None, c.source.value, c.api.value, on)

    def _refuse(self, why: str) -> None:
        self.controls.set_status(f"refused: {why}", kind="refused")

    def _on_setting(self, change: dict) -> None:
        c = self.controls
        if c.writing:
            self._last[change["owner"]] = change["new"]
            return
        why = self._refusal()
        if why:
            c.writing = True
            try:
                change["owner"].value = self._last[change["owner"]]
            finally:
                c.writing = False
            self._refuse(why)
            return
        self._last[change["owner"]] = change["new"]
        self._truth()

    def _settings_changed(self) -> None:
        self._warn_if_changed()
        self._truth()

    def _truth(self) -> None:
        """The what-runs line, and the settings that differ from what runs."""
        try:
            now = self.controls.read(self.model.inputs)
        except WorkbenchError:  # a half-typed JSON box: nothing to compare yet
            now = self.model.inputs
        applied = self.model.built if self.model.session is not None else None
        self.controls.set_truth(truth.running(self.model), truth.pending(now, applied))
