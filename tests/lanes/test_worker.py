"""The lane worker's findings op (lanes/worker.py), run here on the installed vLLM: what
doctor's "fixed in" reads of a version is the full doctor's findings, without its shrinking."""

from __future__ import annotations

from tests.support.seed import WEATHER_TOOLS

DSV3_AFTER = ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
              '{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜> Done.')


def test_findings_are_the_doctors_and_a_parser_that_cannot_start_says_why():
    from workbench.core.parsers import ParserSpec
    from workbench.core.run_spec import RunSpec
    from workbench.lanes import carried
    from workbench.lanes.worker import Worker

    spec = RunSpec(text=DSV3_AFTER, tokenizer="deepseek_v3", parser=ParserSpec("deepseek_v3"),
                   request={"tools": WEATHER_TOOLS})
    worker = Worker()
    full = worker.op_doctor(carried.spec(spec))["report"]
    found = worker.op_findings(carried.spec(spec))
    assert found["cannot_start"] is None and full["findings"]
    assert sorted(map(tuple, found["findings"])) == sorted((f["kind"], f["field"], f["severity"]) for f in full["findings"])
    broken = RunSpec(text=DSV3_AFTER, tokenizer="qwen3", parser=ParserSpec("no_such_parser"))
    why = worker.op_findings(carried.spec(broken))["cannot_start"]
    assert "no_such_parser" in why
