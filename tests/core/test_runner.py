"""StreamRun where parse_delta raises: the row holds the chunk vLLM's server streams then, and
the stream ends there (the server's generator catches the exception, sends one error chunk and
[DONE], and calls the parser no more)."""

from __future__ import annotations

import json

from tests.support.invoke import AT_RAISING, AT_TEXT, TOOLS
from workbench.core.parsers import ParserSpec
from workbench.core.request import RequestSpec
from workbench.core.session import Session, Setup


def test_a_parser_that_raises_ends_the_stream_with_vllms_error_chunk(tmp_path):
    from vllm.entrypoints.serve.exception_handling.error_response import create_error_response

    plugin = tmp_path / "atcall_raising.py"
    plugin.write_text(AT_RAISING)
    request = RequestSpec(tools=TOOLS, stream_options={"include_usage": True})
    session = Session(Setup("qwen3", ParserSpec("atcall", None), request, plugins=(str(plugin),)))
    result = session.replay(session.deltas_from_text(AT_TEXT + " Then more words after the call."))

    raised = [r for r in result.rows if r.error]
    first = raised[0]
    assert first.error == "RuntimeError: atcall cannot stream a call yet"
    expected = create_error_response(RuntimeError("atcall cannot stream a call yet")).model_dump()
    assert [json.loads(c) for c in first.chunks if '"error"' in c] == [expected]
    assert expected["error"] == {"message": "atcall cannot stream a call yet", "type": "InternalServerError",
                                 "param": None, "code": 500}
    after = [r for r in result.rows if r.step > first.step]
    assert after and all(r.chunks == [] and not r.sse for r in after)  # no usage chunk either
    assert all(r.extra["not_sent"].endswith(f"step {first.step}, where parse_delta raised") for r in after)
    before = [r for r in result.rows if r.step < first.step]
    assert "".join(r.content or "" for r in before if r.sse) == result.stream["content"] == "Sure."
