"""Find and pin parser bugs: stream vs non-stream, chunking invariance, the client
contract and parser cost, over vLLM's own parsers (widget-free).

    suite.py             `check`: every check over one stream with one Session (check, Options, Report)
    on_spec.py           check, doctor and diff on a RunSpec (the commands, a lane's ops, the corpus)
    version_matrix.py    the same check in every vLLM version, findings matched: fixed, back, new in
    streams.py           one stream as check keeps it: never its rows
    groupings.py         other groupings of the same tokens into deltas, as engines produce them
    steps.py             a finding's step as the tokens it covers and the texts around it
    shrink.py            shrink a failing case: the grouping first, then the text
    steps.py             a finding's step as the tokens it covers (from 1), with the token texts around it
    minimal_text.py      the fewest tokens of the stream that still show a finding
    parallel.py          independent replays over CPU cores with fork (check --jobs)
    compare.py           what a streaming client ends with vs a reference answer
    props.py             the properties check asserts, pure functions over the message model
    contract.py          the client contract per row (ids, names, indexes, one tool per delta)
    api_faces.py         check --api responses|messages: that API's client contract over its events
    coverage.py          text_dropped: model output that reaches no field in either mode
    silent.py            the silent drops: tool_call_dropped, tool_markup_in_content|reasoning, all_output_lost
    timing.py            arguments_buffered: a call's arguments in one burst after silent deltas
    cost.py              parser cost per delta, super-linear growth flagged
    export.py            a standalone pytest file, or a vLLM replay-test sample
    export_template.py   the pytest file's template (pastes core/messages.py)
    export_code.py       the author's plugin / config, copied beside an exported test that loads it
    doctor.py            `workbench doctor`: evidence -> report
    evidence.py          what the text says: calls left open, markup broken or leaked, which mode falls short
    written.py           how the model wrote a call's JSON in the text: valid, unfinished, invalid
    causes.py            evidence -> cause classes (parser_streaming, serving, model_output, ...)
    strength.py          the rule that orders causes, as data: the kinds of evidence, strongest first
    modes.py             which parser path a stream-vs-non-stream difference is blamed on: contract, then loss
    finish.py            the finish_reason a client is told vs the engine's: the serving relabel of a cut
    thinking.py          thinking on or off for the request, and thinking the model never closed
    constraint.py        could the engine have produced the text under the request's grammar (xgrammar)
    fixed_in.py          a finding's timeline over every vLLM version: fixed in, back in, new in
    config_diagnoses.py  settings that make a right parser look wrong
    api_evidence.py      the doctor's evidence for --api responses|messages
    where.py             the file, class and method of a cause, from the composed class
    wrote.py             the line of an author's plugin that wrote the value that differs (sys.settrace)
    config_where.py      a config parser's cause: the transition and terminal at the failing step, its lines
    config_readings.py   how the text at that step reads: a terminal inside JSON arguments, a marker cut short
    config_fixes.py      the author's fix as TOML: a raw JSON body, a converter that differs or is not JSON
    config_family.py     whose fault it is: vLLM's configs with the same transitions, run on the same text
    literals.py          marker literals a legacy parser's methods compare with (read by ast)
    rank.py              which other registered parser reads the text better: tried, never guessed
    bugreport.py         doctor --report bug.md, and its pytest file beside it
"""

from workbench.check.suite import Checker, Options, Report, check
from workbench.core.messages import Difference

__all__ = ["Difference", "Checker", "Options", "Report", "check"]
