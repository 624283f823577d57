"""vLLM's Rust frontend (``vllm-rs``, in the official wheels from 0.33) beside the Python one.

The binary parses with its own Rust tool and reasoning parsers. The workbench runs it as
``vllm serve`` does (``vllm-rs frontend``), with a scripted engine core in place of the
engine: the core answers the frontend's engine request with given token ids, one engine
output per delta, and reads back exactly what the frontend streams for each.

    binary.py     vllm/vllm-rs of a locked version's wheel, extracted and hash-checked
    model_dir.py  the folder the frontend starts on: a tokenizer folder plus vocab_size
    process.py    Frontend: the binary with its three inherited sockets, the core's start-up
    zmtp.py       ZMTP 3.0 (NULL): the engine core's DEALER and PUSH, on blocking sockets
    protocol.py   EngineCoreReadyResponse / EngineCoreRequest / EngineCoreOutputs (msgpack)
    quiesce.py    Quiet: every thread of the frontend asleep (the end of one delta's events)
    conn.py       one HTTP/1.0 exchange over the frontend's Unix socket, read as it arrives
    core.py       exchange(): a request answered with given deltas, the body split per step
    sse.py        the body as SSE events, byte for byte, per step
    rows.py       RustRow: a delta's events as sent, and what their JSON says (delta, finish)
    finals.py     the non-streaming body as a Final, an error body's one line
    lane.py       run(session, deltas): the Rust lane (one frontend per tokenizer + parsers); RustResult, its face
    side_by_side.py  Python vs vllm-rs on the same ids: diff's A/B, check's `frontend` findings
    frames.py     workbench.side_by_side(text, ...): both sides as DataFrames (notebook 07)
    serve.py      ScriptedServer: vllm-rs on 127.0.0.1 answering every request with a script

Alike on purpose: lane.py's ``RustResult.stream``/``nonstream`` mirror core.session.Result's,
so the commands print either result with the same code (a shared base would tie rustfe's
rows to core's Row).
"""
