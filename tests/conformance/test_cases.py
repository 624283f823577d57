"""The shipped cases (parsers/cases): every expected answer against vLLM's own non-streaming
parse (``Parser.parse`` through core.prepare, or a lane's), once, on the version that passes
it; and the loader's refusals, each one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.core.messages import Final, ToolCall
from workbench.core.tokenizers import DESCRIPTIONS
from workbench.errors import WorkbenchError
from workbench.lanes import versions
from workbench.conformance import cases as mc
from workbench.conformance.expect import nonstream_answers


@pytest.fixture(scope="module")
def shipped() -> list[mc.Case]:
    return mc.load_cases([str(mc.CASES_DIR)])


def _diff(case: mc.Case, final: Final) -> str | None:
    if final.error is not None:
        return f"parse raised {final.error}"
    return mc.compare(case.expected, mc.answer_of(final))


@pytest.mark.parametrize("tokenizer", list(DESCRIPTIONS))
def test_every_case_holds_on_the_installed_vllm(shipped, tokenizer):
    """A case without a note matches the installed vLLM's answer; a noted case (no version
    passes it, or only a lane does) still differs here, or its note is stale. One test per
    tokenizer: each loads once, and the workers share them out."""
    installed = versions.installed()
    wrong, stale = [], []
    for case, final in nonstream_answers([c for c in shipped if c.run.tokenizer == tokenizer]):
        diff = _diff(case, final)
        noted = case.no_version_passes is not None or (case.passes_on and installed not in case.passes_on)
        if noted and diff is None:
            stale.append(case.id)
        elif not noted and diff is not None:
            wrong.append(f"{case.id}: {diff}")
    assert not wrong, "expected answers vLLM does not give:\n" + "\n".join(wrong)
    assert not stale, f"cases noted as failing that pass on {installed}: {stale}"


def _lane_versions() -> list[str]:
    return [v for v in versions.listed() if not versions.is_installed(v)]


@pytest.mark.slow
def test_a_case_that_only_a_lane_passes_holds_there(shipped):
    by_version: dict[str, list[mc.Case]] = {}
    for case in shipped:
        for version in case.passes_on:
            assert version in versions.listed(), f"{case.id}: passes_on names {version}, not a listed version"
            if not versions.is_installed(version):
                by_version.setdefault(version, []).append(case)
    wrong = [f"{case.id} on {version}: {diff}" for version, group in by_version.items()
             for case, final in nonstream_answers(group, version) if (diff := _diff(case, final)) is not None]
    assert not wrong, "\n".join(wrong)


@pytest.mark.slow
@pytest.mark.parametrize("version", _lane_versions())
def test_what_no_version_passes_fails_on_every_lane(shipped, version):
    """Each lane agrees with the notes: a case passes there exactly when passes_on names it."""
    noted = [c for c in shipped if c.no_version_passes is not None or c.passes_on]
    disagree = []
    for case, final in nonstream_answers(noted, version):
        passes = _diff(case, final) is None
        if passes != (version in case.passes_on):
            disagree.append(f"{case.id}: {'passes' if passes else 'fails'}")
    assert not disagree, f"on {version}: {disagree}"


def test_every_noted_case_says_why_with_a_link(shipped):
    for case in shipped:
        if case.no_version_passes is not None:
            assert "https://" in case.no_version_passes, case.id
        assert not (case.no_version_passes and case.passes_on), case.id


def test_every_folder_covers_its_required_tags(shipped):
    assert mc.missing_required(shipped) == {}


def test_each_folder_is_named_after_its_parser(shipped):
    for case in shipped:
        parser = case.run.parser
        assert case.parser_dir in (parser.tool_parser, parser.reasoning_parser), case.id


# -- the loader --------------------------------------------------------------------------
GOOD = '''title = "one call"
covers = ["one-call"]
tokenizer = "qwen3"
text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
[parser]
tool_parser = "hermes"
[request]
tools = "weather"
[expected]
finish_reason = "tool_calls"
tool_calls = [{name = "get_weather", arguments = {city = "Paris"}}]
'''


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / "hermes" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_case_loads_with_its_named_tool_set(tmp_path):
    path = _write(tmp_path, "one.toml", GOOD)
    (case,) = mc.load_cases([str(path)])
    assert case.id == "hermes/one"
    assert case.run.text.startswith("<tool_call>")
    assert case.run.finish_reason == "stop"
    assert [t["function"]["name"] for t in case.run.request["tools"]] == ["get_weather", "get_time", "list_alerts"]
    assert case.expected == mc.Expected(None, None, (("get_weather", {"city": "Paris"}),), "tool_calls")
    assert case.no_version_passes is None


def test_folders_and_globs_give_each_case_once_in_order(tmp_path):
    _write(tmp_path, "b.toml", GOOD)
    _write(tmp_path, "a.toml", GOOD)
    got = mc.load_cases([str(tmp_path), str(tmp_path / "hermes" / "*.toml"), str(tmp_path / "hermes" / "a.toml")])
    assert [c.id for c in got] == ["hermes/a", "hermes/b"]


@pytest.mark.parametrize("change, message", [
    (('tool_parser = "hermes"', 'tool_parser = "hermez"'), "unknown tool parser 'hermez' (did you mean: hermes"),
    (('tokenizer = "qwen3"', 'tokenizer = "qwen9"'), "unknown tokenizer 'qwen9'"),
    (('covers = ["one-call"]', 'covers = ["one-cal"]'), "unknown taxonomy tag 'one-cal' (did you mean: one-call"),
    (('tools = "weather"', 'tools = "wether"'), "unknown tool set 'wether' (did you mean: weather"),
    (('tools = "weather"', 'tool_choice = "auto"'), "parser hermes+- parses tool calls: give [request] tools"),
    (('[expected]\n', '[expected]\ncolour = "red"\n'), "[expected]: unknown field(s) colour"),
    (('text = ', 'finish_reason = "eos"\ntext = '), "finish_reason must be one of stop, length"),
])
def test_bad_input_is_one_line_naming_the_file(tmp_path, change, message):
    path = _write(tmp_path, "bad.toml", GOOD.replace(*change))
    with pytest.raises(WorkbenchError) as e:
        mc.load_cases([str(path)])
    assert str(e.value).startswith(f"case {path}: {message}")
    assert "\n" not in str(e.value)


def test_a_path_with_no_cases_is_an_error(tmp_path):
    with pytest.raises(WorkbenchError, match="no case files"):
        mc.load_cases([str(tmp_path / "nothing")])


def test_a_case_file_that_is_not_toml_is_refused_by_the_door(tmp_path):
    path = _write(tmp_path, "bad.toml", "title = \n")
    with pytest.raises(WorkbenchError, match=f"case {path}"):
        mc.load_cases([str(path)])


# -- answers -----------------------------------------------------------------------------
def test_answer_of_parses_arguments_and_keeps_what_is_not_json():
    final = Final("r", None, (ToolCall(0, "id", "get_weather", '{"city": "Paris"}'), ToolCall(1, "id", "f", '{"a"')),
                  "tool_calls")
    assert mc.answer_of(final) == mc.Expected("r", None, (("get_weather", {"city": "Paris"}), ("f", '{"a"')),
                                              "tool_calls")
    assert mc.answer_of(final.to_dict()) == mc.answer_of(final)


def test_compare_names_the_first_field_that_differs():
    want = mc.Expected(None, "hi", (("get_weather", {"city": "Paris"}),), "tool_calls")
    assert mc.compare(want, want) is None
    assert mc.compare(want, mc.Expected(None, None, want.tool_calls, "tool_calls")) == "content: expected 'hi', got none"
    assert mc.compare(want, mc.Expected(None, "hi", (("get_weather", {"city": "Lyon"}),), "tool_calls")) == \
        "tool_calls[0].arguments: expected {'city': 'Paris'}, got {'city': 'Lyon'}"
    assert mc.compare(want, mc.Expected(None, "hi", (), "stop")).startswith("tool_calls: expected 1 call(s)")
    assert mc.compare(want, mc.Expected(None, "hi", want.tool_calls, "stop")) == \
        "finish_reason: expected 'tool_calls', got 'stop'"


def test_the_installed_parse_is_what_compare_reads(shipped):
    """The check's path agrees with a direct Session.nonstream on the same text."""
    from workbench.core.session import Session
    from workbench.core.prepare import text_setup

    case = next(c for c in shipped if c.id == "hermes/parallel-calls")
    session = Session(text_setup(case.run))
    deltas = session.deltas_from_text(case.run.text)
    direct = session.nonstream("".join(d.text for d in deltas), [t for d in deltas for t in d.token_ids])
    (_, final), = nonstream_answers([case])
    assert mc.answer_of(final) == mc.answer_of(direct) == case.expected


# -- known divergences -------------------------------------------------------------------
def test_the_shipped_divergences_load():
    for d in mc.load_divergences():
        assert d.reason and d.link.startswith("https://")


def test_allowed_matches_a_cell_by_case_parser_and_where(tmp_path):
    path = tmp_path / "known.toml"
    path.write_text('''
[[divergence]]
case = "hermes/one-call"
vllm = "0.32.0"
field = "content"
reason = "r1"
link = "https://example.org/1"

[[divergence]]
parser = "mistral"
frontend = ["rust"]
reason = "r2"
link = "https://example.org/2"
''', encoding="utf-8")
    first, second = mc.load_divergences(path)
    cell = {"case": "hermes/one-call", "vllm": "0.32.0", "frontend": "python", "api": "chat", "field": "content"}
    assert mc.allowed([first, second], cell) is first
    assert mc.allowed([first, second], {**cell, "vllm": "0.34.0"}) is None
    assert mc.allowed([first, second], {**cell, "field": "tool_calls"}) is None
    assert mc.allowed([first, second], {"case": "mistral/no-call", "frontend": "rust", "field": "content"}) is second
    assert mc.allowed([first, second], {"case": "mistral/no-call", "frontend": "python"}) is None
    # an error cell has no field: only an entry for any field, or for errors, allows it
    error = {**cell, "verdict": "error", "field": None}
    assert mc.allowed([first], error) is None
    assert mc.allowed([second], {"case": "mistral/no-call", "frontend": "rust", "verdict": "error"}) is second
    errors, streams = (mc.Divergence("hermes/one-call", None, (), (), (), (), kind, "r", "l") for kind in ("error", "stream"))
    assert mc.allowed([errors], error) is errors and mc.allowed([streams], error) is None
    assert mc.allowed([errors], {**cell, "verdict": "stream≠nonstream"}) is None
    assert mc.allowed([streams], {**cell, "verdict": "stream≠nonstream"}) is streams



def test_a_divergence_by_its_detail_allows_that_behaviour_on_any_case(tmp_path):
    path = tmp_path / "known.toml"
    path.write_text('[[divergence]]\ndetail = "no response.completed"\nfrontend = "rust"\napi = "responses"\n'
                    'field = "error"\nreason = "r"\nlink = "https://example.org/r"\n', encoding="utf-8")
    [cut] = mc.load_divergences(path)
    cell = {"case": "hermes/reasoning-cut", "frontend": "rust", "api": "responses", "verdict": "error",
            "detail": "stream: no response.completed event"}
    assert mc.allowed([cut], cell) is cut and mc.allowed([cut], {**cell, "case": "qwen3/cut"}) is cut
    assert mc.allowed([cut], {**cell, "detail": "HTTP 500"}) is None
    assert mc.allowed([cut], {**cell, "api": "chat"}) is None
    path.write_text('[[divergence]]\nfrontend = "rust"\nreason = "r"\nlink = "https://example.org/r"\n', encoding="utf-8")
    with pytest.raises(WorkbenchError, match="divergence 1: give a case id, a parser folder, or the detail"):
        mc.load_divergences(path)


def test_a_divergence_without_its_reason_is_refused(tmp_path):
    path = tmp_path / "known.toml"
    path.write_text('[[divergence]]\ncase = "hermes/one-call"\nlink = "https://x"\n', encoding="utf-8")
    with pytest.raises(WorkbenchError, match="divergence 1: reason is required"):
        mc.load_divergences(path)


def test_every_registered_parser_has_cases_or_is_listed_without(shipped):
    """parsers/cases/README.md names, with its reason, each parser the installed vLLM
    registers that no case runs."""
    import re

    from workbench.lanes import names

    readme = (mc.CASES_DIR / "README.md").read_text(encoding="utf-8").split("## Parsers without cases")[1]
    listed = {kind: set() for kind in ("tool", "reasoning")}
    for line in readme.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            for kind in listed:
                if kind in cells[1]:
                    listed[kind].update(re.findall(r"`([^`]+)`", cells[0]))
    for kind, registered in names.declared(None).items():
        covered = {getattr(c.run.parser, f"{kind}_parser") for c in shipped}
        assert set(registered) - covered == listed[kind], kind


def test_noted_says_where_a_case_is_expected_to_differ(shipped):
    by_id = {c.id: c for c in shipped}
    lane_only = by_id["step3/nested-arguments"]
    assert mc.noted(lane_only, "0.34.0") is None
    assert mc.noted(lane_only, "0.32.0") == "only 0.34.0 pass it"
    nowhere = by_id["hermes/content-after-call"]
    assert mc.noted(nowhere, "0.34.0") == nowhere.no_version_passes
    assert mc.noted(by_id["hermes/one-call"], "0.32.0") is None


def test_each_lane_only_case_has_its_divergence_on_the_other_versions(shipped):
    divergences = mc.load_divergences()
    for case in shipped:
        for version in versions.listed():
            if case.passes_on and version not in case.passes_on:
                assert mc.allowed(divergences, {"case": case.id, "vllm": version}), (case.id, version)
