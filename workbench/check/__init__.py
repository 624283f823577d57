"""The properties of one stream: stream vs non-stream, chunking invariance, the client
contract and parser cost, over vLLM's own parsers (widget-free). Why a finding happens is
the doctor's (workbench/diagnosis/), its pytest file export's (workbench/export/); check
imports neither, nor anything that starts a lane.

    suite.py             `check`: every check over one stream with one Session (check, Options, Report)
    on_spec.py           check on a RunSpec here: the run prepared once (a lane's check op, runs/on_spec.py)
    streams.py           one stream as check keeps it: never its rows
    groupings.py         other groupings of the same tokens into deltas, as engines produce them
    steps.py             a finding's step as the tokens it covers (from 1), with the token texts around it
    shrink.py            shrink a failing case: the grouping first, then the text
    parallel.py          independent replays over CPU cores with fork (check --jobs)
    compare.py           what a streaming client ends with vs a reference answer
    props.py             the properties check asserts, pure functions over the message model
    contract.py          the client contract per row (ids, names, indexes, one tool per delta)
    api_faces.py         check --api responses|messages: that API's client contract over its events
    coverage.py          text_dropped: model output that reaches no field in either mode
    silent.py            the silent drops: tool_call_dropped, tool_markup_in_content|reasoning, all_output_lost
    timing.py            arguments_buffered: a call's arguments in one burst after silent deltas
    cost.py              parser cost per delta, super-linear growth flagged
    evidence.py          what the text says: calls left open, markup broken or leaked, which mode falls short
    written.py           how the model wrote a call's JSON in the text: valid, unfinished, invalid
"""

from workbench.check.suite import Checker, Options, Report, check
from workbench.core.messages import Difference

__all__ = ["Difference", "Checker", "Options", "Report", "check"]
