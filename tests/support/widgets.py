"""Driving a Workbench the way a user does."""

from __future__ import annotations


def run_then_stop(wb) -> tuple[int, int]:
    """The Run button clicked inside a running event loop (Jupyter's), Stop clicked once
    the first rows came; (rows, rows in the table) at that moment. While it runs, Stop is
    enabled and Step is not."""
    import asyncio

    seen = []

    async def scenario():
        wb.controls.run_button.click()
        assert wb.running and wb.controls.stop_button.disabled is False
        assert wb.controls.step_button.disabled is True
        while not wb.rows:
            await asyncio.sleep(0.001)
        seen.append((len(wb.rows), len(wb.table.rows)))
        wb.controls.stop_button.click()
        while wb.running:
            await asyncio.sleep(0.001)

    asyncio.run(scenario())
    return seen[0]
