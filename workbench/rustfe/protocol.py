"""vLLM's engine-core messages as the frontend and an engine core exchange them (msgpack).

The shapes are vLLM 0.34's (``vllm/v1/engine/__init__.py``, encoded by ``MsgpackEncoder``
in ``vllm/v1/serial_utils.py``): ``EngineCoreReadyResponse`` a map, sent once on the
input socket; ``EngineCoreRequest`` and ``EngineCoreOutputs`` / ``EngineCoreOutput``
``array_like`` structs, their fields by position, trailing defaults left out. Only the
fields a scripted core needs are named here; ``tests/rustfe/test_protocol.py`` checks
them against the 0.34 tree's own classes and encoder.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from workbench.errors import WorkbenchError

# EngineCoreRequestType: the first frame of a message from the frontend
ADD, ABORT, START_DP_WAVE, UTILITY = b"\x00", b"\x01", b"\x02", b"\x03"
# FinishReason (an IntEnum on the wire) by the names a recording uses
FINISH = {"stop": 0, "length": 1, "abort": 2, "error": 3, "repetition": 4}
CUSTOM_TYPE_RAW_VIEW = 3  # serial_utils: an ndarray's bytes inline


def ready_response(version: str, max_model_len: int, engine_index: int = 0) -> bytes:
    """``EngineCoreReadyResponse``: what an engine tells each frontend at the end of start-up."""
    import msgspec

    return msgspec.msgpack.encode({
        "max_model_len": max_model_len, "num_gpu_blocks": 0, "block_size": 16,
        "dp_stats_address": None, "dtype": "bfloat16", "vllm_version": version, "world_size": 1,
        "data_parallel_size": 1, "tensor_parallel_size": 1, "pipeline_parallel_size": 1,
        "decode_context_parallel_size": 1, "data_parallel_rank": engine_index, "max_num_seqs": 1,
        "max_num_batched_tokens": max_model_len, "instance_id": "workbench-scripted-core",
        "supports_lora": False, "max_loras": 0})


def outputs(request_id: str, token_ids: list[int], finish_reason: str | None = None,
            engine_index: int = 0) -> bytes:
    """``EngineCoreOutputs`` with one ``EngineCoreOutput``: one engine step of one request;
    a finished one also lists the request in ``finished_requests``."""
    import msgspec

    output: list[Any] = [request_id, list(token_ids)]
    if finish_reason is not None:
        if finish_reason not in FINISH:
            raise WorkbenchError(f"finish reason {finish_reason!r} is not one of vLLM's ({', '.join(FINISH)})")
        # new_logprobs, new_prompt_logprobs_tensors, pooling_output, finish_reason
        output += [None, None, None, FINISH[finish_reason]]
    # engine_index, outputs, scheduler_stats, timestamp, utility_output, finished_requests
    batch: list[Any] = [engine_index, [output], None, time.monotonic()]
    if finish_reason is not None:
        batch += [None, [request_id]]
    return msgspec.msgpack.encode(batch)


@dataclass(frozen=True)
class EngineRequest:
    """What the frontend asked the engine for (``EngineCoreRequest``'s fields we read)."""

    request_id: str
    prompt_token_ids: list[int]
    sampling_params: dict
    external_req_id: str | None

    def to_dict(self) -> dict:
        return {"request_id": self.request_id, "prompt_token_ids": self.prompt_token_ids,
                "sampling_params": self.sampling_params, "external_req_id": self.external_req_id}


def decode_request(frames: list[bytes]) -> EngineRequest:
    """An ADD message's data frames (the main one, then any out-of-band buffers)."""
    import msgspec

    try:
        fields = msgspec.msgpack.decode(frames[0])
        request_id, prompt, params = fields[0], fields[1], fields[3]
        external = fields[16] if len(fields) > 16 else None
        ids = _ids(prompt, frames)
    except (msgspec.DecodeError, IndexError, TypeError, ValueError) as e:
        raise WorkbenchError(f"vllm-rs sent an engine request this core cannot read: {e}") from None
    if not isinstance(request_id, str) or not isinstance(params, dict):
        raise WorkbenchError("vllm-rs sent an engine request without a request id or sampling params")
    return EngineRequest(request_id, ids, params, external if isinstance(external, str) else None)


def _ids(prompt: Any, frames: list[bytes]) -> list[int]:
    """An ndarray as MsgpackEncoder writes it: (dtype, shape, inline bytes or a frame index)."""
    import msgspec
    import numpy as np

    if prompt is None:
        return []
    if isinstance(prompt, list) and all(isinstance(i, int) for i in prompt):
        return prompt
    dtype, shape, data = prompt
    if isinstance(data, msgspec.msgpack.Ext):
        if data.code != CUSTOM_TYPE_RAW_VIEW:
            raise ValueError(f"prompt ids in msgpack extension type {data.code}")
        buffer = data.data
    else:
        buffer = frames[data]
    return np.frombuffer(buffer, dtype=np.dtype(dtype)).reshape(shape).tolist()
