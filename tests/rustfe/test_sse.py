"""The frontend's body split into SSE events byte for byte, and per engine step."""

from __future__ import annotations

from workbench.rustfe import sse
from workbench.rustfe.core import Exchange, Step


def test_events_keep_their_bytes_names_and_data():
    body = (b'data: {"a":1}\n\nevent: response.created\ndata: {"b":2}\n\n: keep-alive\n\n'
            b"data: [DONE]\n\n")
    events, rest = sse.split(body)
    assert rest == b"" and "".join(e.raw for e in events).encode() == body
    assert [(e.event, e.data, e.json) for e in events] == [
        (None, '{"a":1}', True), ("response.created", '{"b":2}', True), (None, None, False),
        (None, "[DONE]", False)]


def test_an_event_cut_between_steps_goes_to_the_step_it_ends_in():
    ex = Exchange("/v1/chat/completions", {}, status=200, head=b'data: {"h":0}\n\nda',
                  steps=[Step([1], None, b'ta: {"x":1}\n\ndata: {"y"'), Step([2], "stop", b':2}\n\n')],
                  tail=b"data: [DONE]\n\n")
    split = sse.per_step(ex)
    assert [e.data for e in split.head] == ['{"h":0}']
    assert [[e.data for e in s] for s in split.steps] == [['{"x":1}'], ['{"y":2}']]
    assert [e.data for e in split.tail] == ["[DONE]"]
    assert split.notes == ["step 1: an SSE event begun at step 0 ended here",
                           "step 2: an SSE event begun at step 1 ended here"]
    joined = "".join(e.raw for part in (split.head, *split.steps, split.tail) for e in part)
    assert joined.encode() == ex.body


def test_a_body_that_ends_inside_an_event_keeps_it_and_says_so():
    ex = Exchange("/v1/chat/completions", {}, status=200, steps=[Step([1], "stop", b'data: {"x":1}')])
    split = sse.per_step(ex)
    assert [e.data for e in split.tail] == ['{"x":1}'] and "no blank line" in split.notes[-1]
