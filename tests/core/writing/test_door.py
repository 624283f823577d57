"""The writing door (core/writing/): every text written for a person passes the encoder
of its medium. The encoders are checked on hostile values; an ``ast`` scan checks that
nothing in workbench/ writes to a terminal, a report, a page or generated Python past
them (as tests/core/test_door.py does for reading)."""

from __future__ import annotations

import ast
import io
import json
import sys
from pathlib import Path

import pytest

from workbench.core.writing import html as page, jsontext, markdown as md, python as py, terminal

# every control a terminal acts on, and the characters that reorder or end a line
HOSTILE = ["\x1b[2J", "\x1b]8;;http://x\x07link\x1b]8;;\x07", "\x1b]0;title\x07", "\x07", "\x9b31m", "\x7f",
           "a\nworkbench check: error: forged", "a\rforged", "\u202eevil\u202c", "\u2066x\u2069", "\u2028", "\x00",
           "\x08\x08"]
RAW = set("\x1b\x07\x9b\x7f\r\x00\x08\u202e\u202c\u2066\u2069\u2028")


# -- terminal ------------------------------------------------------------------------
@pytest.mark.parametrize("value", HOSTILE)
def test_a_terminal_value_is_one_line_with_no_raw_control(value):
    shown = terminal.text(value)
    assert "\n" not in shown and not RAW & set(shown)
    assert terminal.line("workbench x: error: {}", value).count("\n") == 0


def test_terminal_values_keep_printable_text_and_escape_the_rest():
    assert terminal.text("café ☕ [red]x[/]") == "café ☕ [red]x[/]"
    assert terminal.text("a\x1b[2Jb\nc\u202ed") == "a\\x1b[2Jb\\nc\\u202ed"
    assert terminal.layout("a\nb\tc\x1b") == "a\nb\tc\\x1b"
    assert terminal.line("{:.1f} s, {!r}", 2.345, "x") == "2.3 s, 'x'"


def _render(*objects) -> str:
    con = terminal.Console(file=io.StringIO(), width=120, force_terminal=True, color_system="standard")
    for o in objects:
        con.print(o)
    return con.file.getvalue()


@pytest.mark.parametrize("value", HOSTILE + ["[link=http://evil]click[/link]", "[red]x"])
def test_the_doors_tables_and_console_show_values_not_controls(value):
    t = terminal.Table(title=value, caption=value)
    t.add_column(value)
    t.add_row(value)
    out = _render(t, value, terminal.markup("[red]error[/red] {}", value), terminal.cells([value, value]))
    raw = out.replace("\x1b[", "")  # rich's own SGR sequences
    assert not RAW & set(raw), repr(out)
    assert "]8;" not in out.replace("\\x1b]8;", "")  # no hyperlink made from a value's markup
    assert "forged" not in out or "\\nworkbench" in out or "\\rforged" in out


def test_the_stream_escapes_what_got_past_a_value_and_keeps_our_styling():
    buf = io.StringIO()
    s = terminal.Stream(buf)
    s.write("\x1b[1;31mred\x1b[0m \x1b]0;t\x07 \x1b[2J \r\x1b[K\x9b\n")
    assert buf.getvalue() == "\x1b[1;31mred\x1b[0m \\x1b]0;t\\x07 \\x1b[2J \r\x1b[K\\x9b\n"


def test_the_cli_error_line_shows_a_hostile_value_escaped(run_cli, tmp_path):
    name = tmp_path / "a\x1b]0;owned\x07\nworkbench replay: error: all good.jsonl"
    code, out, err = run_cli("replay", str(name))
    assert code == 2 and err.count("\n") == 1, err
    assert "\x1b" not in err and "\x07" not in err and "\\x1b]0;owned\\x07\\nworkbench" in err


def test_json_text_escapes_what_json_dumps_leaves_raw():
    value = {"k": "\x7f\x9b\u202e\u2028ok\n", "n": float("nan")}
    text = jsontext.dumps(value)
    assert not RAW & set(text) and "\n" not in text
    assert json.loads(text) == {"k": "\x7f\x9b\u202e\u2028ok\n", "n": None}


# -- markdown --------------------------------------------------------------------------
def _html_of(markdown_text: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").render(markdown_text)


MD_HOSTILE = ["```\n# Owned\n![x](http://evil/x.png)\n```", "<img src=http://evil/x.png>", "<!-- hide",
              "![x](http://evil/x.png)", "[click](http://evil)", "a | b | c", "# heading", "1. item", "- item",
              "````````", "` code `", "*em* _em_ ~~s~~", "&lt;script&gt;", "<http://evil>", "\\", "\x1b[2J",
              "line\n## forged"]


@pytest.mark.parametrize("value", MD_HOSTILE)
def test_a_markdown_value_stays_text_wherever_it_goes(value):
    doc = "\n".join([f"# title {md.inline(value)}", "", f"- item {md.inline(value)} and {md.code(value)}", "",
                     "| a | b |", "|---|---|", f"| {md.cell(value)} | x |", "", md.fence(value), "",
                     md.inline(value), "", "# end"])
    out = _html_of(doc)
    assert out.count("<h1>") == 2 and "<h2>" not in out and "<img" not in out and "<a " not in out, out
    assert "<!--" not in out and "<em>" not in out and "<script" not in out, out
    assert out.count("<td>") == 2 and out.count("<pre>") == 1, out
    assert "\x1b" not in doc


def test_a_fence_is_longer_than_any_backtick_run_inside():
    for n in range(1, 12):
        f = md.fence("a" + "`" * n + "b")
        assert f.startswith("`" * max(3, n + 1) + "text\n") and f.endswith("\n" + "`" * max(3, n + 1))


# -- html ------------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["</script><script>alert(1)</script>", "<!--<script>", "a&b", "\u2028\u2029",
                                   "]]>", "<svg onload=alert(1)>"])
def test_json_in_a_script_cannot_end_or_hide_it(value):
    text = page.script_json({"name": value, value: [value]})
    assert not set("<>&\u2028\u2029") & set(text)
    assert json.loads(text) == {"name": value, value: [value]}
    assert "<" not in page.text(value) and '"' not in page.text(value + '"')


# -- python ----------------------------------------------------------------------------
@pytest.mark.parametrize("value", ['"""', "'''", "\\", "a\nb", "\x00", "\u2028", "x'); import os; ('",
                                   ['"""', {"k": "\n"}], {"a": (1, 2.5, None, True)}])
def test_a_python_literal_reads_back_as_the_value(value):
    lit = py.literal(value)
    assert ast.literal_eval(lit) == value
    source = f"{py.docstring(value)}\n{py.comment(value)}\nX = {lit}\nY = {py.literal(value, pretty=True)}\n"
    tree = ast.parse(py.module(source, "t.py", docstring_starts=str(value)))
    assert len(tree.body) == 3 and ast.get_docstring(tree, clean=False) == str(value)


def test_python_that_does_not_parse_is_never_returned():
    from workbench.errors import WorkbenchError

    with pytest.raises(WorkbenchError, match=r"^t\.py: the generated Python does not parse"):
        py.module('X = """\n' + '"""' + '"', "t.py")
    with pytest.raises(WorkbenchError, match="docstring is not the one written"):
        py.module('"""a"""\n"""b"""', "t.py", docstring_starts="ab")
    with pytest.raises(WorkbenchError, match="has no Python literal"):
        py.literal({"x": object()})


# -- nothing writes for a person past the door (ast) --------------------------------------
ROOT = Path(__file__).resolve().parents[3] / "workbench"
DOOR = "core/writing/"
STREAMS = {"sys.stdout", "sys.stderr", "sys.__stdout__", "sys.__stderr__"}
TEMPLATED = {"say": 0, "line": 0, "markup": 0, "progress": 1}  # door function -> its template's position

# (file, function, what): why it is not text for a person, or why it needs no door.
NOT_FOR_A_PERSON = {
    ("engine/quiet.py", "_CurrentStderr.write", "sys-stream write"):
        "vLLM's log handler, onto whatever sys.stderr is (in the CLI, the door's Stream)",
}


def _dotted(node) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _constant_template(node) -> bool:
    if isinstance(node, ast.IfExp):
        return _constant_template(node.body) and _constant_template(node.orelse)
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def terminal_writes() -> dict:
    """{(file, function, what): line} for every write to a terminal that is not the door's."""
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(DOOR):
            continue

        class Visitor(ast.NodeVisitor):
            scope: list[str] = []

            def visit_FunctionDef(self, node):
                self.scope.append(node.name)
                self.generic_visit(node)
                self.scope.pop()

            visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

            def add(self, what, node):
                found.setdefault((rel, ".".join(self.scope), what), node.lineno)

            def visit_Import(self, node):
                for a in node.names:
                    if a.name.split(".")[0] == "rich":
                        self.add("rich import", node)

            def visit_ImportFrom(self, node):
                if (node.module or "").split(".")[0] == "rich":
                    self.add("rich import", node)

            def visit_Call(self, node):
                fn = _dotted(node.func)
                if fn == "print":
                    self.add("print", node)
                if isinstance(node.func, ast.Attribute) and node.func.attr == "write" \
                        and _dotted(node.func.value) in STREAMS:
                    self.add("sys-stream write", node)
                name = fn.rpartition(".")[2]
                if name in TEMPLATED and (fn == name or fn.startswith("terminal.")):
                    at = TEMPLATED[name]
                    if len(node.args) <= at or not _constant_template(node.args[at]):
                        self.add(f"{name}() with a template that is not a constant", node)
                self.generic_visit(node)

        Visitor().visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def test_nothing_writes_to_a_terminal_past_the_door():
    found = terminal_writes()
    stray = {k: v for k, v in found.items() if k not in NOT_FOR_A_PERSON}
    assert not stray, "write for a person through workbench/core/writing/ (or list why it is not): " + \
        ", ".join(f"{f}:{line} {fn}() {what}" for (f, fn, what), line in stray.items())
    stale = [k for k in NOT_FOR_A_PERSON if k not in found]
    assert not stale, f"allow-list entries that no longer exist: {stale}"


def test_the_scan_sees_a_write_past_the_door(tmp_path, monkeypatch):
    (tmp_path / "bad.py").write_text("import sys\nfrom rich.table import Table\n"
                                     "def f(x):\n    print(x)\n    sys.stderr.write(x)\n"
                                     "    terminal.say(f'{x}')\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert {what for (_, _, what) in terminal_writes()} == {
        "rich import", "print", "sys-stream write", "say() with a template that is not a constant"}


# The modules that compose a report, a page or Python: an f-string there is text of that
# medium, so each value in it is encoded (a door call), a number (its format spec says
# so: ``{n:d}``), or a fragment of that medium made here. An f-string inside a door
# call's arguments is a value, encoded whole.
COMPOSERS = {"diagnosis/bugreport.py", "corpus/html.py", "pages/page_table.py", "export/pytest_file.py",
             "core/config/export_python.py"}
ENCODERS = {"inline", "cell", "code", "fence", "text", "script_json", "script_code", "literal", "comment",
            "in_docstring", "docstring", "module", "_cell"}
NUMERIC = ("d", "f", "g", "e", "%", "x", "n")
# (file, name): a fragment of the file's medium made there, or a constant of ours
FRAGMENTS = {
    ("corpus/html.py", "CSS"), ("corpus/html.py", "SCRIPT"), ("corpus/html.py", "kinds_table"),
    ("corpus/html.py", "bar_chart"), ("corpus/html.py", "histogram"), ("corpus/html.py", "recordings_table"),
    ("corpus/html.py", "fragment"), ("corpus/html.py", "page_table.assets"), ("corpus/html.py", "first"),
    ("corpus/html.py", "note"), ("corpus/html.py", "errors"),
}
# (file, function): why its f-strings are plain values, encoded whole where they are used
PLAIN_VALUES = {
    ("diagnosis/bugreport.py", "paths"): "file names, not report text",
    ("export/pytest_file.py", "render_pytest"): "the title, put in through python.in_docstring",
    ("export/pytest_file.py", "parser_label"): "the title's parser words, put in through python.in_docstring",
    ("diagnosis/bugreport.py", "_label"): "the title's parser words, put in through md.inline",
    ("core/config/export_python.py", "plugin_source"):
        "error messages, the title (put in through python.in_docstring) and class_name's identifier",
    ("export/pytest_file.py", "vllm_sample"): "a JSON sample's fields (written by jsontext)",
    ("export/pytest_file.py", "write_pytest"): "an error message",
    ("export/pytest_file.py", "self_check"): "a module name and test ids, not written",
    ("corpus/html.py", "open_command"): "a notebook call (Python source of repr'd values), shown through web.text",
    ("corpus/html.py", "_example"): "a column value: page_table.records puts it in script_json",
    ("corpus/html.py", "kind_columns"): "column titles and values, put in script_json",
    ("corpus/html.py", "kinds_of"): "a column value, put in script_json",
    ("corpus/html.py", "kind_columns.<lambda>"): "a column value, put in script_json",
}


def _spec_is_numeric(node: ast.FormattedValue) -> bool:
    spec = node.format_spec
    if spec is None or not all(isinstance(v, ast.Constant) for v in spec.values):
        return False
    return "".join(str(v.value) for v in spec.values).endswith(NUMERIC)


def _encoded(node, rel: str) -> bool:
    v = node.value
    if isinstance(v, ast.Call) and _dotted(v.func).rpartition(".")[2] in ENCODERS:
        return True
    if isinstance(v, ast.IfExp):
        return all(isinstance(b, ast.Constant) or _encoded(ast.FormattedValue(b, -1, None), rel)
                   for b in (v.body, v.orelse))
    name = _dotted(v.func if isinstance(v, ast.Call) else v)
    return _spec_is_numeric(node) or (rel, name) in FRAGMENTS


def composed_values() -> dict:
    """{(file, function, source): line} for each value put raw into a composed medium."""
    found = {}
    for rel in sorted(COMPOSERS):
        path = ROOT / rel
        source = path.read_text(encoding="utf-8")

        class Visitor(ast.NodeVisitor):
            scope: list[str] = []

            def visit_FunctionDef(self, node):
                self.scope.append(node.name)
                self.generic_visit(node)
                self.scope.pop()

            visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

            def visit_Lambda(self, node):
                self.scope.append("<lambda>")
                self.generic_visit(node)
                self.scope.pop()

            def visit_Call(self, node):
                if _dotted(node.func).rpartition(".")[2] in ENCODERS:
                    return  # its arguments are values, encoded whole
                self.generic_visit(node)

            def visit_JoinedStr(self, node):
                for part in node.values:
                    if isinstance(part, ast.FormattedValue) and not _encoded(part, rel):
                        where = (rel, ".".join(self.scope), ast.get_source_segment(source, part.value))
                        found.setdefault(where, part.lineno)

        Visitor().visit(ast.parse(source))
    return found


def test_composed_reports_pages_and_python_encode_every_value():
    found = composed_values()
    stray = {k: v for k, v in found.items() if k[:2] not in PLAIN_VALUES}
    assert not stray, "encode each value with core/writing (or a numeric spec, or list the fragment): " + \
        ", ".join(f"{f}:{line} {fn}(): {{{src}}}" for (f, fn, src), line in stray.items())
    stale = [k for k in PLAIN_VALUES if k not in {x[:2] for x in found}]
    assert not stale, f"allow-list entries that no longer exist: {stale}"
