"""Capture a real vLLM server's stream (``return_token_ids``) and replay it here.

``client`` speaks HTTP to the server, ``capture`` writes the recording chunk by
chunk, ``sse`` reads a saved SSE log, ``tokcheck`` refuses a tokenizer that is
not the server's, ``compare`` puts the server's chunks beside this vLLM's rows.
"""
