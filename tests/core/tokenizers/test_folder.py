"""A tokenizer folder named with --tokenizer is read by transformers and the tokenizers
library, not by the workbench: core/tokenizers/folder.py holds each file to the door's
rules first, and the folder's chat template renders boxed. Each case is one line, exit 2."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

FILES = ("tokenizer.json", "tokenizer_config.json", "config.json")


def qwen3_copy(tmp: Path, **changes) -> Path:
    """qwen3's folder copied to ``tmp/tok``; ``changes``: file name (dots as "__") -> bytes,
    "FIFO", ("link", target), an int (a sparse file of that size) or a dict (JSON)."""
    from workbench.core.tokenizers import ensure_tokenizer

    folder = tmp / "tok"
    folder.mkdir()
    for file in FILES:
        shutil.copy(ensure_tokenizer("qwen3") / file, folder / file)
    for name, value in changes.items():
        p = folder / name.replace("__", ".")
        p.unlink(missing_ok=True)
        if value == "FIFO":
            os.mkfifo(p)
        elif isinstance(value, tuple):
            p.symlink_to(value[1])
        elif isinstance(value, int):
            with p.open("wb") as f:
                f.truncate(value)
        elif isinstance(value, dict):
            p.write_text(json.dumps(value))
        else:
            p.write_bytes(value.encode() if isinstance(value, str) else value)
    return folder


def own_config(**changes) -> dict:
    from workbench.core.tokenizers import ensure_tokenizer

    config = json.loads((ensure_tokenizer("qwen3") / "tokenizer_config.json").read_text())
    return {**config, **changes}


CASES = {
    "tokenizer.json a FIFO": (dict(tokenizer__json="FIFO"), "is a FIFO"),
    "tokenizer.json -> /dev/zero": (dict(tokenizer__json=("link", "/dev/zero")), "character device"),
    "tokenizer.json of 3 GB": (dict(tokenizer__json=3 << 30), "over the 64.0 MB"),
    "tokenizer_config.json of 3 GB": (dict(tokenizer_config__json=3 << 30), "over the 16.0 MB"),
    "tokenizer_config.json a FIFO": (dict(tokenizer_config__json="FIFO"), "is a FIFO"),
    "tokenizer_config.json nested": (dict(tokenizer_config__json="[" * 100_000 + "]" * 100_000), "nested"),
    "tokenizer_config.json a list": (dict(tokenizer_config__json="[1]"), "a JSON object expected"),
    "tokenizer_config.json a huge integer": (dict(tokenizer_config__json='{"model_max_length": ' + "9" * 5000 + "}"),
                                             "5,000 digits"),
    "added_tokens.json a FIFO": (dict(added_tokens__json="FIFO"), "is a FIFO"),
    "special_tokens_map.json -> /dev/zero": (dict(special_tokens_map__json=("link", "/dev/zero")), "device"),
    "chat_template.jinja a FIFO": (dict(chat_template__jinja="FIFO"), "is a FIFO"),
    "a dangling link": (dict(vocab__json=("link", "/nonexistent/x")), "No such file"),
    "tokenizer_class a model": (dict(tokenizer_config__json=own_config(tokenizer_class="AutoModelForCausalLM")),
                                "is not a tokenizer class"),
    "tokenizer_class AutoTokenizer": (dict(tokenizer_config__json=own_config(tokenizer_class="AutoTokenizer")),
                                      "is not a tokenizer class"),
    "tokenizer_class a number": (dict(tokenizer_config__json=own_config(tokenizer_class=5)), "must be a string"),
    "a template that eats memory": (dict(tokenizer_config__json=own_config(chat_template="{{ ('x' * 100000000) * 50 }}")),
                                    "chat template failed: over the"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_bad_tokenizer_folder_is_one_line(run_cli, tmp_path, name):
    changes, message = CASES[name]
    folder = qwen3_copy(tmp_path, **changes)
    code, out, err = run_cli("replay", "--tokenizer", folder, "--text", "hello", "--json")
    assert "Traceback" not in err and code == 2, (code, err)
    assert err.count("\n") == 1 and message in err, err
    assert out == ""


def test_a_folders_template_loop_ends_in_the_box(run_cli, tmp_path, monkeypatch):
    from workbench.core import limits

    monkeypatch.setattr(limits, "TEMPLATE_SECONDS", 2)
    loop = "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}"
    folder = qwen3_copy(tmp_path, tokenizer_config__json=own_config(chat_template=loop))
    code, _, err = run_cli("replay", "--tokenizer", folder, "--text", "hello")
    assert code == 2 and "still rendering after 2 s" in err and err.count("\n") == 1, err


def test_a_folders_code_never_runs(run_cli, tmp_path):
    """auto_map names the folder's own code: loaded with trust_remote_code=False, as `vllm
    serve` without --trust-remote-code loads it, the code is never imported."""
    sentinel = tmp_path / "ran"
    code_py = f"open({str(sentinel)!r}, 'w').write('x')\nclass Evil: pass\n"
    config = own_config(auto_map={"AutoTokenizer": ["evil.Evil", "evil.Evil"]})
    folder = qwen3_copy(tmp_path, tokenizer_config__json=config, evil__py=code_py,
                        config__json={"model_type": "qwen3", "auto_map": {"AutoConfig": "evil.Evil"}})
    code, out, err = run_cli("replay", "--tokenizer", folder, "--text", "hello", "--json")
    assert code == 0, err
    assert not sentinel.exists()


def test_a_model_repository_folder_with_weights_still_loads(run_cli, tmp_path):
    """Weights are never read for a tokenizer, so they are not checked (a 3 GB sparse one)."""
    folder = qwen3_copy(tmp_path, model__safetensors=3 << 30)
    (folder / "original").mkdir()
    code, out, err = run_cli("replay", "--tokenizer", folder, "--text", "hello", "--json")
    assert code == 0, err
    assert json.loads(out)["rows"]


def test_a_pre_tokenizer_regex_that_panics_is_one_line(tmp_path):
    """A backtracking pre-tokenizer regex made the tokenizers library panic on a run of
    letters (Onig's retry limit): 111 lines of Rust trace and a traceback. The folder is
    refused when it loads, in one line with the panic's reason (a real process: the
    panic writes to file descriptor 2 itself)."""
    import subprocess
    import sys

    from workbench.core.tokenizers import ensure_tokenizer

    tok = json.loads((ensure_tokenizer("qwen3") / "tokenizer.json").read_text())
    tok["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = r"(\w+\s?)*$"
    folder = qwen3_copy(tmp_path, tokenizer__json=json.dumps(tok))
    out = subprocess.run([sys.executable, "-m", "workbench", "replay", "--tokenizer", str(folder), "--text",
                          "a" * 40 + "!", "--json"], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "RUST_BACKTRACE": "1"})
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr[-2000:]
    assert "tokenizers library panicked: Onig: Regex search error: retry-limit-in-match over" in out.stderr


def test_a_library_warning_is_no_second_line_under_an_error(run_cli, tmp_path):
    """transformers' "Token indices sequence length is longer than..." (a folder whose
    model_max_length is small) printed a line, twice, above the one-line error."""
    folder = qwen3_copy(tmp_path, tokenizer_config__json=own_config(model_max_length=4))
    code, out, err = run_cli("replay", "--tokenizer", folder, "--text", "hi there how are you doing today",
                             "--chunking", "at:1000")
    assert code == 2 and err.count("\n") == 1 and "--chunking at:1000" in err, err


def test_a_folder_name_with_triple_quotes_stays_inside_the_exported_docstring(run_cli, tmp_path):
    """The folder's name was pasted raw into the exported test's docstring: ``\"\"\"`` closed
    it (only an accident of compile() stopped the file). Through the Python door it is
    docstring text: the file parses, and its docstring names the folder as it is."""
    import ast

    base = tmp_path / 'tok"""; import os; os.system("x"); """'
    base.mkdir()
    folder = qwen3_copy(base)
    out = tmp_path / "test_q.py"
    code, _, err = run_cli("export", "--tokenizer", folder, "--text", "hi", "--fuzz", "1", "-o", out)
    assert code == 0 and "Traceback" not in err, err
    tree = ast.parse(out.read_text())
    assert str(folder) in ast.get_docstring(tree, clean=False)
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "system"]
