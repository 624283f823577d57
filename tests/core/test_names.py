"""Names read from data never become paths (core/names.py).

The scan finds every path built from a formatted name (``folder / f"{x}.toml"``,
``p.with_name(f"...")``): each formatted value goes through ``path_name`` or is listed
here with why it is not data. Then each data name that becomes a path is tried with
traversal segments, a NUL byte and shell characters: one line, nothing touched."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from workbench.core.names import is_path_name, path_name
from workbench.errors import WorkbenchError

ROOT = Path(__file__).resolve().parents[2] / "workbench"
HOSTILE = ["../../victim", "..", ".", "a/b", "x\x00y", "x;touch PWNED;#", "t$(touch PWNED)", "", "a" * 101,
           ".hidden", "a\nb", "/abs", 7, None, ["x"]]

# (file, function, formatted expression): why it is not a name read from data.
NOT_DATA = {
    ("diagnosis/bugreport.py", "paths", "stem"): "the user's own --report argument, \\W replaced by _",
    ("core/live_plugin.py", "load_text", "next(_COUNTER)"): "a counter",
    ("core/tokenizers/builds.py", "_template", "name"): "our own templates' names (builds.py's table)",
    ("core/cache.py", "write_folder", "folder.name"): "our cache folder's own name, from our own lock files",
    ("core/cache.py", "write_folder", "os.getpid()"): "a pid",
    ("corpus/scenarios.py", "text", "family"): "scenarios.FAMILIES' own keys",
    ("corpus/spec.py", "Spec.for_recording", "i"): "an index",
    ("corpus/synth.py", "write", "it.name"): "an index and scenarios' own names",
    ("corpus/task.py", "_run", "i"): "an index",
    ("engine/tiny_model.py", "_build", "folder.name"): "our cache folder's own name",
    ("engine/tiny_model.py", "_build", "os.getpid()"): "a pid",
    ("lanes/warm_socket.py", "server_pid", "pid"): "an int parsed from a warm server's own pid file",
    ("engine/tiny_model.py", "model_dir", "name"): "a built-in tokenizer's name through path_name, or a folder's own",
    ("lanes/warm_socket.py", "runtime_dir", "os.getuid()"): "a uid",
    ("cli/daemon.py", "socket_path", "checkout()"): "'daemon-' and a sha256 hex digest of the interpreter and checkout",
    ("cli/daemon.py", "socket_path", "fingerprint()"): "a sha256 hex digest",
    ("core/models.py", "_stamp_path", "folder.name"): "our cache folder's own name, from our own models.lock.toml",
    ("core/models.py", "_write_stamp", "path.name"): "the stamp's own name (_stamp_path)",
    ("core/models.py", "_write_stamp", "os.getpid()"): "a pid",
    ("lanes/warm.py", "socket_path", "version"): "a version listed in setup/vllm-lanes.lock (versions.check)",
    ("lanes/warm.py", "socket_path", "key(version)"): "a sha256 hex digest",
    ("rustfe/model_dir.py", "model_dir", "tokenizer_sha256(source)[:16]"): "a sha256 hex digest",
    ("diagnosis/config/chat_templates.py", "flag", "taught.name"): "a built-in tokenizer's name (a shipped template)",
}


def _formatted_paths() -> dict:
    """{(file, function, expression): line} for every formatted value in a path segment."""
    found: dict = {}
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()

        class Visitor(ast.NodeVisitor):
            scope: list[str] = []

            def visit_FunctionDef(self, node):
                self.scope.append(node.name)
                self.generic_visit(node)
                self.scope.pop()

            visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

            def segment(self, part):
                for value in ast.walk(part) if isinstance(part, ast.JoinedStr) else ():
                    if not isinstance(value, ast.FormattedValue):
                        continue
                    expr = value.value
                    if isinstance(expr, ast.Call) and getattr(expr.func, "id", None) == "path_name":
                        continue
                    found.setdefault((rel, ".".join(self.scope), ast.unparse(expr)), value.lineno)

            def visit_BinOp(self, node):
                if isinstance(node.op, ast.Div):
                    self.segment(node.right)
                self.generic_visit(node)

            def visit_Call(self, node):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
                joins = name in ("with_name", "with_suffix", "joinpath") or (
                    name == "join" and isinstance(f, ast.Attribute) and ast.unparse(f.value) == "os.path")
                if joins or name == "Path":
                    for a in node.args:
                        self.segment(a)
                self.generic_visit(node)

        Visitor().visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def test_every_formatted_path_segment_is_a_checked_name():
    found = _formatted_paths()
    stray = {k: v for k, v in found.items() if k not in NOT_DATA}
    assert not stray, "a name read from data goes through core/names.path_name before it is a path " \
        "(or list why it is not data): " + ", ".join(f"{f}:{n} {fn}() {e}" for (f, fn, e), n in stray.items())
    stale = [k for k in NOT_DATA if k not in found]
    assert not stale, f"allow-list entries that no longer exist: {stale}"


@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_path_name_refuses_anything_but_a_name_in_one_line(value):
    with pytest.raises(WorkbenchError) as e:
        path_name(value, "thing")
    assert "\n" not in str(e.value) and "\x00" not in str(e.value) and str(e.value).startswith("thing: ")


@pytest.mark.parametrize("value", ["qwen3", "gpt_oss", "deepseek_v3", "llama-3.1", "Qwen3Moe"])
def test_real_names_pass(value):
    assert is_path_name(value) and path_name(value, "x") == value


def _tokenizer_folder(tmp_path, model_type) -> Path:
    tok = tmp_path / "tok"
    tok.mkdir()
    (tok / "tokenizer.json").write_text(json.dumps(
        {"version": "1.0", "model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a"}}))
    (tok / "config.json").write_text(json.dumps({"model_type": model_type, "vocab_size": 1}))
    return tok


@pytest.mark.parametrize("model_type", ["../../victim", "../victim", "x\x00y", "x;touch PWNED;#"], ids=repr)
def test_a_tokenizer_folders_model_type_never_names_a_folder(tmp_path, monkeypatch, model_type):
    """Today: ../ segments removed the victim and renamed the model folder onto it."""
    from workbench.rustfe import model_dir

    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    victim = tmp_path / "cache" / "victim"
    (victim / "keep").mkdir(parents=True)
    (tmp_path / "cache" / "vllm-rs" / "victim" / "keep").mkdir(parents=True)
    tok = _tokenizer_folder(tmp_path, model_type)
    with pytest.raises(WorkbenchError, match="model_type") as e:
        model_dir.model_dir(str(tok), ["a"])
    assert "\n" not in str(e.value)
    assert (victim / "keep").is_dir() and (tmp_path / "cache" / "vllm-rs" / "victim" / "keep").is_dir()
    assert not (tmp_path / "cache" / "vllm-rs" / "models").exists() or \
        not any((tmp_path / "cache" / "vllm-rs" / "models").iterdir())


def test_a_plain_model_type_still_names_the_model_folder(tmp_path, monkeypatch):
    from workbench.rustfe import model_dir

    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    folder = model_dir.model_dir(str(_tokenizer_folder(tmp_path, "qwen3")), ["a"])
    assert folder.parent == tmp_path / "cache" / "vllm-rs" / "models" and folder.name.endswith("-qwen3")
    assert json.loads((folder / "config.json").read_text())["model_type"] == "qwen3"


@pytest.mark.parametrize("name", ["x\x00y", "t$(touch PWNED)", "a;b"], ids=repr)
def test_a_recordings_tokenizer_name_never_names_the_tiny_models_folder(tmp_path, monkeypatch, name):
    """A recording's header names its tokenizer; the tiny model's folder is named after it."""
    from workbench.engine import tiny_model

    monkeypatch.setattr("workbench.core.tokenizers.ensure_tokenizer", lambda n: tmp_path)
    with pytest.raises(WorkbenchError, match="tokenizer name") as e:
        tiny_model.model_dir(name)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("ext", ["../../../etc/x", "a/../../b", "x\x00y"], ids=repr)
def test_a_configs_extends_name_is_a_name(tmp_path, ext):
    from workbench.core.config import io

    (tmp_path / "x.toml").write_text('name = "x"\n')
    cfg = tmp_path / "sub" / "c.toml"
    cfg.parent.mkdir()
    cfg.write_text(f'extends = {json.dumps(ext)}\nname = "c"\n')
    with pytest.raises(WorkbenchError, match="neither a config name") as e:
        io.load(cfg)
    assert "\n" not in str(e.value)


def test_a_plugin_family_name_never_names_an_exported_file(tmp_path, monkeypatch):
    from workbench.core.config import from_vllm

    monkeypatch.setattr(from_vllm, "families", lambda: {"../../escaped": object})
    with pytest.raises(WorkbenchError, match="family") as e:
        from_vllm.export_all(tmp_path / "out", tokenizer=None)
    assert "\n" not in str(e.value) and not (tmp_path / "escaped.toml").exists()
