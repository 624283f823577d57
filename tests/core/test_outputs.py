"""Outputs (issue 16, item 7): no -o overwrites a file unasked; --json is strict JSON,
and a closed pipe or a full disk ends a command in one line (or silently), never
with a traceback."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.core import outputs

ROOT = Path(__file__).resolve().parents[2]


def keep(tmp_path, name: str) -> Path:
    p = tmp_path / name
    p.write_text("keep")
    return p


@pytest.mark.parametrize("argv", [
    lambda t: ["export", "--text", "hi", "-o", keep(t, "test_x.py")],
    lambda t: ["export", "--text", "hi", "--format", "vllm-sample", "-o", keep(t, "s.jsonl")],
    lambda t: ["export-config", "qwen3", "-o", keep(t, "q.toml")],
    lambda t: ["record", "--text", "hi", "-o", keep(t, "r.jsonl")],
    lambda t: ["replay", "--text", "hi", "--save", keep(t, "r.jsonl")],
])
def test_every_output_refuses_an_existing_file(run_cli, tmp_path, argv):
    args = argv(tmp_path)
    code, out, err = run_cli(*args)
    assert code == 2 and "exists: give another name, or --force to overwrite it" in err and err.count("\n") == 1
    assert all(p.read_text() == "keep" for p in tmp_path.iterdir())


def test_export_config_all_refuses_before_writing_anything(run_cli, tmp_path):
    keep(tmp_path, "qwen3.toml")
    code, _, err = run_cli("export-config", "--all", tmp_path)
    assert code == 2 and "qwen3.toml exists" in err
    assert [p.name for p in tmp_path.iterdir()] == ["qwen3.toml"]  # no family was written first


def test_force_overwrites(run_cli, tmp_path):
    path = keep(tmp_path, "q.toml")
    assert run_cli("export-config", "qwen3", "-o", path, "--force")[0] == 0
    assert 'name = "qwen3"' in path.read_text()


def test_json_is_strict_nan_and_infinity_become_null():
    text = outputs.strict_json({"a": float("nan"), "b": [float("inf"), -float("inf"), 1.5], "c": "NaN"})
    assert json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in --json")) == {
        "a": None, "b": [None, None, 1.5], "c": "NaN"}


class Failing:
    def __init__(self, err: int) -> None:
        self.err = err

    def write(self, text):
        raise OSError(self.err, os.strerror(self.err))

    def flush(self):
        raise OSError(self.err, os.strerror(self.err))


@pytest.mark.parametrize("err, code, lines", [(errno.ENOSPC, 2, 1), (errno.EPIPE, 141, 0)])
def test_a_failing_stdout_is_one_line_or_silent(monkeypatch, capsys, err, code, lines):
    from workbench.cli import main

    monkeypatch.setattr(sys, "stdout", Failing(err))
    assert main(["tokenizers", "--json"]) == code
    got = capsys.readouterr().err
    assert got.count("\n") == lines and "Traceback" not in got
    if lines:
        assert got == "workbench tokenizers: error: cannot write to stdout: No space left on device\n"


def _run(argv, stdout) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", "import sys; from workbench.cli import main; sys.exit(main())",
                           *argv], stdout=stdout, stderr=subprocess.PIPE, text=True, env=env, timeout=120)


def test_json_to_dev_full_is_one_line():
    if not os.path.exists("/dev/full"):
        pytest.skip("/dev/full is not on this system")
    with open("/dev/full", "w") as full:
        done = _run(["tokenizers", "--json"], full)
    assert done.returncode == 2, done.stderr
    assert done.stderr == "workbench tokenizers: error: cannot write to stdout: No space left on device\n"


def test_json_to_a_closed_pipe_is_silent():
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte: like `| head -c 0`
    try:
        done = _run(["tokenizers", "--json"], write)
    finally:
        os.close(write)
    assert done.returncode == 141 and done.stderr == "", done.stderr


def test_force_never_writes_through_a_symbolic_link(tmp_path):
    outside = keep(tmp_path, "outside.txt")
    link = tmp_path / "out.txt"
    link.symlink_to(outside)
    for write in (lambda: outputs.write_text(link, "x", force=True), lambda: outputs.append(link)):
        with pytest.raises(outputs.WorkbenchError, match="is a symbolic link, which is not followed"):
            write()
    assert outside.read_text() == "keep" and link.is_symlink()


def test_export_config_all_writes_nothing_through_a_link_out_of_its_folder(run_cli, tmp_path):
    d = tmp_path / "configs"
    d.mkdir()
    outside = keep(tmp_path, "elsewhere.toml")
    (d / "qwen3.toml").symlink_to(outside)
    code, out, err = run_cli("export-config", "--all", d, "--force")
    assert code == 2 and err.count("\n") == 1 and "qwen3.toml: is a symbolic link" in err, err
    assert outside.read_text() == "keep"
    assert list(d.iterdir()) == [d / "qwen3.toml"]  # refused before any family is written


def test_synth_writes_nothing_through_a_folder_that_leads_out(run_cli, tmp_path):
    d = tmp_path / "synth"
    d.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (d / "hermes").symlink_to(elsewhere)
    code, out, err = run_cli("corpus", "--synth", "2", "-o", d, "--families", "hermes")
    assert code == 2 and err.count("\n") == 1 and "leads out of" in err, err
    assert not list(elsewhere.iterdir())
