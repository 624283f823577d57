"""A capture from a Rust-frontend server knows it, and replays on vllm-rs by default.

The server is vllm-rs 0.34.0 itself on 127.0.0.1 with the scripted core answering every
request with the seed's token ids (rustfe.serve); `workbench capture` reads it as it would
read any vLLM server. Its /version names rust_frontend_version, so the header says
"vllm-rs 0.34.0"; replay then runs the Rust lane and finds every chunk as the server sent
it, and --frontend python shows where vLLM's Python parsers part from that server."""

from __future__ import annotations

import json

import pytest

from tests.support.seed import SEED_TEXT, WEATHER_TOOLS
from tests.support.rust import QUESTION, RUST_VERSION


@pytest.fixture(scope="module")
def server(seed_session):
    from workbench.rustfe import lane
    from workbench.rustfe.serve import ScriptedServer

    groups = [d.token_ids for d in seed_session.deltas_from_text(SEED_TEXT)]
    with ScriptedServer(lane.config_of(seed_session, RUST_VERSION), groups) as s:
        yield s


@pytest.fixture(scope="module")
def captured(server, tmp_path_factory):
    from workbench.cli import main

    tmp = tmp_path_factory.mktemp("capture")
    (tmp / "req.json").write_text(json.dumps({"messages": QUESTION, "tools": WEATHER_TOOLS}))
    out = tmp / "cap.jsonl"
    assert main(["capture", "--url", server.url, "--request", str(tmp / "req.json"), "-o", str(out),
                 "--tokenizer", "qwen3", "--nonstream"]) == 0
    return out


def test_the_header_names_the_rust_frontend(captured, server):
    header = json.loads(captured.read_text().splitlines()[0])
    origin = header["origin"]
    assert origin["server_frontend"] == f"vllm-rs {RUST_VERSION}" and origin["server_vllm_version"] == RUST_VERSION
    assert origin["model"] == "workbench" and len(server.requests) == 2  # the stream, then --nonstream


def test_replay_defaults_to_vllm_rs_and_matches_the_server(run_cli, captured):
    code, out, err = run_cli("replay", captured, "--tool-parser", "hermes", "--reasoning-parser", "qwen3", "--json")
    assert code == 0, err
    assert f"the capture came from vllm-rs {RUST_VERSION}: replayed on its Rust parsers" in err
    d = json.loads(out)
    assert d["parser"]["frontend"] == "vllm-rs" and d["server"]["first_difference"] is None
    deltas = len(captured.read_text().splitlines()) - 1  # one a chunk: the finish chunk is its own
    assert all(s["same"] for s in d["server"]["steps"]) and len(d["server"]["steps"]) == deltas == 27


def test_the_python_parsers_part_from_that_server(run_cli, captured):
    code, out, err = run_cli("replay", captured, "--tool-parser", "hermes", "--reasoning-parser", "qwen3",
                             "--frontend", "python", "--json")
    d = json.loads(out)
    assert "replayed on its Rust parsers" not in err
    # the opening chunk already: Python's role delta carries content "", vllm-rs's does not; 7: the
    # "\n\n" as content; 15 and 19: the call's name when Python has it, later with its first
    # arguments from vllm-rs; 27: Python's finish chunk names token_ids [], vllm-rs's none
    assert d["server"]["first_difference"] == 1
    assert [s["step"] for s in d["server"]["steps"] if not s["same"]] == [1, 7, 15, 19, 27]
    step = d["server"]["steps"][6]
    assert '"content":"\\n\\n"' in step["here"][0] and '"delta":{}' in step["server"][0]
