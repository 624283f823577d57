"""Capture a real vLLM server's stream (``return_token_ids``) and replay it here; the server
may be hostile: every failure is one line, every read is bounded.

    client.py       HTTP (http.client on a clocked socket) to the server; one-line failures
    stream.py       --timeout/--deadline clock, decompression and line caps over the door
    chunks.py       a chat chunk's shape, checked once before anything reads it
    capture.py      `workbench capture`: one streamed chat completion -> a recording
    sse.py          --from-sse: a saved SSE log as a recording (token ids reconstructed)
    tokcheck.py     is the local tokenizer the server's? checked on the prompt
    chunk_compare.py  the server's chunks beside this vLLM's rows, first difference and likely cause
    comparison.py   Comparison: a capture against this vLLM step by step (chunks or an API's events)
    events.py       a Responses / Messages event, checked once (the one check of an event)
    api_capture.py  capture --api responses|messages: /v1/responses or /v1/messages -> a recording
    api_compare.py  a Responses or Anthropic capture: the server's events beside this vLLM's face
    server_source.py  a live server stream as a widget source: one chunk per Step
    serve.py        start/stop a real `vllm serve` on 127.0.0.1 (tests/capture/test_serve_parity.py)
    serve_check.py  `workbench serve-check`: the author's parser served for real, its chunks beside the rows
"""
