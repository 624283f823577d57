"""Other vLLM versions' parsers, each in its own worker subprocess (a *lane*).

The installed vLLM runs in-process and is the only one that steps the engine. A
version listed in ``setup/vllm-lanes.lock`` runs parse-only: its wheel's Python
tree (no compiled code) is extracted to ``.cache/vllm/<version>/`` and put first
on ``sys.path`` of a worker that runs the workbench's own core over it.

    versions.py   which versions exist: the installed one and the lock's lanes
    names.py      the parser names a version declares, read from its source with ast (no lane start)
    tree.py       a locked version's pure-Python tree under .cache/vllm/<version>/ (fetch, extract)
    manifest.py   every extracted file's sha256, checked on every lane start
    worker.py     the lane worker: the core over one vLLM tree, driven by JSON lines (check, doctor, diff ops)
    carried.py    what crosses the wire: every path the user named absolute, or its content
    wire.py       the wire: a feed's rows 128 a line in WIRE's compact order; the request reader
    process.py    a lane: the worker subprocess, its requests, Stream (send / take / cancel)
    lane.py       this process's lanes, one per version (get): a warm lane's worker, or one of its own
    warm.py       warm lanes: a server per version kept after a command (cli/warm_server.py), the user's socket
    warm_socket.py  the user's 0700 socket folder, the code's stamp, a connection: shared with cli/daemon.py
    lane_session.py  LaneSession: a Session whose parser runs in a lane (LaneStreamRun: Run and Stop);
                  prepare(spec) with the session in spec.vllm's lane, prepare_in(lane, spec) in one's own
    version_diff.py  A/B across versions: hermes+qwen3@0.32.0 vs @0.33.0, fixed in which; one A/B per version (diff --vllm)
    lane_ui.py    what the widget needs from lanes (widget-free): a session, the picker's choices
    fixed_in.py   a finding's timeline over every vLLM version: fixed in, back in, new in

Alike on purpose: tree.py's ``python -m`` main and core/models.py's (a fetch command each).
"""
