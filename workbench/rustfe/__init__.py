"""vLLM's Rust frontend (``vllm-rs``, in the official wheels from 0.33) beside the Python one.

The binary parses with its own Rust tool and reasoning parsers.

    binary.py     vllm/vllm-rs of a locked version's wheel, extracted and hash-checked
"""
