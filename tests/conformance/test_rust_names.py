"""The names vllm-rs registers, as the binary lists them, and the n/a cells they make."""

from __future__ import annotations

import pytest

from tests.support.rust import RUST_VERSION as VERSION
from workbench.core.parsers import ParserSpec
from workbench.core.run_spec import RunSpec
from workbench.lanes import names as py_names
from workbench.conformance import pyrs, runs, rust_names


@pytest.fixture(scope="module")
def rust():
    return rust_names.names(VERSION)


def test_the_binary_lists_its_parsers(rust):
    assert "hermes" in rust["tool"] and "qwen3" in rust["reasoning"]
    python = py_names.declared(VERSION)
    only_python = set(python["tool"]) - rust["tool"]
    assert only_python, "every Python tool parser has a Rust counterpart: the n/a cells below would never show"
    name = sorted(only_python)[0]
    spec = RunSpec(text="x", parser=ParserSpec(name, None))
    assert runs.rust_na(VERSION, spec) == f"vllm-rs {VERSION} registers no tool parser {name!r}"
    assert runs.rust_na(VERSION, RunSpec(text="x", parser=ParserSpec("hermes", "qwen3"))) is None
    assert runs.rust_na("0.32.0", spec).startswith("vllm-rs ships in vLLM's wheels from 0.33")
    # a tokenizer vllm-rs cannot read (no tokenizer.json): the cell is not available, not an error
    tekken = RunSpec(text="x", tokenizer="mistral_tekken", parser=ParserSpec("mistral", None))
    assert runs.rust_na(VERSION, tekken).startswith("the Rust frontend reads a Hugging Face tokenizer.json;")


def test_the_names_table_has_each_side(rust):
    rows = {(r["kind"], r["name"]): r for r in pyrs.names([VERSION])}
    assert rows[("tool", "hermes")]["rust"] == [VERSION] and rows[("tool", "hermes")]["python"] == [VERSION]
    assert {n for (k, n), r in rows.items() if k == "tool" and r["rust"]} == set(rust["tool"])
