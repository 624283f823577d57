"""`replay --vllm VERSION` whose lane died mid-command: the rows it answers, then error rows.

A whole command run in a lane (``vllm_option.run_in_lane``) has no rows to show when the
lane dies. So the same replay runs again through a fresh lane's row protocol
(``lanes.lane_session.prepare_in``: a LaneSession, as the widget and diff use it), where every delta the
lane does not answer becomes an error row carrying the lane's last stderr line, and the
command goes on to print them (exit 1, like any parser that raised mid-stream).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.cli import common, render

if TYPE_CHECKING:
    import argparse


def replay(args: argparse.Namespace, version: str, died: str) -> int:
    from workbench.lanes.lane import Lane

    lane = Lane(version).start()  # its own: the run's plugins load into it, and it may die too
    try:
        return _replay(args, version, died, lane)
    finally:
        lane.close()


def _replay(args: argparse.Namespace, version: str, died: str, lane) -> int:
    from workbench.lanes.lane_session import prepare_in

    prepared = prepare_in(lane, common.run_spec(args))
    for line in prepared.notes:
        common.note(args, line)
    session = prepared.session
    result = prepared.replay()
    common.note(args, f"{died}; replayed again row by row in a new lane")
    if args.json:
        out = result.to_dict() | {"request": session.request_view(), "lane_died": died}
        common.print_json(out)
    else:
        con = render.console()
        con.print(render.rows_table(result.rows, title=f"vLLM {version} lane"))
        con.print(render.final_table(result.stream, result.nonstream))
    errors = result.errors
    if errors:
        from workbench.core.writing import terminal

        terminal.say("workbench replay: {} delta(s) not answered or raised; first at step {}: {}", len(errors),
                     errors[0].step, errors[0].error, err=True)
        return 1
    return 0
