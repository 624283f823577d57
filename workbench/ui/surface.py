"""What ``screen``, ``wiring`` and ``takeaway`` hold of a ``Workbench``: its panels and the
actions they send, as a type of its own (``Surface``), so that they import this and not the
widget that imports them. ``Workbench`` is the one class that has this shape
(tests/ui/test_widget.py holds it to it)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from workbench.core.rows import Row
    from workbench.ui.ab import ABPanel
    from workbench.ui.check import CheckPanel
    from workbench.ui.controls import Controls
    from workbench.ui.detail import RowDetail
    from workbench.ui.diagram import StateDiagram
    from workbench.ui.doctor_panel import DoctorPanel
    from workbench.ui.editor import ConfigEditor
    from workbench.ui.final_panel import FinalPanel
    from workbench.ui.panels import Banner
    from workbench.ui.state import State
    from workbench.ui.table import DeltaTable


@runtime_checkable
class Surface(Protocol):
    controls: Controls
    banner: Banner
    table: DeltaTable
    detail: RowDetail
    final: FinalPanel
    diagram: StateDiagram
    checks: CheckPanel
    doctor_panel: DoctorPanel
    editor: ConfigEditor
    ab: ABPanel
    rendering: bool  # the controls' echoes of a drawing are not the user's actions

    @property
    def state(self) -> State: ...

    @property
    def rows(self) -> list[Row]: ...

    def hold_sync(self) -> AbstractContextManager: ...

    def send(self, action: str, fn: Callable, *args, raise_errors: bool = False) -> State: ...

    def run_clicked(self) -> None: ...

    def stop(self) -> None: ...

    def export(self, path: str | None = None): ...

    def diagnose(self, versions: bool | None = None): ...

    def replay_doctor_grouping(self) -> list[Row]: ...

    def copy_rows(self) -> int: ...

    def download_rows(self) -> int: ...

    def download_report(self, which: str = "report") -> str: ...
