"""`workbench export-config --python F.toml -o F_parser.py`: a parser config as a vLLM plugin
module. The workbench replays it as `vllm serve --tool-parser-plugin` would compose it and gets
the config's own rows; a real `vllm serve` on CPU loading it streams the chunks the workbench
predicts for the config (one case in make test, more in make test-slow)."""

from __future__ import annotations

import ast
import json
import textwrap

import pytest

from tests.support.invented_formats import OWL
from workbench.core.config.io import PARSERS_DIR

PARSERS = PARSERS_DIR
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]
OWL_TEXT = ('::reason::Weather.::/reason::Let me check.<<call>>{"name": "get_weather", "arguments": '
            '{"city": "Paris"}}<</call>> Anything else?')
QWEN3_TEXT = ('<think>Weather.</think>Let me check.\n<tool_call>\n<function=get_weather>\n<parameter=city>\n'
              'Paris\n</parameter>\n</function>\n</tool_call>')


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "owl.toml").write_text(OWL)
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    return tmp_path


def _masked(rows: list[dict]) -> list:
    out = []
    for r in rows:
        d = r["delta"]
        if d:
            d = {**d, "tool_calls": [{**c, "id": bool(c.get("id"))} for c in d.get("tool_calls") or []]}
        out.append((r["step"], d, r["finish_reason"]))
    return out


@pytest.mark.parametrize("config, text", [("owl", OWL_TEXT), ("teaching", '<think>hm</think>Sure.<tool_call>{"name": '
                                          '"get_weather", "arguments": {"city": "Paris"}}</tool_call>'),
                                          ("qwen3", QWEN3_TEXT)])
def test_the_plugin_replays_as_the_config(run_cli, folder, config, text):
    """Composed as vllm serve composes a plugin (DelegatingParser over vLLM's adapters), the
    rows equal the config's own (a family's class, qwen3's Qwen3Parser, comes along)."""
    path = folder / "owl.toml" if config == "owl" else PARSERS / f"{config}.toml"
    out = folder / f"{config}_parser.py"
    code, stdout, err = run_cli("export-config", "--python", path, "-o", out)
    assert code == 0 and stdout.strip() == str(out), err
    assert "--tool-parser-plugin" in err and f"--reasoning-parser-plugin {out}" in err
    source = out.read_text()
    assert ast.get_docstring(ast.parse(source)).startswith(f"{config}: the parser config {path.name}")
    runs = []
    for parser in (("--config", path), ("--plugin", out, "--tool-parser", config, "--reasoning-parser", config)):
        code, stdout, err = run_cli("replay", *parser, "--tools", folder / "tools.json", "--text", text, "--json")
        assert code == 0, err
        runs.append(json.loads(stdout))
    config_run, plugin_run = runs
    assert plugin_run["parser"]["kind"] == "delegating" and plugin_run["parser"]["tool"].startswith(f"{config}_parser.")
    assert _masked(config_run["rows"]) == _masked(plugin_run["rows"])
    for mode in ("stream", "nonstream"):
        a, b = config_run[mode], plugin_run[mode]
        assert (a["reasoning"], a["content"], [(c["name"], c["arguments"]) for c in a["tool_calls"]]) == (
            b["reasoning"], b["content"], [(c["name"], c["arguments"]) for c in b["tool_calls"]])


def test_bad_uses_are_one_line(run_cli, folder):
    cases = [(("export-config", "--python", folder / "owl.toml"), "give -o NAME.py"),
             (("export-config", "--python", folder / "owl.toml", "-o", folder / "x.toml"), "give -o NAME.py"),
             (("export-config", "--python", folder / "missing.toml", "-o", folder / "x.py"), "No such file"),
             (("export-config", "qwen3", "--register-as", "x"), "--register-as goes with --python"),
             (("export-config", "--python", folder / "owl.toml", "-o", folder / "x.py", "--register-as", "a b"),
              "a parser name is")]
    (folder / "plain.toml").write_text('name = "plain"\n')
    cases.append((("export-config", "--python", folder / "plain.toml", "-o", folder / "p.py"), "nothing to register"))
    for argv, says in cases:
        code, _, err = run_cli(*argv)
        assert code == 2 and says in err and err.count("\n") == 1, (argv, err)


SERVE_CASES = [
    pytest.param("owl", OWL_TEXT, id="owl", marks=pytest.mark.slow(
        reason="a vllm serve (~40 s); make test serves an exported config once: tests/cli/"
               "test_serve_check_cmd.py::test_an_exported_config_with_its_converter_serves_the_same_chunks")),
    pytest.param("qwen3", QWEN3_TEXT, id="qwen3-family-class", marks=pytest.mark.slow(
        reason="a second vllm serve (~60 s): a config that names vLLM's family class")),
]


@pytest.mark.parametrize("config, text", SERVE_CASES)
def test_vllm_serve_streams_what_the_workbench_predicts_for_the_config(run_cli, folder, config, text):
    """The generated plugin in a real `vllm serve` (tiny model, scripted tokens, CPU): its
    captured stream, replayed here with --config, matches chunk for chunk."""
    from workbench.capture import serve
    from workbench.core.tokenizers import load_tokenizer
    from workbench.engine.script import script_ids

    path = folder / "owl.toml" if config == "owl" else PARSERS / f"{config}.toml"
    plugin = folder / f"{config}_parser.py"
    assert run_cli("export-config", "--python", path, "-o", plugin)[0] == 0
    tokenizer = load_tokenizer("qwen3")
    ids, notes = script_ids(tokenizer, text, None, len(tokenizer))
    assert not notes
    body = {"messages": [{"role": "user", "content": "What is the weather in Paris?"}], "tools": TOOLS,
            "return_token_ids": True, "vllm_xargs": {"workbench_script": ids}}
    (folder / "req.json").write_text(json.dumps(body))
    served = serve.start(config, config, folder / "serve.log",
                         extra=["--tool-parser-plugin", str(plugin), "--reasoning-parser-plugin", str(plugin)])
    try:
        code, _, err = run_cli("capture", "--url", served.url, "--request", folder / "req.json", "-o",
                               folder / "cap.jsonl", "--plugin", plugin, "--tool-parser", config,
                               "--reasoning-parser", config)
    finally:
        served.stop()
    assert code == 0, err
    code, out, err = run_cli("replay", folder / "cap.jsonl", "--config", path, "--json")
    assert code == 0, err
    server = json.loads(out)["server"]
    assert server["first_difference"] is None, server["cause"]
    # (the server may fold two engine outputs into one chunk under load: steps <= tokens)
    assert server["steps"] and all(s["same"] for s in server["steps"])


MARKERS = ("@CLASS@", "@REGISTER@", "@DATA@", "@NAME@", "@PLAIN@", "@TITLE@")


def _marked(spell) -> str:
    """A config with a template placeholder (``spell`` of it) in every string field it has."""
    return textwrap.dedent(f'''\
        name = "{spell('@CLASS@')}"
        tool_args_json = true
        transitions = [
          {{ from = "CONTENT",   on = "A", to = "TOOL_ARGS", emit = ["TOOL_CALL_START"] }},
          {{ from = "TOOL_ARGS", on = "B", to = "CONTENT",   emit = ["TOOL_CALL_END"] }},
          {{ from = "CONTENT",   on = "C", to = "REASONING", emit = ["REASONING_START"] }},
          {{ from = "REASONING", on = "D", to = "CONTENT",   emit = ["REASONING_END"] }},
        ]
        [terminals]
        A = "{spell('@REGISTER@')}"
        B = ["{spell('@DATA@')}", "{spell('@NAME@')}"]
        C = "{spell('@PLAIN@')}"
        D = "{spell('@TITLE@')}"
        [content_events]
        CONTENT = "TEXT_CHUNK"
        REASONING = "REASONING_CHUNK"
        TOOL_ARGS = "ARG_VALUE_CHUNK"
        ''')


def test_placeholders_in_the_data_never_change_the_plugin(run_cli, tmp_path):
    """Terminals and a name spelled as the template's placeholders stay data: the plugin's
    statements equal those of the same config spelled otherwise, all but DATA, which holds them."""
    plain = {m: f"-{m.strip('@')}-" for m in MARKERS}  # the same class name, no placeholder
    sources = []
    for spell in (lambda m: m, lambda m: plain[m]):
        (tmp_path / "m.toml").write_text(_marked(spell))
        out = tmp_path / f"m{len(sources)}_parser.py"
        code, _, err = run_cli("export-config", "--python", tmp_path / "m.toml", "-o", out, "--register-as", "marked")
        assert code == 0, err
        sources.append(out.read_text())
    marked, unmarked = (ast.parse(s).body for s in sources)

    def data(body):
        return next(ast.literal_eval(s.value) for s in body if isinstance(s, ast.Assign)
                    and getattr(s.targets[0], "id", None) == "DATA")

    def code(body):
        return [ast.dump(s) for s in body[1:] if not (isinstance(s, ast.Assign)
                                                      and getattr(s.targets[0], "id", None) == "DATA")]

    assert code(marked) == code(unmarked)
    got = data(marked)
    assert got["name"] == "@CLASS@" and got["terminals"] == {"A": "@REGISTER@", "B": ["@DATA@", "@NAME@"],
                                                              "C": "@PLAIN@", "D": "@TITLE@"}
