"""The scripted core's engine-core messages, read and written by vLLM 0.34's own classes.

One subprocess imports the 0.34 lane tree (as a lane worker does) and checks: our
``EngineCoreOutputs`` decode with its ``MsgpackDecoder`` to the outputs vLLM would send;
its ``MsgpackEncoder``'s ``EngineCoreRequest`` (prompt ids inline and out of band)
decodes with ours; our ready response is an ``EngineCoreReadyResponse``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from workbench.lanes import tree, versions
from workbench.rustfe import protocol

SCRIPT = r"""
import json, sys
import msgspec, numpy as np
from vllm.sampling_params import SamplingParams
from vllm.v1.engine import EngineCoreOutputs, EngineCoreReadyResponse, EngineCoreRequest, FinishReason
from vllm.v1.serial_utils import MsgpackDecoder, MsgpackEncoder

mine = json.loads(sys.stdin.read())
out = {}
decoder = MsgpackDecoder(EngineCoreOutputs)
for key, hexed in mine["outputs"].items():
    o = decoder.decode([bytes.fromhex(hexed)])
    out[key] = {"engine_index": o.engine_index, "finished": sorted(o.finished_requests or ()),
                "outputs": [[x.request_id, list(x.new_token_ids),
                             None if x.finish_reason is None else str(x.finish_reason), x.stop_reason]
                            for x in o.outputs]}
ready = msgspec.msgpack.decode(bytes.fromhex(mine["ready"]), type=EngineCoreReadyResponse)
out["ready"] = [ready.vllm_version, ready.max_model_len, ready.data_parallel_rank]
encoder = MsgpackEncoder(size_threshold=256)
for n in (5, 300):
    ids = np.arange(100, 100 + n, dtype=np.int32)
    req = EngineCoreRequest(request_id="chatcmpl-1-a", prompt_token_ids=ids, mm_features=None,
                            sampling_params=SamplingParams(max_tokens=7), pooling_params=None, arrival_time=1.0,
                            lora_request=None, cache_salt=None, data_parallel_rank=None,
                            external_req_id="chatcmpl-1")
    out[f"request_{n}"] = [f.hex() if isinstance(f, bytes) else bytes(f).hex() for f in encoder.encode(req)]
print(json.dumps(out))
"""


def test_messages_match_vllm_0_34s_own_classes():
    root = tree.ensure("0.34.0", progress=lambda m: None)
    mine = {"outputs": {"step": protocol.outputs("r-1", [5, 6]).hex(),
                        "last": protocol.outputs("r-1", [7], "length").hex(),
                        "stop": protocol.outputs("r-1", [], "stop", engine_index=0).hex()},
            "ready": protocol.ready_response("0.34.0", 4096).hex()}
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), str(versions.REPO_ROOT)]),
               VLLM_TARGET_DEVICE="cpu", PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-c", SCRIPT], input=json.dumps(mine), capture_output=True,
                          text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["step"] == {"engine_index": 0, "finished": [], "outputs": [["r-1", [5, 6], None, None]]}
    assert got["last"] == {"engine_index": 0, "finished": ["r-1"], "outputs": [["r-1", [7], "length", None]]}
    assert got["stop"]["outputs"] == [["r-1", [], "stop", None]] and got["stop"]["finished"] == ["r-1"]
    assert got["ready"] == ["0.34.0", 4096, 0]
    for n in (5, 300):
        frames = [bytes.fromhex(f) for f in got[f"request_{n}"]]
        assert len(frames) == (1 if n == 5 else 2)  # 300 int32 ids go out of band
        req = protocol.decode_request(frames)
        assert req.request_id == "chatcmpl-1-a" and req.external_req_id == "chatcmpl-1"
        assert req.prompt_token_ids == list(range(100, 100 + n))
        assert req.sampling_params["max_tokens"] == 7
