"""Where a RunSpec runs: here, in a lane's vLLM (another version), or beside vllm-rs. Above
lanes/, rustfe/ and capture/, which never import it; the lanes answer with typed ops (the
worker's check, doctor and diff: their reports as data, never a command's output).

    on_spec.py           check and diff on a RunSpec, placed (rust_version: --frontend's one reading)
    version_matrix.py    the same check in every vLLM version, findings matched: fixed, back, new in
    asked.py             is a parser cause fixed in another vLLM? the doctor's question to the other lanes
"""
